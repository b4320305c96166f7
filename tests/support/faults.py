"""Fault decorators over any GitHub port: crash after write k, or fail write k with a GitHub error.

They wrap the port, not an adapter's internals, so the same crash and fault tests run against the
offline adapter and the live one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from bot.github.actions import (
    Action,
    AssignAction,
    CommentAction,
    CreateIssueAction,
    CreateLabelAction,
    EditCommentAction,
    EditIssueAction,
    LabelAction,
    LinkAction,
    PullRequestAction,
    ReactAction,
)
from bot.github.observed import Observed
from bot.github.port import GitHubError, GitHubPort, MarkerRereader, WriteAnnouncer

T = TypeVar("T")


class Crash(Exception):
    """The process stopped: no report, no further code of the run."""


class Forwarding:
    """A port that passes every call on to `port`, each write through `_write`, which a subclass
    wraps: `Faulty` counts and breaks writes, a stale reader changes only what `observe` returns."""

    def __init__(self, port: GitHubPort) -> None:
        self.port = port

    def observe(self) -> Observed:
        return self.port.observe()

    def requests(self) -> dict[str, int]:
        return self.port.requests()

    def before_writes(self, actions: Sequence[Action]) -> None:
        if isinstance(self.port, WriteAnnouncer):
            self.port.before_writes(actions)

    def headers_now(self, issue: int) -> list[frozenset[tuple[str, str]]]:
        """A read, passed on: the marker headers the port re-reads before a comment (none if it cannot)."""
        return self.port.headers_now(issue) if isinstance(self.port, MarkerRereader) else []

    def _write(self, call: Callable[[], T]) -> T:
        return call()

    def comment(self, action: CommentAction) -> int:
        return self._write(lambda: self.port.comment(action))

    def edit_comment(self, action: EditCommentAction) -> None:
        self._write(lambda: self.port.edit_comment(action))

    def react(self, action: ReactAction) -> None:
        self._write(lambda: self.port.react(action))

    def assign(self, action: AssignAction) -> None:
        self._write(lambda: self.port.assign(action))

    def pull_request(self, action: PullRequestAction) -> int | None:
        return self._write(lambda: self.port.pull_request(action))

    def label(self, action: LabelAction) -> None:
        self._write(lambda: self.port.label(action))

    def create_label(self, action: CreateLabelAction) -> None:
        self._write(lambda: self.port.create_label(action))

    def link(self, action: LinkAction) -> None:
        self._write(lambda: self.port.link(action))

    def create_issue(self, action: CreateIssueAction) -> int:
        return self._write(lambda: self.port.create_issue(action))

    def edit_issue(self, action: EditIssueAction) -> None:
        self._write(lambda: self.port.edit_issue(action))


class Faulty(Forwarding):
    """A port that counts the writes it passes on, and crashes or fails at a chosen one;
    `before_write` is called as each write is about to start (where a crash would stop the run)."""

    def __init__(
        self,
        port: GitHubPort,
        *,
        crash_after: int | None = None,
        fail_at: int | None = None,
        before_write: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(port)
        self.crash_after = crash_after
        self.fail_at = fail_at
        self.before_write = before_write
        self.writes = 0

    def _write(self, call: Callable[[], T]) -> T:
        if self.before_write is not None:
            self.before_write()
        if self.crash_after is not None and self.writes >= self.crash_after:
            raise Crash
        if self.fail_at is not None and self.writes == self.fail_at:
            raise GitHubError(f"injected failure of write {self.writes + 1}")
        result = call()
        self.writes += 1
        return result
