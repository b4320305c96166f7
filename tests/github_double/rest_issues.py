"""REST endpoints on issues: comments (and their edits), reactions, assignees, permissions, the repository itself.

Every write perfbot makes goes through `OfflineGitHub`, so the state changes as an offline run
changes it; the other reactions (+1, heart, ...) are recorded in the same shape, and a person's
comment (a token whose viewer is not a bot) is stored without `user_type`, as the state's are.
"""

from __future__ import annotations

from operator import methodcaller
from typing import Any

from bot.github.actions import AssignAction, CommentAction, EditCommentAction, ReactAction, Topic
from bot.issue_refs import parse_issue, repository_of
from tests.github_double import bodies
from tests.github_double.context import Context
from tests.github_double.protocol import HttpError, Response, error_body, not_found, page, required, validation_failed

# GitHub refuses comment bodies longer than this.
MAX_BODY = 65536
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
# The reactions perfbot makes; OfflineGitHub records these, the double records the others alike.
BOT_REACTIONS = ("eyes", "rocket", "confused")
# OfflineGitHub's comment writes ignore the topic, which GitHub has no notion of.
TOPIC: Topic = "command-reply"


def _issue(ctx: Context, number: str) -> dict[str, Any]:
    issue = ctx.world.issue(int(number), ctx.repository)
    if issue is None:
        raise not_found(ctx.docs("issues/issues#get-an-issue"))
    return issue


def _comment(ctx: Context, comment_id: str) -> dict[str, Any]:
    found = ctx.world.comment(int(comment_id))
    if found is not None and ctx.world.other(repository_of(parse_issue(found["issue"]))) != ctx.world.other(
        ctx.repository
    ):
        found = None  # a comment id is global; the path names the repository it must be in
    if found is None:
        raise not_found(ctx.docs("issues/comments#get-an-issue-comment"))
    return found


def _body(ctx: Context, docs: str) -> str:
    body: str = required(ctx.request.object(), "body", str, docs)
    if len(body) > MAX_BODY:
        raise validation_failed(
            docs,
            {
                "resource": "IssueComment",
                "code": "custom",
                "field": "body",
                "message": "body is too long (maximum is 65536 characters)",
            },
        )
    return body


def list_comments(ctx: Context, number: str) -> Response:
    issue = _issue(ctx, number)
    mine = ctx.world.key(issue)
    found = sorted((c for c in ctx.world.listed("comments") if parse_issue(c["issue"]) == mine), key=lambda c: c["id"])
    shown, headers = page(found, ctx.request, ctx.api)
    return Response(200, [bodies.comment(ctx.api, ctx.world, c) for c in shown], headers)


def create_comment(ctx: Context, number: str) -> Response:
    docs = ctx.docs("issues/comments#create-an-issue-comment")
    issue = _issue(ctx, number)
    action = CommentAction(issue=ctx.world.key(issue), topic=TOPIC, body=_body(ctx, docs))
    comment_id = ctx.world.apply(ctx.viewer, lambda offline: offline.comment(action))
    record = _comment(ctx, str(comment_id))
    if not ctx.viewer.endswith("[bot]"):
        # OfflineGitHub writes only the bot's comments; a person's reads as the state's people's do.
        del record["user_type"]
        ctx.world.save()
    created = bodies.comment(ctx.api, ctx.world, record)
    return Response(201, created, {"location": created["url"]})


def get_comment(ctx: Context, comment_id: str) -> Response:
    """One comment by its id: found at once, where lists may still lag behind a write (`lag.py`)."""
    return Response(200, bodies.comment(ctx.api, ctx.world, _comment(ctx, comment_id)))


def update_comment(ctx: Context, comment_id: str) -> Response:
    """PATCH a comment's body: its author, or anyone with write access ("Anyone with write access to
    a repository can edit comments on issues, pull requests, and commits", GitHub Docs, "Managing
    disruptive comments"). GitHub then names the viewer as the comment's `editor`."""
    docs = ctx.docs("issues/comments#update-an-issue-comment")
    record = _comment(ctx, comment_id)
    body = _body(ctx, docs)
    if record["user"] != ctx.viewer and ctx.world.permission(ctx.viewer, ctx.repository) not in (
        "write",
        "maintain",
        "admin",
    ):
        raise HttpError(403, error_body(403, "Resource not accessible by integration", docs))
    action = EditCommentAction(issue=record["issue"], comment_id=record["id"], topic=TOPIC, body=body)
    ctx.world.apply(ctx.viewer, lambda offline: offline.edit_comment(action))
    return Response(200, bodies.comment(ctx.api, ctx.world, _comment(ctx, comment_id)))


def create_reaction(ctx: Context, comment_id: str) -> Response:
    """201 for a new reaction, 200 with the existing one when the viewer already reacted so."""
    docs = ctx.docs("reactions/reactions#create-reaction-for-an-issue-comment")
    record = _comment(ctx, comment_id)
    content = ctx.request.object().get("content")
    if content not in REACTIONS:
        raise validation_failed(docs, {"resource": "Reaction", "code": "invalid", "field": "content"})
    wanted = {"comment_id": record["id"], "user": ctx.viewer, "content": content}
    reactions = ctx.world.records("reactions")
    status = 200 if wanted in reactions else 201
    if status == 201 and content in BOT_REACTIONS:
        action = ReactAction(issue=record["issue"], comment_id=record["id"], content=content)
        ctx.world.apply(ctx.viewer, lambda offline: offline.react(action))
    elif status == 201:
        ctx.world.raw.setdefault("reactions", []).append(wanted)
        ctx.world.save()
    index = ctx.world.records("reactions").index(wanted)
    return Response(status, bodies.reaction(ctx.api, index, wanted, ctx.world.now()))


def list_reactions(ctx: Context, comment_id: str) -> Response:
    record, content = _comment(ctx, comment_id), ctx.request.query.get("content")
    found = [
        (index, r)
        for index, r in enumerate(ctx.world.records("reactions"))
        if r["comment_id"] == record["id"] and content in (None, r["content"])
    ]
    shown, headers = page(found, ctx.request, ctx.api)
    return Response(200, [bodies.reaction(ctx.api, i, r, record["created_at"]) for i, r in shown], headers)


def delete_reaction(ctx: Context, comment_id: str, reaction_id: str) -> Response:
    """204 (REST, "Delete an issue comment reaction"); a reaction of another comment, or none, is 404.
    The double's reaction ids are positions in the state's list, so the ids after a deleted one move
    down (GitHub's do not); a client reads them again before each deletion, as perfbot does."""
    record = _comment(ctx, comment_id)
    reactions = ctx.world.records("reactions")
    index = int(reaction_id) - 1
    if not 0 <= index < len(reactions) or reactions[index]["comment_id"] != record["id"]:
        raise not_found(ctx.docs("reactions/reactions#delete-an-issue-comment-reaction"))
    found = reactions[index]
    if found["user"] == ctx.viewer and found["content"] in BOT_REACTIONS:
        action = ReactAction(issue=record["issue"], comment_id=record["id"], content=found["content"], remove=True)
        ctx.world.apply(ctx.viewer, lambda offline: offline.react(action))
    else:
        del ctx.world.raw["reactions"][index]
        ctx.world.save()
    return Response(204)


def _assign(ctx: Context, number: str, *, add: bool) -> dict[str, Any]:
    docs = ctx.docs("issues/assignees#add-assignees-to-an-issue")
    issue = _issue(ctx, number)
    logins = required(ctx.request.object(), "assignees", list, docs)
    for login in logins:
        if isinstance(login, str):
            action = AssignAction(issue=ctx.world.key(issue), login=login, add=add)
            ctx.world.apply(ctx.viewer, methodcaller("assign", action))
    return bodies.issue(ctx.api, ctx.world, _issue(ctx, number))


def add_assignees(ctx: Context, number: str) -> Response:
    return Response(201, _assign(ctx, number, add=True))


def remove_assignees(ctx: Context, number: str) -> Response:
    return Response(200, _assign(ctx, number, add=False))


def get_issue(ctx: Context, number: str) -> Response:
    return Response(200, bodies.issue(ctx.api, ctx.world, _issue(ctx, number)))


def permission(ctx: Context, username: str) -> Response:
    """A login absent from the state's `permissions` has none (the offline rule)."""
    return Response(200, bodies.permission(ctx.api, username, ctx.world.permission(username, ctx.repository)))


def get_repository(ctx: Context) -> Response:
    return Response(200, bodies.repository(ctx.api, ctx.world, full=True))
