"""REST endpoints for the dashboard issue: open an issue, edit an issue's body.

Both go through `OfflineGitHub`'s writes, so the double's state changes as an offline run's does;
GitHub's limit on a body (65,536 characters) is enforced as it is on comments.
"""

from __future__ import annotations

from bot.github.actions import CreateIssueAction, EditIssueAction
from tests.github_double import bodies
from tests.github_double.context import Context
from tests.github_double.protocol import Response, not_found, required, validation_failed
from tests.github_double.rest_issues import MAX_BODY


def _body(ctx: Context, docs: str) -> str:
    body = ctx.request.object().get("body", "")
    if not isinstance(body, str) or len(body) > MAX_BODY:
        raise validation_failed(
            docs, {"resource": "Issue", "code": "custom", "field": "body", "message": "body is too long"}
        )
    return body


def create_issue(ctx: Context) -> Response:
    docs = ctx.docs("issues/issues#create-an-issue")
    data = ctx.request.object()
    title = required(data, "title", str, docs)
    labels = data.get("labels") or []
    names = tuple(str(label) for label in labels if isinstance(label, str))
    action = CreateIssueAction(title=title, body=_body(ctx, docs), labels=names)
    number = ctx.world.apply(ctx.viewer, lambda offline: offline.create_issue(action))
    record = ctx.world.issue(number)
    if record is None:
        raise not_found(docs)
    created = bodies.issue(ctx.api, ctx.world, record)
    return Response(201, created, {"location": created["url"]})


def update_issue(ctx: Context, number: str) -> Response:
    """Only the body is written (perfbot sends nothing else); other fields are left as they are."""
    docs = ctx.docs("issues/issues#update-an-issue")
    record = ctx.world.issue(int(number))
    if record is None:
        raise not_found(docs)
    if "body" in ctx.request.object():
        action = EditIssueAction(issue=int(number), body=_body(ctx, docs))
        ctx.world.apply(ctx.viewer, lambda offline: offline.edit_issue(action))
    return Response(200, bodies.issue(ctx.api, ctx.world, ctx.world.issue(int(number)) or record))
