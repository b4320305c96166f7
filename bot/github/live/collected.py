"""What a live read has found so far, issue by issue: from GraphQL nodes, or from the observation
cache for issues GitHub says did not change; and the cache entries that record it for next time."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.github.live import mapping
from bot.github.live.cache import FORMAT, CachedIssue, ObservationCache
from bot.github.live.query import PAGED_LINKS
from bot.github.observed import Comment, Issue, LabelEvent, Reaction


@dataclass
class Collected:
    issues: dict[int, Issue] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    reactions: list[Reaction] = field(default_factory=list)
    cursors: dict[int, str] = field(default_factory=dict)
    label_events: list[LabelEvent] = field(default_factory=list)
    # (parent, child) from each issue's sub-issues.
    children: list[tuple[int, int]] = field(default_factory=list)
    # GitHub's `updatedAt` of each issue, as read or as the cache recorded it.
    updated: dict[int, dt.datetime] = field(default_factory=dict)
    # (issue, link field) -> the cursor of its next page of links, while there is one.
    link_cursors: dict[tuple[int, str], str] = field(default_factory=dict)

    def node(self, node: dict[str, Any]) -> int | None:
        """Take an issue node (its first page of comments too); None when it was taken already
        (an issue both changed and asked for by number comes twice in one answer)."""
        found = mapping.issue(node)
        if found.number in self.issues:
            return None
        self.issues[found.number] = found
        self.label_events += mapping.label_events(found.number, node)
        self.children += [(found.number, child) for child in mapping.sub_issues(node)]
        self._link_cursors(found.number, node)
        stamp = node.get("updatedAt")
        if isinstance(stamp, str):
            self.updated[found.number] = dt.datetime.fromisoformat(stamp)
        return found.number

    def _link_cursors(self, number: int, node: dict[str, Any]) -> None:
        for name in PAGED_LINKS:
            cursor = mapping.next_cursor(node.get(name) or {})
            if cursor is None:
                self.link_cursors.pop((number, name), None)
            else:
                self.link_cursors[(number, name)] = cursor

    def links_page(self, number: int, name: str, page: dict[str, Any]) -> None:
        """A further page of an issue's blocked-by issues or sub-issues."""
        found = mapping.numbers(page)
        if name == "subIssues":
            self.children += [(number, child) for child in found]
        else:
            issue = self.issues[number]
            self.issues[number] = issue.model_copy(update={"blocked_by": (*issue.blocked_by, *found)})
        self._link_cursors(number, {name: page})

    def page(self, number: int, page: dict[str, Any], bot_login: str) -> None:
        comments, reactions = mapping.comments(number, page, bot_login)
        self.comments += comments
        self.reactions += reactions
        cursor = mapping.next_cursor(page)
        if cursor is None:
            self.cursors.pop(number, None)
        else:
            self.cursors[number] = cursor

    def restore(self, entry: CachedIssue) -> None:
        """An issue as the cache recorded it (GitHub reports no change since)."""
        number = entry.issue.number
        self.issues[number] = entry.issue
        self.comments += entry.comments
        self.reactions += entry.reactions
        self.label_events += entry.label_events
        self.children += [(number, child) for child in entry.sub_issues]
        self.updated[number] = entry.updated_at

    def entries(
        self, commandless: tuple[int, ...] = (), unlisted: Sequence[Comment] = ()
    ) -> dict[int, CachedIssue] | None:
        """Each issue found as a cache entry, with the comments known to hold no command; None when
        one came without `updatedAt`."""
        if not set(self.issues) <= set(self.updated):
            return None
        comments: dict[int, list[Comment]] = {}
        for comment in self.comments:
            comments.setdefault(comment.issue, []).append(comment)
        on_issue = {c.id: c.issue for c in self.comments}
        known = set(commandless)
        reactions: dict[int, list[Reaction]] = {}
        for reaction in self.reactions:
            if reaction.comment_id in on_issue:
                reactions.setdefault(on_issue[reaction.comment_id], []).append(reaction)
        return {
            n: CachedIssue(
                issue=issue,
                updated_at=self.updated[n],
                comments=tuple(sorted(comments.get(n, ()), key=lambda c: c.id)),
                reactions=tuple(reactions.get(n, ())),
                label_events=tuple(e for e in self.label_events if e.issue == n),
                sub_issues=tuple(child for parent, child in self.children if parent == n),
                commandless=tuple(c.id for c in comments.get(n, ()) if c.id in known),
                written=tuple(c for c in unlisted if c.issue == n),
            )
            for n, issue in sorted(self.issues.items())
        }

    def cache(
        self,
        repository: str,
        bot_login: str,
        reads: str,
        watermark: dt.datetime | None,
        commandless: tuple[int, ...] = (),
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
