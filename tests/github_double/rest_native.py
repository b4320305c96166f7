"""REST endpoints on labels, issue dependencies and sub-issues (paths as GitHub's REST documentation).

Every change goes through `OfflineGitHub`'s own writes as the request's viewer, so the state (and
its label events, GitHub's timeline of who put a label on or took it off) changes exactly as an
offline run would change it. Issues are named in bodies by their database id, as on GitHub.
"""

from __future__ import annotations

from operator import methodcaller
from typing import Any
from urllib.parse import unquote

from bot.github.actions import CreateLabelAction, LabelAction, LinkAction
from bot.github.port import NativeRefused
from bot.issue_refs import parse_issue
from tests.github_double import bodies
from tests.github_double.context import Context
from tests.github_double.graphql_labels import issue_id
from tests.github_double.protocol import HttpError, Response, error_body, not_found, required, validation_failed

DEPENDENCIES = "issues/issue-dependencies"
SUB_ISSUES = "issues/sub-issues"


def _issue(ctx: Context, number: str) -> dict[str, Any]:
    issue = ctx.world.issue(int(number), ctx.repository)
    if issue is None:
        raise not_found(ctx.docs("issues/issues#get-an-issue"))
    return issue


def _by_id(ctx: Context, value: object, docs: str) -> dict[str, Any]:
    found = next(
        (
            i
            for i in ctx.world.records("issues")
            if isinstance(value, int) and issue_id(i["number"], ctx.world.other(i.get("repository"))) == value
        ),
        None,
    )
    if found is None:
        raise not_found(ctx.docs(docs))
    return found


def _labels_of(ctx: Context, number: str) -> list[dict[str, Any]]:
    return [bodies.label(ctx.api, ctx.world, name) for name in _issue(ctx, number).get("labels", [])]


def create_label(ctx: Context) -> Response:
    docs = ctx.docs("issues/labels#create-a-label")
    data = ctx.request.object()
    name: str = required(data, "name", str, docs)
    labels = ((ctx.world.elsewhere(ctx.repository) or {}).get("labels") or []) if ctx.repository else None
    if any(label["name"].lower() == name.lower() for label in ctx.world.records("labels") if labels is None) or any(
        label["name"].lower() == name.lower() for label in labels or []
    ):
        raise validation_failed(docs, {"resource": "Label", "code": "already_exists", "field": "name"})
    action = CreateLabelAction(
        name=name,
        color=str(data.get("color") or "ededed"),
        description=str(data.get("description") or ""),
        repository=ctx.repository,
    )
    ctx.world.apply(ctx.viewer, methodcaller("create_label", action))
    return Response(201, bodies.label(ctx.api, ctx.world, name))


def add_labels(ctx: Context, number: str) -> Response:
    docs = ctx.docs("issues/labels#add-labels-to-an-issue")
    data = ctx.request.json()
    names = data.get("labels") if isinstance(data, dict) else data
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise validation_failed(docs, {"resource": "Label", "code": "invalid", "field": "labels"})
    pull = ctx.world.pull(int(number))
    if pull is not None:  # a PR is an issue: its labels are the issue's (kept on its record here)
        labels = pull.setdefault("labels", [])
        labels += [n for n in names if n.casefold() not in {had.casefold() for had in labels}]
        ctx.world.save()
        return Response(200, [bodies.label(ctx.api, ctx.world, name) for name in labels])
    issue = _issue(ctx, number)
    for name in names:
        action = LabelAction(issue=ctx.world.key(issue), name=name, add=True)
        ctx.world.apply(ctx.viewer, methodcaller("label", action))
    return Response(200, _labels_of(ctx, number))


def remove_label(ctx: Context, number: str, name: str) -> Response:
    issue, name = _issue(ctx, number), unquote(name)
    if name.casefold() not in {n.casefold() for n in issue.get("labels", [])}:  # as on GitHub, in any case
        raise HttpError(
            404, error_body(404, "Label does not exist", ctx.docs("issues/labels#remove-a-label-from-an-issue"))
        )
    action = LabelAction(issue=ctx.world.key(issue), name=name, add=False)
    ctx.world.apply(ctx.viewer, methodcaller("label", action))
    return Response(200, _labels_of(ctx, number))


def _link(ctx: Context, action: LinkAction, docs: str) -> None:
    try:
        ctx.world.apply(ctx.viewer, methodcaller("link", action))
    except NativeRefused as refusal:
        raise HttpError(422, error_body(422, str(refusal), ctx.docs(docs))) from refusal


def add_blocked_by(ctx: Context, number: str) -> Response:
    docs = f"{DEPENDENCIES}#add-a-dependency-an-issue-is-blocked-by"
    issue = _issue(ctx, number)
    blocker = _by_id(ctx, required(ctx.request.object(), "issue_id", int, ctx.docs(docs)), docs)
    link = LinkAction(relation="blocked_by", issue=ctx.world.key(issue), target=ctx.world.key(blocker), add=True)
    _link(ctx, link, docs)
    return Response(201, bodies.issue(ctx.api, ctx.world, blocker))


def remove_blocked_by(ctx: Context, number: str, issue_id: str) -> Response:
    docs = f"{DEPENDENCIES}#remove-dependency-an-issue-is-blocked-by"
    issue = _issue(ctx, number)
    blocker = _by_id(ctx, int(issue_id), docs)
    if ctx.world.key(blocker) not in {parse_issue(n) for n in issue.get("blocked_by", [])}:
        raise not_found(ctx.docs(docs))
    link = LinkAction(relation="blocked_by", issue=ctx.world.key(issue), target=ctx.world.key(blocker), add=False)
    _link(ctx, link, docs)
    return Response(200, bodies.issue(ctx.api, ctx.world, blocker))


# GitHub: "You can add up to 100 sub-issues per parent issue" (docs.github.com, "Adding sub-issues").
SUB_ISSUE_LIMIT = 100


def add_sub_issue(ctx: Context, number: str) -> Response:
    docs = f"{SUB_ISSUES}#add-sub-issue"
    parent, child = _parent_and_child(ctx, number, docs)
    held = sum(1 for issue in ctx.world.records("issues") if _parent_is(ctx, issue, parent))
    if held >= SUB_ISSUE_LIMIT and not _parent_is(ctx, child, parent):
        message = f"Parent issue cannot have more than {SUB_ISSUE_LIMIT} sub-issues"
        raise validation_failed(ctx.docs(docs), {"resource": "Issue", "code": "custom", "message": message})
    link = LinkAction(relation="sub_issue", issue=ctx.world.key(child), target=ctx.world.key(parent), add=True)
    _link(ctx, link, docs)
    return Response(201, bodies.issue(ctx.api, ctx.world, parent))


def remove_sub_issue(ctx: Context, number: str) -> Response:
    docs = f"{SUB_ISSUES}#remove-sub-issue"
    parent, child = _parent_and_child(ctx, number, docs)
    if not _parent_is(ctx, child, parent):
        raise not_found(ctx.docs(docs))
    link = LinkAction(relation="sub_issue", issue=ctx.world.key(child), target=ctx.world.key(parent), add=False)
    _link(ctx, link, docs)
    return Response(200, bodies.issue(ctx.api, ctx.world, parent))


def _parent_is(ctx: Context, child: dict[str, Any], parent: dict[str, Any]) -> bool:
    return child.get("parent") is not None and ctx.world.issue_by(child["parent"]) is parent


def _parent_and_child(ctx: Context, number: str, docs: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parent issue in the path and the sub-issue the body names by its database id."""
    parent = _issue(ctx, number)
    return parent, _by_id(ctx, required(ctx.request.object(), "sub_issue_id", int, ctx.docs(docs)), docs)
