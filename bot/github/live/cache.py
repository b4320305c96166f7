"""The observation cache: what the last read saw of each tracked issue, so the next run's one
GraphQL query reads only the issues GitHub says changed since (`filterBy.since`).

GitHub stays the source of truth; the cache is only an optimisation. It is used only when its
format, repository, bot login and the fields read all match, and when its watermark (GitHub's own
time of the read that produced it, from the HTTP `Date` header) is less than `MAX_AGE` away from
the run's clock. Anything else (absent, unreadable, corrupt, foreign, old) is a full read, with a
warning in the log when the file was there: a cache never fails a run.

Why the margin: an issue is asked for when its `updatedAt` is at or after `watermark - MARGIN`.
GitHub's `Date` is cut to the second, its servers' clocks are not one clock, and a write
acknowledged just before the last read may reach the replica that answered it just after; ten
minutes is two orders of magnitude above those, and costs only re-reading the issues changed in
the ten minutes before the previous run.

What `updatedAt` may not reflect (GitHub does not document what moves it; comments, issue edits,
state, assignee and label changes are relied on), and how it is covered:
- the bot's own writes (its reactions above all, and links): every issue a run writes to is
  marked stale in the cache *before* the write, so a crash after any write still re-reads it;
- others' changes GitHub may not date on the issue (an edited or deleted comment, a renamed
  account, a link made from the other side): `MAX_AGE`, so a scheduled run reads everything
  again at least daily. See docs/reference.md, "Observation cache".
"""

from __future__ import annotations

import datetime as dt
import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, assert_never

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from bot.errors import BotError, InputError
from bot.files import read_text, write_atomic
from bot.github import actions as planned
from bot.github.observed import Comment, Issue, LabelEvent, Reaction
from bot.issue_refs import GitHubIssueRef, IssueKey, in_repository, number_of, repository_of
from bot.json_input import parse_object
from bot.untrusted import log_safe, neutral

FORMAT: Literal[2] = 2
MARGIN = dt.timedelta(minutes=10)
MAX_AGE = dt.timedelta(days=1)
MAX_BYTES = 64 * 1024 * 1024


class _Strict(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


class CachedIssue(_Strict):
    """One issue as the reader mapped it, with GitHub's `updatedAt` when it was read."""

    issue: Issue
    updated_at: AwareDatetime
    comments: tuple[Comment, ...] = ()
    reactions: tuple[Reaction, ...] = ()  # the bot's own, on this issue's comments
    label_events: tuple[LabelEvent, ...] = ()
    sub_issues: tuple[GitHubIssueRef, ...] = ()
    # Its comments a run read and found to hold no command, each with the fingerprint of the text
    # read (`fingerprint`): not read again while it is the same. Their text is not kept: 150
    # comments of 64 KiB would make every run load and write 10 MB for nothing.
    commandless: dict[int, str] = {}
    # perfbot's comments on it that no list had shown yet: the next run reads each by its id.
    written: tuple[Comment, ...] = ()
    # The run wrote to this issue (or was about to): the next run reads it again, whatever its date.
    stale: bool = False


class CachedPull(_Strict):
    """A PR's paths read over several pages, good while its head commit and file count are the same."""

    head: str
    changed_files: int
    paths: tuple[str, ...]


class ObservationCache(_Strict):
    format: Literal[2]
    repository: str
    bot_login: str
    # Which optional fields the reads carried (labels, links): a cache of other fields is not used.
    reads: str
    # GitHub's time of the first GraphQL answer of the read that produced this cache.
    watermark: AwareDatetime
    issues: dict[int, CachedIssue]
    # Pull requests' paths that took more than one page to read, by PR number (`observe.PullReads`).
    pulls: dict[int, CachedPull] = {}
    # Other repositories' issues (the snapshot's `owner/repo#N`), by repository, then number.
    elsewhere: dict[str, dict[int, CachedIssue]] = Field(default={}, exclude_if=lambda value: not value)

    def table(self, repository: str | None) -> dict[int, CachedIssue]:
        """The entries of the bot's own repository (None), or of another one."""
        if repository is None:
            return self.issues
        return next((v for k, v in self.elsewhere.items() if k.casefold() == repository.casefold()), {})

    def every(self) -> list[CachedIssue]:
        return [*self.issues.values(), *(entry for table in self.elsewhere.values() for entry in table.values())]

    def with_table(self, repository: str | None, table: dict[int, CachedIssue]) -> ObservationCache:
        if repository is None:
            return self.model_copy(update={"issues": table})
        kept = {k: v for k, v in self.elsewhere.items() if k.casefold() != repository.casefold()}
        return self.model_copy(update={"elsewhere": kept | {repository: table}})

    def repositories(self) -> list[str | None]:
        return [None, *self.elsewhere]


@dataclass(frozen=True)
class Expected:
    """What a cache must match to be used (its login and fields are checked after the first query,
    which learns the login from the token and may find GitHub refuses the link fields)."""

    repository: str
    bot_login: str | None  # when the config pins it
    now: dt.datetime


def fingerprint(comment: Comment) -> str:
    """What identifies the text a comment was read with: its digest, and whether GitHub showed it edited."""
    return hashlib.sha256(f"{int(comment.edited)}:{comment.body}".encode(errors="replace")).hexdigest()


def without_text(comments: Sequence[Comment], commandless: Mapping[int, str]) -> tuple[Comment, ...]:
    """`comments` as the cache keeps them: those known to hold no command without their text."""
    return tuple(c.model_copy(update={"body": ""}) if c.id in commandless else c for c in comments)


def warn(message: str) -> None:
    """A line in the run's log (stderr): a cache problem is never the run's error, only a full read."""
    sys.stderr.write(log_safe(f"warning: {neutral(message, 300)}") + "\n")


def load(path: Path, expected: Expected) -> ObservationCache | None:
    """The cache at `path` when it can be used, else None (a warning unless the file is absent).
    It is read as every JSON input is (`files.read_text`, `json_input`: bounded size, depth and
    integers, duplicate keys refused), since a restored cache is a file like any other."""
    if not path.exists():
        return None
    reason = ""
    try:
        cache = ObservationCache.model_validate(parse_object(read_text(path, MAX_BYTES), str(path), "the cache"))
        reason = _mismatch(cache, expected)
    except InputError as exc:
        problem = exc.problems[0]
        where = f" at {problem.line}:{problem.col}" if problem.line > 0 else ""
        reason = f"unreadable{where} ({problem.message})"
    except ValidationError as exc:
        reason = f"unreadable ({str(exc).splitlines()[0]})"
    if reason:
        warn(f"observation cache {path}: {reason}; reading every issue")
        return None
    return cache


def _mismatch(cache: ObservationCache, expected: Expected) -> str:
    if cache.repository.lower() != expected.repository.lower():
        return f"made for {cache.repository}"
    if expected.bot_login is not None and cache.bot_login != expected.bot_login:
        return f"made as {cache.bot_login}"
    if abs(expected.now - cache.watermark) > MAX_AGE:
        return f"its read at {cache.watermark.isoformat()} is more than {MAX_AGE} away"
    return ""


def written_issues(action: planned.Action) -> tuple[IssueKey, ...]:
    """The issues a write changes, whose next read must not come from the cache: a link changes
    both ends; a new label and the PR change no tracked issue's observed fields."""
    if isinstance(action, planned.LinkAction):
        return (action.issue, action.target)
    if isinstance(
        action,
        planned.CommentAction
        | planned.EditCommentAction
        | planned.ReactAction
        | planned.AssignAction
        | planned.LabelAction,
    ):
        return (action.issue,)
    if isinstance(action, planned.CreateLabelAction | planned.PullRequestAction | planned.CreateIssueAction):
        return ()
    if isinstance(action, planned.EditIssueAction):
        return (action.issue,)
    assert_never(action)  # a new kind of write says which issues it changes, or mypy fails


@dataclass
class Keeper:
    """Writes the cache after the read, and again, before each write to an issue not yet marked,
    with that issue marked stale: the file on disk never claims to know what a write changed."""

    path: Path | None
    cache: ObservationCache | None = None
    marked: set[IssueKey] = field(default_factory=set)

    def keep(self, cache: ObservationCache | None) -> None:
        """The cache of this run's read; None (no server time to date it) removes the old one."""
        self.cache = cache
        if cache is None:
            self._drop()
        else:
            self._save()

    def wrote(self, comment: Comment) -> None:
        """Record a comment perfbot posted, which a list may not show for a while."""
        if self.cache is None:
            return
        where, number = repository_of(comment.issue), number_of(comment.issue)
        table = self.cache.table(where)
        entry = table.get(number)
        if entry is None:
            return
        entry = entry.model_copy(update={"written": (*entry.written, comment), "stale": True})
        self.cache = self.cache.with_table(where, table | {number: entry})
        self._save()

    def remember(self, comments: Sequence[int]) -> None:
        """Record the comments the run read and found to hold no command (one save, when any is new)."""
        ids, cache = set(comments), self.cache
        if cache is None or not ids:
            return
        renewed = cache
        for where in cache.repositories():
            table = {}
            for number, entry in cache.table(where).items():
                found = {c.id: fingerprint(c) for c in entry.comments if c.id in ids and c.id not in entry.commandless}
                known = entry.commandless | found
                table[number] = entry.model_copy(
                    update={"commandless": known, "comments": without_text(entry.comments, known)}
                )
            renewed = renewed.with_table(where, table)
        if renewed != cache:
            self.cache = renewed
            self._save()

    def touch_for(self, *actions: planned.Action) -> None:
        """Mark stale every issue `actions` write to (one save for all those not marked yet)."""
        self.touch(*(number for action in actions for number in written_issues(action)))

    def touch(self, *numbers: IssueKey) -> None:
        fresh = set(numbers) - self.marked
        if self.cache is None or not fresh:
            return
        self.marked |= fresh
        for where in self.cache.repositories():
            table = {
                n: entry.model_copy(update={"stale": True}) if in_repository(where, n) in fresh else entry
                for n, entry in self.cache.table(where).items()
            }
            self.cache = self.cache.with_table(where, table)
        self._save()

    def _save(self) -> None:
        if self.path is None or self.cache is None:
            return
        try:
            write_atomic(self.path, self.cache.model_dump_json() + "\n")
        except BotError as exc:
            # A cache that cannot be written only costs the next run a full read: never stop a run.
            warn(f"observation cache: {exc}; the next run reads every issue")
            self._drop()

    def _drop(self) -> None:
        """No file rather than one that is behind this run's writes."""
        if self.path is not None:
            try:
                self.path.unlink(missing_ok=True)
            except OSError as exc:
                warn(f"observation cache {self.path}: cannot remove it ({exc.strerror or exc})")
        self.path = None
