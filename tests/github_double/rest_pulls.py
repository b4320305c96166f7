"""REST endpoints of pull requests: list, create (a draft too), update (title, body, close,
reopen), merge, and review requests.

Creating, updating and closing go through `OfflineGitHub.pull_request`, so the PR record reads as
an offline run writes it; GitHub's refusals come first (422 for a second PR from one head, a head
without commits, a body over GitHub's 65,536 characters, or reopening a PR whose branch was
force-pushed while it was closed). Reopening
and retitling a closed PR, which the offline adapter never does, change the record directly.
"""

from __future__ import annotations

from typing import Any

from bot.github.actions import PullRequestAction
from tests.github_double import branches, merging, pull_bodies
from tests.github_double.context import Context
from tests.github_double.protocol import (
    HttpError,
    Response,
    error_body,
    invalid,
    not_found,
    page,
    required,
    validation_failed,
)
from tests.github_double.rest_issues import MAX_BODY

STATES = ("open", "closed", "all")


def _head_owner(ctx: Context, record: dict[str, Any]) -> str:
    fork = ctx.world.fork_of(record)
    return ctx.world.owner if fork is None else fork.partition("/")[0]


def _head_matches(ctx: Context, head: str | None, record: dict[str, Any]) -> bool:
    """GitHub filters by `owner:branch` only (a fork's owner for a fork's PR); a bare branch
    name is silently ignored."""
    if head is None or ":" not in head:
        return True
    owner, _, branch = head.partition(":")
    return record["head"] == branch and owner.casefold() == _head_owner(ctx, record).casefold()


def list_pulls(ctx: Context) -> Response:
    docs = ctx.docs("pulls/pulls#list-pull-requests")
    query = ctx.request.query
    state = query.get("state", "open")
    if state not in STATES:
        raise validation_failed(docs, {"resource": "PullRequest", "field": "state", "code": "invalid"})
    head, base = query.get("head"), query.get("base")
    found = [
        p
        for p in ctx.world.listed("pulls")
        if (state == "all" or (p["state"] == "open") == (state == "open"))
        and _head_matches(ctx, head, p)
        and (base is None or ctx.world.pull_base(p["number"]) == base)
    ]
    newest_first = query.get("direction", "desc") == "desc"
    found.sort(key=lambda p: int(p["number"]), reverse=newest_first)
    shown, headers = page(found, ctx.request, ctx.api)
    return Response(200, [pull_bodies.simple(ctx.api, ctx.world, p) for p in shown], headers)


def _already(ctx: Context, branch: str, docs: str) -> None:
    mine = (p for p in ctx.world.records("pulls") if ctx.world.fork_of(p) is None)  # one open PR per head repo
    if any(p["head"] == branch and p["state"] == "open" for p in mine):
        message = f"A pull request already exists for {ctx.world.owner}:{branch}."
        raise validation_failed(docs, {"resource": "PullRequest", "code": "custom", "message": message})


def _body(data: dict[str, Any], docs: str, before: str) -> str:
    """The body sent, else `before`; GitHub refuses one over its limit as it refuses a comment's
    ("Validation Failed: body is too long (maximum is 65536 characters)", `rest_issues.MAX_BODY`)."""
    body = data["body"] if isinstance(data.get("body"), str) else before
    if len(body) > MAX_BODY:
        message = f"body is too long (maximum is {MAX_BODY} characters)"
        raise validation_failed(
            docs, {"resource": "PullRequest", "code": "custom", "field": "body", "message": message}
        )
    return body


def create_pull(ctx: Context) -> Response:
    docs = ctx.docs("pulls/pulls#create-a-pull-request")
    data = ctx.request.object()
    title = required(data, "title", str, docs)
    base = required(data, "base", str, docs)
    branch = required(data, "head", str, docs).rpartition(":")[2]
    world = ctx.world
    for field, name in (("base", base), ("head", branch)):
        if world.tip(name) is None:
            raise validation_failed(docs, {"resource": "PullRequest", "field": field, "code": "invalid"})
    _already(ctx, branch, docs)
    head_oid, base_oid = world.tip(branch), world.tip(base)
    assert head_oid is not None
    assert base_oid is not None
    if not world.git.only_in(head_oid, base_oid):
        message = f"No commits between {base} and {branch}"
        raise validation_failed(docs, {"resource": "PullRequest", "code": "custom", "message": message})
    files = branches.branch_files(world, branch, base) or {}
    body = _body(data, docs, "")
    draft = data.get("draft") is True
    action = PullRequestAction(operation="create", branch=branch, title=title, body=body, files=files, draft=draft)
    world.apply(ctx.viewer, lambda offline: offline.pull_request(action))
    record = max(
        (p for p in world.records("pulls") if p["head"] == branch and world.fork_of(p) is None),
        key=lambda p: int(p["number"]),
    )
    world.pull_git[record["number"]] = {"base": base, "closed_head": None}
    world.git_changed()
    world.save()
    branches.keep_message(world, record)
    branches.sync_pulls(world, branch)
    return Response(201, pull_bodies.full(ctx.api, world, record))


def _reopen(ctx: Context, record: dict[str, Any], docs: str) -> None:
    """GitHub reopens only a PR whose branch still descends from the head it had when closed."""
    world, branch = ctx.world, record["head"]
    if record["state"] == "merged":
        raise invalid("state cannot be changed. The pull request has been merged.", docs)
    closed, tip = world.pull_git.get(record["number"], {}).get("closed_head"), world.tip(branch)
    if tip is None or (closed is not None and not world.git.is_ancestor(closed, tip)):
        message = f"state cannot be changed. The {branch} branch was force-pushed or recreated."
        raise validation_failed(
            docs, {"resource": "PullRequest", "code": "custom", "field": "state", "message": message}
        )
    _already(ctx, branch, docs)
    record["state"] = "open"
    world.pull_git.setdefault(record["number"], {"base": world.default_branch})["closed_head"] = None
    world.git_changed()
    world.save()
    branches.sync_pulls(world, branch)


def get_pull(ctx: Context, number: str) -> Response:
    record = ctx.world.pull(int(number))
    if record is None:
        raise not_found(ctx.docs("pulls/pulls#get-a-pull-request"))
    return Response(200, pull_bodies.full(ctx.api, ctx.world, record))


def merge_pull(ctx: Context, number: str) -> Response:
    """`PUT .../pulls/{pull_number}/merge` (GitHub's "Merge a pull request"): GitHub's merge rules
    (`merging`), its refusals first: 403 without write access, 405 for a PR that is not open, is
    blocked or asks a method the repository does not allow, 409 when `sha` is not the head."""
    docs = ctx.docs("pulls/pulls#merge-a-pull-request")
    world, data = ctx.world, ctx.request.object()
    record = world.pull(int(number))
    if record is None:
        raise not_found(docs)
    method = data.get("merge_method", "merge")
    if method not in ("merge", "squash", "rebase"):
        raise validation_failed(docs, {"resource": "PullRequest", "field": "merge_method", "code": "invalid"})
    if world.permission(ctx.viewer) not in MERGERS and ctx.viewer != world.bot_login:
        raise HttpError(403, error_body(403, "Resource not accessible by integration", docs))
    sha = data.get("sha") if isinstance(data.get("sha"), str) else None
    refused = merging.refusal(world, record, method.upper(), sha)
    if refused is not None:
        status, message = refused
        raise HttpError(status, error_body(status, message, docs))
    oid = merging.merge(world, record, method.upper(), ctx.viewer)
    return Response(200, {"sha": oid, "merged": True, "message": "Pull Request successfully merged"})


def update_pull(ctx: Context, number: str) -> Response:
    docs = ctx.docs("pulls/pulls#update-a-pull-request")
    world, data = ctx.world, ctx.request.object()
    record = world.pull(int(number))
    if record is None:
        raise not_found(docs)
    state = data.get("state")
    if state not in (None, "open", "closed"):
        raise validation_failed(docs, {"resource": "PullRequest", "field": "state", "code": "invalid"})
    if state == "open" and record["state"] != "open":
        _reopen(ctx, record, docs)
    title = data["title"] if isinstance(data.get("title"), str) else record["title"]
    body = _body(data, docs, record["body"])
    if (title, body) != (record["title"], record["body"]) and record["state"] == "open":
        _edited_by(ctx, record, body)
        files = branches.pull_files(world, record)
        action = PullRequestAction(
            operation="update", number=record["number"], branch=record["head"], title=title, body=body, files=files
        )
        world.apply(ctx.viewer, lambda offline: offline.pull_request(action))
    elif (title, body) != (record["title"], record["body"]):
        _edited_by(ctx, record, body)
        record.update(title=title, body=body)
        world.save()
    if state == "closed" and record["state"] == "open":
        close = PullRequestAction(operation="close", number=record["number"], branch=record["head"])
        world.pull_git.setdefault(record["number"], {"base": world.default_branch})["closed_head"] = world.tip(
            record["head"]
        )
        world.git_changed()
        world.apply(ctx.viewer, lambda offline: offline.pull_request(close))
    return Response(200, pull_bodies.full(ctx.api, world, record))


def _edited_by(ctx: Context, record: dict[str, Any], body: str) -> None:
    """GitHub's `editor` of a PR is who last edited its body (a title edit is not one). The state
    leaves it out while nobody but perfbot edited it."""
    if body != record["body"] and (ctx.viewer != ctx.world.bot_login or "editor" in record):
        record["editor"] = ctx.viewer


# Who may merge: GitHub lets a collaborator with write access or more merge a pull request.
MERGERS = ("write", "maintain", "admin")


def request_reviewers(ctx: Context, number: str) -> Response:
    """POST .../pulls/N/requested_reviewers (GitHub's "Request reviewers for a pull request"): 201
    with the PR. 422 for a login that is not a collaborator or is the PR's author, and for a team
    the state's `teams` does not list (GitHub asks a team of the repository's organisation)."""
    docs = ctx.docs("pulls/review-requests#request-reviewers-for-a-pull-request")
    world, data = ctx.world, ctx.request.object()
    record = world.pull(int(number))
    if record is None:
        raise not_found(docs)
    logins, teams = data.get("reviewers", []), data.get("team_reviewers", [])
    for names in (logins, teams):
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise validation_failed(docs, {"resource": "PullRequest", "code": "invalid"})
    known_teams = {str(t).casefold() for t in world.raw.get("teams", [])}
    if any(world.permission(login) == "none" or login == world.bot_login for login in logins) or any(
        slug.casefold() not in known_teams for slug in teams
    ):
        message = f"Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the {world.repository} repository."
        raise HttpError(422, error_body(422, message, docs))
    for key, names in (("requested_reviewers", logins), ("requested_teams", teams)):
        asked = record.setdefault(key, [])
        asked += [n for n in names if n not in asked]
    world.save()
    return Response(201, pull_bodies.simple(ctx.api, world, record))
