"""GraphQL nodes as perfbot's observations: issues, comments, the bot's own reactions, the PR."""

from __future__ import annotations

from typing import Any

from bot.github.observed import Comment, Issue, Reaction

# GraphQL's ReactionContent names in REST's (and the offline state's) spelling.
REACTIONS = {
    "THUMBS_UP": "+1",
    "THUMBS_DOWN": "-1",
    "LAUGH": "laugh",
    "HOORAY": "hooray",
    "CONFUSED": "confused",
    "HEART": "heart",
    "ROCKET": "rocket",
    "EYES": "eyes",
}
GHOST = "ghost"  # GitHub's name for a deleted account


def login_of(author: dict[str, Any] | None) -> tuple[str, str]:
    """(login, user type). GraphQL gives a Bot's login without the `[bot]` REST shows."""
    if not author:
        return GHOST, "User"
    login, kind = str(author.get("login") or GHOST), author.get("__typename")
    if kind == "Bot":
        return (login if login.endswith("[bot]") else f"{login}[bot]"), "Bot"
    return login, "Organization" if kind == "Organization" else "User"


def issue(node: dict[str, Any]) -> Issue:
    reason = node.get("stateReason")
    return Issue(
        number=node["number"],
        title=node.get("title") or "",
        state="closed" if node.get("state") == "CLOSED" else "open",
        state_reason=reason.lower() if isinstance(reason, str) else None,
        assignees=tuple(a["login"] for a in (node.get("assignees") or {}).get("nodes") or [] if a),
    )


def comments(number: int, page: dict[str, Any], bot_login: str) -> tuple[list[Comment], list[Reaction]]:
    """One page of an issue's comments, and the reactions the viewer (the bot) left on them."""
    found, reactions = [], []
    for node in page.get("nodes") or []:
        if not node:
            continue
        login, kind = login_of(node.get("author"))
        comment_id = int(node["fullDatabaseId"])  # a BigInt, sent as a string
        found.append(
            Comment(
                id=comment_id,
                issue=number,
                user=login,
                user_type=kind,  # type: ignore[arg-type]
                created_at=node["createdAt"],
                body=node.get("body") or "",
                edited=node.get("lastEditedAt") is not None,
            )
        )
        reactions += [
            Reaction(comment_id=comment_id, user=bot_login, content=REACTIONS[group["content"]])
            for group in node.get("reactionGroups") or []
            if group.get("viewerHasReacted") and group.get("content") in REACTIONS
        ]
    return found, reactions


def next_cursor(page: dict[str, Any]) -> str | None:
    info = page.get("pageInfo") or {}
    return str(info["endCursor"]) if info.get("hasNextPage") and info.get("endCursor") else None


def made_by(commit: dict[str, Any] | None, bot_login: str) -> bool:
    """Whether a commit's author is the bot (a bot author has no user; its name is its login)."""
    author = (commit or {}).get("author") or {}
    user = author.get("user") or {}
    return bot_login in (user.get("login"), author.get("name"))
