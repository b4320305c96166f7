"""REST endpoints of the git data API (refs, trees, commits), the commits list and compare.

As on GitHub: `base_tree` must be a tree oid (a commit oid is refused), `update_ref` refuses a
non-fast-forward without `force`, and a new or moved branch updates the PR records that use it.
"""

from __future__ import annotations

from operator import methodcaller
from typing import Any

from tests.github_double import branches, git_bodies
from tests.github_double.context import Context
from tests.github_double.gitstore import FILE_MODE, Commit, Person, noreply
from tests.github_double.protocol import HttpError, Response, error_body, invalid, not_found, page, required

BLOB_MODES = (FILE_MODE, "100755")


def _branch(ctx: Context, ref: str, docs: str) -> str:
    if not ref.startswith("heads/"):
        raise not_found(docs)
    return ref.removeprefix("heads/")


def _empty(ctx: Context, docs: str) -> None:
    if ctx.world.tip() is None:
        raise HttpError(409, error_body(409, "Git Repository is empty.", docs))


def get_ref(ctx: Context, ref: str) -> Response:
    docs = ctx.docs("git/refs#get-a-reference")
    _empty(ctx, docs)
    branch = _branch(ctx, ref, docs)
    if branch not in ctx.world.git.refs:
        raise not_found(docs)
    return Response(200, git_bodies.ref(ctx.api, ctx.world, branch))


def _entry(ctx: Context, entry: Any, docs: str) -> tuple[str, tuple[str, str] | None]:
    """One `tree` item: its path and (mode, blob oid), or None to delete the path."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        raise invalid("Invalid tree info", docs)
    if entry.get("type", "blob") != "blob" or entry.get("mode", FILE_MODE) not in BLOB_MODES:
        raise invalid("Invalid tree info: the double holds regular files (blobs) only", docs)
    if "sha" in entry and "content" in entry:
        raise invalid("Invalid tree info: use either sha or content", docs)
    if "content" in entry:
        return entry["path"], (entry.get("mode", FILE_MODE), ctx.world.git.put_blob(str(entry["content"])))
    sha = entry.get("sha")
    if sha is None:
        return entry["path"], None
    if sha not in ctx.world.git.blobs:
        raise invalid(f"tree.sha {sha} is not a valid blob", docs)
    return entry["path"], (entry.get("mode", FILE_MODE), sha)


def create_tree(ctx: Context) -> Response:
    docs = ctx.docs("git/trees#create-a-tree")
    data = ctx.request.object()
    items = required(data, "tree", list, docs)
    base = data.get("base_tree")
    if base is not None and base not in ctx.world.git.trees:
        raise invalid("base_tree is not a valid tree oid", docs)
    entries = dict(ctx.world.git.trees[base]) if base else {}
    for path, entry in (_entry(ctx, item, docs) for item in items):
        if entry is None:
            entries.pop(path, None)
        else:
            entries[path] = entry
    oid = ctx.world.git.put_tree(entries)
    return Response(201, git_bodies.tree(ctx.api, ctx.world, oid))


def _person(ctx: Context, given: Any, default: Person | None, docs: str) -> Person:
    if given is None:
        if default is not None:
            return default
        viewer = ctx.viewer
        return Person(viewer, noreply(viewer, branches.user_id(viewer)), ctx.world.now(), viewer)
    if not isinstance(given, dict) or not isinstance(given.get("name"), str) or not isinstance(given.get("email"), str):
        raise invalid("Invalid request: author and committer need a name and an email", docs)
    email = given["email"]
    # GitHub links a commit to the account whose address it carries; a noreply address names it.
    login = (
        email.split("+", 1)[1].split("@")[0] if email.endswith("@users.noreply.github.com") and "+" in email else None
    )
    return Person(given["name"], email, str(given.get("date") or ctx.world.now()), login)


def create_commit(ctx: Context) -> Response:
    docs = ctx.docs("git/commits#create-a-commit")
    data = ctx.request.object()
    message = required(data, "message", str, docs)
    tree = required(data, "tree", str, docs)
    parents = data.get("parents", [])
    if tree not in ctx.world.git.trees:
        raise invalid("Tree SHA does not exist", docs)
    if not isinstance(parents, list) or any(p not in ctx.world.git.commits for p in parents):
        raise invalid("Parent SHA does not exist or is not a commit object", docs)
    author = _person(ctx, data.get("author"), None, docs)
    committer = _person(ctx, data.get("committer"), author, docs)
    signed = data.get("author") is None and data.get("committer") is None
    oid = ctx.world.git.put_commit(Commit(tree, tuple(parents), message, author, committer, verified=signed))
    return Response(201, git_bodies.git_commit(ctx.api, ctx.world, oid))


def create_ref(ctx: Context) -> Response:
    docs = ctx.docs("git/refs#create-a-reference")
    data = ctx.request.object()
    ref, sha = required(data, "ref", str, docs), required(data, "sha", str, docs)
    if not ref.startswith("refs/heads/") or ref == "refs/heads/":
        raise invalid("Reference name is not valid: the double holds branches (refs/heads/...) only", docs)
    if sha not in ctx.world.git.commits:
        raise invalid("Object does not exist", docs)
    branch = ref.removeprefix("refs/heads/")
    if branch in ctx.world.git.refs:
        raise invalid("Reference already exists", docs)
    branches.move(ctx.world, branch, sha)
    return Response(201, git_bodies.ref(ctx.api, ctx.world, branch))


def update_ref(ctx: Context, ref: str) -> Response:
    docs = ctx.docs("git/refs#update-a-reference")
    data = ctx.request.object()
    sha = required(data, "sha", str, docs)
    branch = _branch(ctx, ref, docs)
    current = ctx.world.git.refs.get(branch)
    if current is None:
        raise invalid("Reference does not exist", docs)
    if sha not in ctx.world.git.commits:
        raise invalid("Object does not exist", docs)
    if data.get("force") is not True and not ctx.world.git.is_ancestor(current, sha):
        raise invalid("Update is not a fast forward", docs)
    branches.move(ctx.world, branch, sha, ctx.viewer)
    return Response(200, git_bodies.ref(ctx.api, ctx.world, branch))


def get_commit(ctx: Context, sha: str) -> Response:
    if sha not in ctx.world.git.commits:
        raise not_found(ctx.docs("git/commits#get-a-commit-object"))
    return Response(200, git_bodies.git_commit(ctx.api, ctx.world, sha))


def _revision(ctx: Context, text: str, docs: str) -> str:
    owner, _, name = text.rpartition(":")
    oid = ctx.world.git.resolve(name) if owner in ("", ctx.world.owner) else None
    if oid is None:
        raise not_found(docs)
    return oid


def compare(ctx: Context, basehead: str) -> Response:
    docs = ctx.docs("commits/commits#compare-two-commits")
    base_text, dots, head_text = basehead.partition("...")
    if not dots:
        raise not_found(docs)
    base, head = _revision(ctx, base_text, docs), _revision(ctx, head_text, docs)
    merge_base = ctx.world.git.merge_base(base, head)
    if merge_base is None:
        raise HttpError(404, error_body(404, f"No common ancestor between {base_text} and {head_text}.", docs))
    return Response(200, git_bodies.comparison(ctx.api, ctx.world, base, head, merge_base, basehead))


def list_commits(ctx: Context) -> Response:
    """Commits reachable from `sha` (a branch or an oid; default: the default branch), newest first."""
    docs = ctx.docs("commits/commits#list-commits")
    _empty(ctx, docs)
    start = ctx.world.git.resolve(ctx.request.query.get("sha") or ctx.world.default_branch)
    if start is None:
        raise not_found(docs)
    found = list(ctx.world.git.ancestors(start))
    order = {oid: index for index, oid in enumerate(found)}
    newest = sorted(found, key=lambda oid: (ctx.world.git.commits[oid].committer.date, -order[oid]), reverse=True)
    shown, headers = page(newest, ctx.request, ctx.api)
    return Response(200, [git_bodies.commit(ctx.api, ctx.world, oid) for oid in shown], headers)


def create_dispatch(ctx: Context) -> Response:
    """`repository_dispatch`: kept in the state's `dispatches`, as the offline adapter keeps it; 204."""
    docs = ctx.docs("repos/repos#create-a-repository-dispatch-event")
    data = ctx.request.object()
    event_type: str = required(data, "event_type", str, docs)
    payload = data.get("client_payload") or {}
    if not isinstance(payload, dict):
        raise invalid("client_payload must be an object", docs)
    ctx.world.apply(ctx.viewer, methodcaller("dispatch", event_type, payload))
    return Response(204)
