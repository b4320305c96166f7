"""REST bodies of the git data API, the commits API and compare."""

from __future__ import annotations

import difflib
from typing import Any
from urllib.parse import quote

from bot.recent import Recent
from tests.github_double.bodies import WEB, node_id, user
from tests.github_double.gitstore import Commit, Person, blob_oid
from tests.github_double.world import World


def ref(api: str, world: World, branch: str) -> dict[str, Any]:
    oid = world.git.refs[branch]
    base = f"{api}/repos/{world.repository}/git"
    return {
        "ref": f"refs/heads/{branch}",
        "node_id": node_id("REF", int(oid[:12], 16)),
        "url": f"{base}/refs/heads/{quote(branch)}",
        "object": {"type": "commit", "sha": oid, "url": f"{base}/commits/{oid}"},
    }


def tree(api: str, world: World, oid: str) -> dict[str, Any]:
    """Every blob of the tree, by full path (as GitHub lists a tree with `recursive`)."""
    base = f"{api}/repos/{world.repository}/git"
    entries = [
        {"path": path, "mode": mode, "type": "blob", "sha": sha, "size": len(world.git.blobs[sha].encode())}
        | {"url": f"{base}/blobs/{sha}"}
        for path, (mode, sha) in world.git.trees[oid].items()
    ]
    return {"sha": oid, "url": f"{base}/trees/{oid}", "tree": entries, "truncated": False}


def _signature(who: Person) -> dict[str, Any]:
    return {"name": who.name, "email": who.email, "date": who.date}


def _verification(item: Commit) -> dict[str, Any]:
    reason = "valid" if item.verified else "unsigned"
    return {"verified": item.verified, "reason": reason, "signature": None, "payload": None, "verified_at": None}


def git_commit(api: str, world: World, oid: str) -> dict[str, Any]:
    item, base = world.git.commits[oid], f"{api}/repos/{world.repository}/git"
    return {
        "sha": oid,
        "node_id": node_id("C", int(oid[:12], 16)),
        "url": f"{base}/commits/{oid}",
        "html_url": f"{WEB}/{world.repository}/commit/{oid}",
        "author": _signature(item.author),
        "committer": _signature(item.committer),
        "message": item.message,
        "tree": {"sha": item.tree, "url": f"{base}/trees/{item.tree}"},
        "parents": [
            {"sha": p, "url": f"{base}/commits/{p}", "html_url": f"{WEB}/{world.repository}/commit/{p}"}
            for p in item.parents
        ],
        "verification": _verification(item),
    }


def commit(api: str, world: World, oid: str) -> dict[str, Any]:
    """A commit as the commits and compare endpoints show it: git data plus the GitHub accounts."""
    item, repo_url = world.git.commits[oid], f"{api}/repos/{world.repository}"
    author = user(api, item.author.login) if item.author.login else None
    committer = user(api, item.committer.login) if item.committer.login else None
    return {
        "url": f"{repo_url}/commits/{oid}",
        "sha": oid,
        "node_id": node_id("C", int(oid[:12], 16)),
        "html_url": f"{WEB}/{world.repository}/commit/{oid}",
        "comments_url": f"{repo_url}/commits/{oid}/comments",
        "commit": {
            "url": f"{repo_url}/git/commits/{oid}",
            "author": _signature(item.author),
            "committer": _signature(item.committer),
            "message": item.message,
            "tree": {"sha": item.tree, "url": f"{repo_url}/git/trees/{item.tree}"},
            "comment_count": 0,
            "verification": _verification(item),
        },
        "author": author,
        "committer": committer,
        "parents": [
            {"sha": p, "url": f"{repo_url}/commits/{p}", "html_url": f"{WEB}/{world.repository}/commit/{p}"}
            for p in item.parents
        ],
    }


def _file_change(api: str, world: World, path: str, old: str | None, new: str | None, head: str) -> dict[str, Any]:
    diff = _diff(old or "", new or "")
    added = sum(line.startswith("+") for line in diff)
    removed = sum(line.startswith("-") for line in diff)
    status = "added" if old is None else "removed" if new is None else "modified"
    blob = blob_oid(new) if new is not None else "0" * 40
    return {
        "sha": blob,
        "filename": path,
        "status": status,
        "additions": added,
        "deletions": removed,
        "changes": added + removed,
        "blob_url": f"{WEB}/{world.repository}/blob/{head}/{path}",
        "raw_url": f"{WEB}/{world.repository}/raw/{head}/{path}",
        "contents_url": f"{api}/repos/{world.repository}/contents/{path}?ref={head}",
        "patch": "\n".join(diff),
    }


def _diff(old: str, new: str) -> tuple[str, ...]:
    """The unified diff's lines of two texts (without its two file lines)."""
    known = _DIFFS.get((old, new))
    if known is None:
        known = tuple(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[2:]
        _DIFFS.keep((old, new), known)
    return known


# The diffs of the last few pairs of texts: a PR's body and its compare are asked for again and
# again between the same commits, and difflib takes most of such an answer.
_DIFFS: Recent[tuple[str, str], tuple[str, ...]] = Recent(64)


def file_changes(api: str, world: World, start: str, end: str) -> list[dict[str, Any]]:
    """The files that differ between two commits, with line counts, as compare lists them."""
    old, new = world.git.files(start), world.git.files(end)
    changed = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    return [_file_change(api, world, p, old.get(p), new.get(p), end) for p in changed]


def comparison(api: str, world: World, base: str, head: str, merge_base: str, spec: str) -> dict[str, Any]:
    ahead, behind = world.git.only_in(head, base), world.git.only_in(base, head)
    status = (
        "identical" if not ahead and not behind else "ahead" if not behind else "behind" if not ahead else "diverged"
    )
    html = f"{WEB}/{world.repository}/compare/{spec}"
    return {
        "url": f"{api}/repos/{world.repository}/compare/{spec}",
        "html_url": html,
        "permalink_url": f"{WEB}/{world.repository}/compare/{world.owner}:{base}...{world.owner}:{head}",
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "base_commit": commit(api, world, base),
        "merge_base_commit": commit(api, world, merge_base),
        "status": status,
        "ahead_by": len(ahead),
        "behind_by": len(behind),
        "total_commits": len(ahead),
        "commits": [commit(api, world, oid) for oid in ahead],
        "files": file_changes(api, world, merge_base, head),
    }
