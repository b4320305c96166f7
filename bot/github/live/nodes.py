"""GraphQL nodes as perfbot's observations, and what a read has collected from them.

**Mapping.** Issues, comments, the bot's own reactions, label events, links and the PR's commits,
from the nodes of `query.py`'s documents; an issue read in another repository is keyed
`owner/repo#N` (`Where`).

**Collected.** What a live read has found so far in one repository, issue by issue: from GraphQL
nodes, or from the observation cache for issues GitHub says did not change; and the cache entries
that record it for next time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.github.actions import RECORD_TRAILER
from bot.github.live import cache
from bot.github.live.cache import FORMAT, CachedIssue, ObservationCache
from bot.github.live.query import PAGED_LINKS
from bot.github.observed import (
    Comment,
    Issue,
    LabelEvent,
    OwnCommit,
    PullRequest,
    Reaction,
    RepositoryLabel,
    Unassignment,
)
from bot.issue_refs import ForeignIssue, IssueKey, in_repository, localised

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


@dataclass(frozen=True)
class Where:
    """Where issue nodes were read: the bot's own repository (`repository` None), or another one."""

    repository: str | None = None
    own: str = ""  # the bot's own repository, `owner/name`: a link to it is a plain number


HERE = Where()


def login_of(author: dict[str, Any] | None) -> tuple[str, str]:
    """(login, user type). GraphQL gives a Bot's login without the `[bot]` REST shows."""
    if not author:
        return GHOST, "User"
    login, kind = str(author.get("login") or GHOST), author.get("__typename")
    if kind == "Bot":
        return (login if login.endswith("[bot]") else f"{login}[bot]"), "Bot"
    return login, "Organization" if kind == "Organization" else "User"


def linked(node: dict[str, Any], here: Where) -> IssueKey:
    """A linked issue's key: in the repository its node names (read when the run reads other
    repositories), else in the repository of the issue it was read on."""
    repository = (node.get("repository") or {}).get("nameWithOwner")
    if isinstance(repository, str):
        return localised(ForeignIssue.of(repository, int(node["number"])), here.own)
    return in_repository(here.repository, int(node["number"]))


def numbers(connection: dict[str, Any] | None, here: Where | None = None) -> tuple[IssueKey, ...]:
    return tuple(linked(n, here or HERE) for n in (connection or {}).get("nodes") or [] if n)


def issue_of(node: dict[str, Any], here: Where | None = None) -> Issue:
    """An issue; its labels and links when the query read them (`IssueLabels`, `IssueLinks`)."""
    here = here or HERE
    reason = node.get("stateReason")
    parent = node.get("parent") or {}
    database_id = node.get("fullDatabaseId")
    return Issue(
        number=node["number"],
        repository=here.repository,
        title=node.get("title") or "",
        state="closed" if node.get("state") == "CLOSED" else "open",
        state_reason=reason.lower() if isinstance(reason, str) else None,
        assignees=tuple(a["login"] for a in (node.get("assignees") or {}).get("nodes") or [] if a),
        labels=tuple(str(n["name"]) for n in (node.get("labels") or {}).get("nodes") or [] if n),
        blocked_by=numbers(node.get("blockedBy"), here),
        parent=linked(parent, here) if parent.get("number") is not None else None,
        database_id=int(database_id) if database_id is not None else None,  # a BigInt, sent as a string
        unassigned=unassigned_of(node),
    )


def unassigned_of(node: dict[str, Any]) -> tuple[Unassignment, ...]:
    """The issue's latest `UnassignedEvent`s, oldest first; one whose assignee is gone is skipped."""
    found = []
    for event in (node.get("unassignedEvents") or {}).get("nodes") or []:
        if (event or {}).get("__typename") != "UnassignedEvent" or not (event.get("assignee") or {}).get("login"):
            continue
        login = login_of(event["assignee"])[0]
        found.append(Unassignment(login=login, actor=login_of(event.get("actor"))[0], created_at=event["createdAt"]))
    return tuple(found)


def sub_issues(node: dict[str, Any], here: Where | None = None) -> tuple[IssueKey, ...]:
    return numbers(node.get("subIssues"), here)


def label_events_of(number: IssueKey, node: dict[str, Any]) -> list[LabelEvent]:
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
    """The state labels the repository has, each read by its name (`stateLabel0`..; null when absent)."""
    nodes = [value for key, value in repo.items() if key.startswith("stateLabel") and key[10:].isdigit()]
    return tuple(
        RepositoryLabel(name=n["name"], color=n.get("color") or "ededed", description=n.get("description"))
        for n in nodes
        if isinstance(n, dict) and n.get("name")
    )


def comments_of(number: IssueKey, page: dict[str, Any], bot_login: str) -> tuple[list[Comment], list[Reaction]]:
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
    """Whether perfbot made the commit: GitHub signed it, as it signs a commit a bot makes through
    the API with no author, committer or signature of its own ("Signature verification for bots"),
    and its author is the bot (no user account; its name is its login). Anyone can write any
    author's name in a commit they push; GitHub signs a person's commit only as theirs."""
    commit = commit or {}
    author, signature = commit.get("author") or {}, commit.get("signature") or {}
    return (
        signature.get("isValid") is True
        and signature.get("wasSignedByGitHub") is True
        and author.get("user") is None
        and author.get("name") == bot_login
    )


def own_commit(head: dict[str, Any], bot_login: str) -> OwnCommit | None:
    """perfbot's newest commit among the first of the branch's history, with its message."""
    return _first_own((head.get("history") or {}).get("nodes") or [], bot_login)


def own_commit_of_ended(page: dict[str, Any] | None, bot_login: str) -> OwnCommit | None:
    """perfbot's newest commit in the newest merged or closed PR from its branch that has one: the
    branch may be deleted, or started again by a person, while the PR keeps its commits."""
    for pull in reversed((page or {}).get("nodes") or []):
        if not pull or pull.get("isCrossRepository"):
            continue
        commits = [n.get("commit") for n in reversed((pull.get("commits") or {}).get("nodes") or []) if n]
        found = _first_own(commits, bot_login)
        if found is not None:
            return found
    return None


def others_with_records(head: dict[str, Any], bot_login: str) -> tuple[OwnCommit, ...]:
    """The commits above perfbot's newest own one on its branch that it did not make and whose
    messages carry its record trailers (anyone can write any message): named, never counted."""
    found = []
    for node in (head.get("history") or {}).get("nodes") or []:
        if not node or made_by(node, bot_login):
            break
        if f"\n{RECORD_TRAILER}: " in str(node.get("message") or ""):
            found.append(OwnCommit(oid=str(node["oid"]), message=str(node["message"])))
    return tuple(found)


def ended_numbers(page: dict[str, Any] | None) -> list[int]:
    """The merged or closed PRs from perfbot's branch (not forks'), newest first."""
    nodes = [p for p in (page or {}).get("nodes") or [] if p and not p.get("isCrossRepository") and p.get("number")]
    return [int(p["number"]) for p in reversed(nodes)]


def own_commit_pushed_off(pull: dict[str, Any], bot_login: str) -> OwnCommit | None:
    """perfbot's newest commit among those the PR's newest force-pushes took off its branch (GitHub
    keeps each in the PR's `HeadRefForcePushedEvent`): a person's force-push cannot take its records."""
    for event in reversed((pull.get("forcePushes") or {}).get("nodes") or []):
        before = (event or {}).get("beforeCommit") or {}
        found = _first_own((before.get("history") or {}).get("nodes") or [], bot_login)
        if found is not None:
            return found
    return None


def _first_own(commits: list[dict[str, Any] | None], bot_login: str) -> OwnCommit | None:
    for node in commits:
        if node and made_by(node, bot_login):
            return OwnCommit(oid=str(node["oid"]), message=str(node.get("message") or ""))
    return None


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


@dataclass
class Collected:
    """What the read found in one repository, each issue by its number there."""

    here: Where = HERE
    issues: dict[int, Issue] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    reactions: list[Reaction] = field(default_factory=list)
    cursors: dict[int, str] = field(default_factory=dict)
    label_events: list[LabelEvent] = field(default_factory=list)
    # (parent, child) from each issue's sub-issues, as keys (`owner/repo#N` for other repositories).
    children: list[tuple[IssueKey, IssueKey]] = field(default_factory=list)
    # GitHub's `updatedAt` of each issue, as read or as the cache recorded it.
    updated: dict[int, dt.datetime] = field(default_factory=dict)
    # (issue, link field) -> the cursor of its next page of links, while there is one.
    link_cursors: dict[tuple[int, str], str] = field(default_factory=dict)
    # The comments restored from the cache: GitHub reports no change to their issue since.
    restored: set[int] = field(default_factory=set)

    def node(self, node: dict[str, Any]) -> int | None:
        """Take an issue node (its first page of comments too); None when it was taken already
        (an issue both changed and asked for by number comes twice in one answer)."""
        found = issue_of(node, self.here)
        if found.number in self.issues:
            return None
        self.issues[found.number] = found
        self.label_events += label_events_of(found.key, node)
        self.children += [(found.key, child) for child in sub_issues(node, self.here)]
        self._link_cursors(found.number, node)
        stamp = node.get("updatedAt")
        if isinstance(stamp, str):
            self.updated[found.number] = dt.datetime.fromisoformat(stamp)
        return found.number

    def take_node(self, node: dict[str, Any], bot_login: str) -> None:
        """An issue node and its first page of comments."""
        number = self.node(node)
        if number is not None:
            self.page(number, node.get("comments") or {}, bot_login)

    def _link_cursors(self, number: int, node: dict[str, Any]) -> None:
        for name in PAGED_LINKS:
            cursor = next_cursor(node.get(name) or {})
            if cursor is None:
                self.link_cursors.pop((number, name), None)
            else:
                self.link_cursors[(number, name)] = cursor

    def links_page(self, number: int, name: str, page: dict[str, Any]) -> None:
        """A further page of an issue's blocked-by issues or sub-issues."""
        found = numbers(page, self.here)
        if name == "subIssues":
            self.children += [(in_repository(self.here.repository, number), child) for child in found]
        else:
            issue = self.issues[number]
            self.issues[number] = issue.model_copy(update={"blocked_by": (*issue.blocked_by, *found)})
        self._link_cursors(number, {name: page})

    def page(self, number: int, page: dict[str, Any], bot_login: str) -> None:
        comments, reactions = comments_of(in_repository(self.here.repository, number), page, bot_login)
        self.comments += comments
        self.reactions += reactions
        cursor = next_cursor(page)
        if cursor is None:
            self.cursors.pop(number, None)
        else:
            self.cursors[number] = cursor

    def restore(self, entry: CachedIssue) -> None:
        """An issue as the cache recorded it (GitHub reports no change since)."""
        number = entry.issue.number
        self.issues[number] = entry.issue
        self.comments += entry.comments
        self.restored |= {c.id for c in entry.comments}
        self.reactions += entry.reactions
        self.label_events += entry.label_events
        self.children += [(entry.issue.key, child) for child in entry.sub_issues]
        self.updated[number] = entry.updated_at

    def entries(
        self, commandless: Mapping[int, str] | None = None, unlisted: Sequence[Comment] = ()
    ) -> dict[int, CachedIssue] | None:
        """Each issue found as a cache entry, with the comments known to hold no command; None when
        one came without `updatedAt`."""
        if not set(self.issues) <= set(self.updated):
            return None
        comments: dict[IssueKey, list[Comment]] = {}
        for comment in self.comments:
            comments.setdefault(comment.issue, []).append(comment)
        on_issue = {c.id: c.issue for c in self.comments}
        known = commandless or {}
        reactions: dict[IssueKey, list[Reaction]] = {}
        for reaction in self.reactions:
            if reaction.comment_id in on_issue:
                reactions.setdefault(on_issue[reaction.comment_id], []).append(reaction)
        return {
            n: CachedIssue(
                issue=issue,
                updated_at=self.updated[n],
                comments=cache.without_text(sorted(comments.get(key, ()), key=lambda c: c.id), known),
                reactions=tuple(reactions.get(key, ())),
                label_events=tuple(e for e in self.label_events if e.issue == key),
                sub_issues=tuple(child for parent, child in self.children if parent == key),
                commandless={c.id: known[c.id] for c in comments.get(key, ()) if c.id in known},
                written=tuple(c for c in unlisted if c.issue == key),
            )
            for n, issue in sorted(self.issues.items())
            for key in [in_repository(self.here.repository, n)]
        }

    def cache(
        self,
        repository: str,
        bot_login: str,
        reads: str,
        watermark: dt.datetime | None,
        commandless: Mapping[int, str] | None = None,
        unlisted: Sequence[Comment] = (),
    ) -> ObservationCache | None:
        """The observation cache of what was found (with perfbot's comments no list showed yet);
        None without a watermark or an issue's date."""
        entries = self.entries(commandless, unlisted)
        if watermark is None or entries is None:
            return None
        return ObservationCache(
            format=FORMAT, repository=repository, bot_login=bot_login, reads=reads, watermark=watermark, issues=entries
        )
