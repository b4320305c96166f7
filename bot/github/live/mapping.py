"""GraphQL nodes as perfbot's observations: issues, comments, the bot's own reactions, the PR."""

from __future__ import annotations

from typing import Any

from bot.github.observed import Comment, Issue, LabelEvent, PullRequest, Reaction, RepositoryLabel

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


def numbers(connection: dict[str, Any] | None) -> tuple[int, ...]:
    return tuple(int(n["number"]) for n in (connection or {}).get("nodes") or [] if n)


def issue(node: dict[str, Any]) -> Issue:
    """An issue; its labels and links when the query read them (`IssueLabels`, `IssueLinks`)."""
    reason = node.get("stateReason")
    parent = node.get("parent") or {}
    database_id = node.get("fullDatabaseId")
    return Issue(
        number=node["number"],
        title=node.get("title") or "",
        state="closed" if node.get("state") == "CLOSED" else "open",
        state_reason=reason.lower() if isinstance(reason, str) else None,
        assignees=tuple(a["login"] for a in (node.get("assignees") or {}).get("nodes") or [] if a),
        labels=tuple(str(n["name"]) for n in (node.get("labels") or {}).get("nodes") or [] if n),
        blocked_by=numbers(node.get("blockedBy")),
        parent=int(parent["number"]) if parent.get("number") is not None else None,
        database_id=int(database_id) if database_id is not None else None,  # a BigInt, sent as a string
    )


def sub_issues(node: dict[str, Any]) -> tuple[int, ...]:
    return numbers(node.get("subIssues"))


def label_events(number: int, node: dict[str, Any]) -> list[LabelEvent]:
    """The label events of an issue's timeline, oldest first, with a Bot's login as REST spells it."""
    found = []
    for event in (node.get("timelineItems") or {}).get("nodes") or []:
        kind = (event or {}).get("__typename")
        if kind not in ("LabeledEvent", "UnlabeledEvent") or not (event.get("label") or {}).get("name"):
            continue
        found.append(
            LabelEvent(
                issue=number,
                label=event["label"]["name"],
                action="labeled" if kind == "LabeledEvent" else "unlabeled",
                actor=login_of(event.get("actor"))[0],
                created_at=event["createdAt"],
            )
        )
    return found


def repository_labels(repo: dict[str, Any]) -> tuple[RepositoryLabel, ...]:
    nodes = (repo.get("stateLabels") or {}).get("nodes") or []
    return tuple(
        RepositoryLabel(name=n["name"], color=n.get("color") or "ededed", description=n.get("description"))
        for n in nodes
        if n
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
                # A null editor of an edited comment is a deleted account: `ghost`, who is not perfbot.
                editor=login_of(node.get("editor"))[0] if node.get("lastEditedAt") is not None else None,
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


def fork_pull(node: dict[str, Any], branch: str) -> PullRequest:
    """An open PR from a fork's branch that has perfbot's branch name (its repository may be gone)."""
    fork = (node.get("headRepository") or {}).get("nameWithOwner") or "a deleted fork"
    return PullRequest(
        number=int(node["number"]), head=branch, head_repository=str(fork), title=node.get("title") or ""
    )


def dashboard_issue(node: dict[str, Any]) -> Issue:
    """An issue read for the dashboard: its state, author, body and labels."""
    return Issue(
        number=int(node["number"]),
        title=node.get("title") or "",
        state="closed" if node.get("state") == "CLOSED" else "open",
        user=login_of(node.get("author"))[0],
        body=node.get("body") or "",
        labels=tuple(str(n["name"]) for n in (node.get("labels") or {}).get("nodes") or [] if n),
    )
