"""The GitHub port: what a run reads and writes, and through what.

**Port.** The GitHub port: one read of everything a run decides on, the writes a run makes, and
their error.

Two adapters provide it: `offline` (a JSON state file standing in for GitHub) and `live`
(githubkit, under `github/live/`). The CLI picks one in `github/connect.py`; nothing else knows
which one it talks to, so every exactly-once and crash test can run against both.

**Read scope.** What a live run reads: the issues, the files and the branch the repository's config
names.

The live adapter reads GitHub through this, so it knows nothing of snapshots or commands: the
two questions that need them (which issues a snapshot names, whose permission to ask) are
functions handed in by the gather step.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol, runtime_checkable

from bot.errors import BotError
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
    MergeOutcome,
    PullRequestAction,
    ReactAction,
)
from bot.github.branch_file import BranchFile
from bot.github.observed import Observed
from bot.issue_refs import IssueKey


class GitHubError(BotError):
    """GitHub (or its stand-in) refused or failed a request; the message says which and what to do."""


class AmbiguousWriteError(GitHubError):
    """A write whose outcome is unknown (the response was lost): the run makes no further writes.

    The next run's read finds what landed (markers, reactions, the PR branch) and finishes the rest.
    """


class NativeRefused(GitHubError):
    """GitHub refused a label or link write for good (no permission, an older GitHub Enterprise
    Server without the endpoint, a link it does not allow): the run says so and goes on."""


class GitHubReader(Protocol):
    def observe(self) -> Observed:
        """Everything a run decides on, read before anything is decided."""
        ...

    def requests(self) -> dict[str, int]:
        """Requests made so far, by kind (`graphql`, `rest_read`, `rest_write`); empty offline."""
        ...


class GitHubWriter(Protocol):
    """The writes perfbot makes. Each is keyed (markers, reactions, the PR branch), so a rerun
    that plans afresh never repeats one that landed."""

    def comment(self, action: CommentAction) -> int: ...
    def edit_comment(self, action: EditCommentAction) -> None:
        """Replace the body of one of the bot's own comments (repeatable: the same body is one edit)."""
        ...

    def react(self, action: ReactAction) -> None: ...
    def assign(self, action: AssignAction) -> None: ...
    def pull_request(self, action: PullRequestAction) -> int | None:
        """Create, update or close the regeneration PR; its number when the adapter knows it."""
        ...

    def label(self, action: LabelAction) -> None:
        """Add or remove a label on an issue (repeatable: adding a present label changes nothing)."""
        ...

    def create_label(self, action: CreateLabelAction) -> None:
        """Create a repository label; one that exists already counts as created."""
        ...

    def link(self, action: LinkAction) -> None:
        """Add or remove a native blocked-by or sub-issue link (repeatable)."""
        ...

    def create_issue(self, action: CreateIssueAction) -> int:
        """Open an issue (the dashboard) with its labels; its number. Not repeatable."""
        ...

    def edit_issue(self, action: EditIssueAction) -> None:
        """Replace an issue's body (the dashboard's; repeatable)."""
        ...


@runtime_checkable
class MarkerRereader(Protocol):
    """An optional capability: re-read, just before a comment, the markers the bot has on an issue now.

    A run plans from what it read at the start; another run (outside the workflow's single
    writer concurrency group) may have written since. The executor asks an adapter that has
    this capability before each comment and stops writing when the comment was already made.
    """

    def headers_now(self, issue: IssueKey) -> list[frozenset[tuple[str, str]]]:
        """The markers, (topic, key), in the header of each of the bot's own comments on `issue` as
        of now, oldest comment first."""
        ...


@runtime_checkable
class WriteAnnouncer(Protocol):
    """An optional capability: told once, before a run's first write, every write the run may make.

    The live adapter marks each issue those writes touch stale in its observation cache in one
    save, rather than saving the whole cache again before the first write to each issue."""

    def before_writes(self, actions: Sequence[Action]) -> None: ...


@runtime_checkable
class ReadMemory(Protocol):
    """An optional capability: remembers the comments a run read and found to hold no command, so
    the next run does not read them again while their text is unchanged (`Observed.commandless`).
    The live adapter keeps them in its observation cache; the offline state file stands for GitHub
    and keeps nothing of perfbot's."""

    def remember_commandless(self, comments: Sequence[int]) -> None: ...


@runtime_checkable
class PullHeadTeller(Protocol):
    """An optional capability: the commit at the head of the PR branch after the last `pull_request`
    write, when it created or updated the PR (None after a close); the action's `pull-request-head-sha`."""

    def pull_head(self) -> str | None: ...


@runtime_checkable
class PullMerger(Protocol):
    """An optional capability (`pull_request.merge: auto`): merge the PR just written, or turn on
    GitHub's auto-merge for it, as GitHub's rules allow (`bot.github.actions`); what was done."""

    def merge_pull(self, number: int) -> MergeOutcome: ...


class GitHubPort(GitHubReader, GitHubWriter, Protocol):
    """A whole adapter: the reader and the writer over one repository."""


class ReadbackPublisher(Protocol):
    """Where `perfbot publish-leases` reads and writes the published lease readback."""

    def published(self, where: BranchFile) -> str | None:
        """The file's text on its branch; None when the branch or the file does not exist."""
        ...

    def publish(self, where: BranchFile, text: str, message: str) -> str:
        """Commit `text` at `where` on top of its branch (a new branch starts with no history);
        the commit's id ("" offline). Nothing moves when the branch moved since it was read."""
        ...

    def requests(self) -> dict[str, int]:
        """Requests made so far, by kind; empty offline."""
        ...


@runtime_checkable
class LabelBatcher(Protocol):
    """An optional capability: add several labels to one issue in one request (GitHub's "Add labels
    to an issue" takes a list of names); repeatable, as one label's write is."""

    def add_labels(self, actions: Sequence[LabelAction]) -> None: ...


@runtime_checkable
class PacedWriter(Protocol):
    """An optional capability: an adapter that paces its writes within GitHub's secondary limits
    says whether the next write keeps the run's pacing waits within its bound, and what a
    follow-up run goes on from: the times of the last hour's content-creating requests, and when
    the next may go."""

    def write_fits(self) -> bool: ...
    def pace(self) -> tuple[list[dt.datetime], dt.datetime] | None: ...


@runtime_checkable
class LeaseDispatcher(Protocol):
    """An optional capability of a publisher or a writer: start the repository's workflows that
    listen for `repository_dispatch` of `event_type` (GitHub starts them from the default branch,
    whatever the token; a push made with GITHUB_TOKEN starts none): after a lease commit, and
    for a follow-up run that makes the writes a run's budget left."""

    def dispatch(self, event_type: str, payload: dict[str, str]) -> None: ...


class Author(NamedTuple):
    """A command's author, and the repository whose permission decides it: that of the issue the
    command is on (its name case folded), None for the bot's own."""

    repository: str | None
    login: str


class ReadScope(NamedTuple):
    # The issues the local snapshot names (numbers here, `owner/repo#N` elsewhere): read in the first query.
    issues: frozenset[IssueKey]
    # The files the regeneration PR writes, snapshot first then page: read at the default
    # branch's tip and at the PR branch's head.
    files: tuple[str, ...]
    # The regeneration PR's branch; the PR's files are read at its head.
    branch: str
    # The issue numbers a snapshot's text names: a tip whose snapshot names others is read again.
    issues_in: Callable[[str], frozenset[IssueKey]]
    # Authors of commands not answered yet: the only people whose permission is asked (each in
    # the repository of the issue the command is on).
    pending_authors: Callable[[Observed], frozenset[Author]]
    # The bot's login when the config pins it; else it is learnt from the token.
    bot_login: str | None = None
    # Files read at the tip only (the lease readback, when the run uses the config's).
    tip_only: tuple[str, ...] = ()
    # The regeneration commit's message.
    commit_message: str = "perfbot: update the snapshot and page"
    # Files read on other branches (the published lease readback, when the run reads one).
    branch_files: tuple[BranchFile, ...] = ()
    # perfbot's state labels start with this: the repository's such labels and every issue's label
    # events are read too. Empty when state labels are off.
    label_prefix: str = ""
    # perfbot's state labels by name: each is read exactly (`label(name:)`), whatever else the
    # repository's labels hold.
    label_names: tuple[str, ...] = ()
    # Whether native links (blocked by, parent, sub-issues) are read.
    links: bool = False
    # The dashboard issue's label when the dashboard is on: the issues carrying it are read (never cached).
    dashboard_label: str = ""
    # Whether the repository's open pull requests are read as leases (with their changed paths and
    # closing references), and its recently closed ones as released leases.
    pull_leases: bool = False
    # The observation cache of a live run (`--cache`): issues unchanged since it are not read again.
    cache: Path | None = None
    # Issues read whatever the cache says: the issue of the comment that started the run (GitHub
    # does not say that a comment's edit moves its issue's `updatedAt`).
    fresh: frozenset[int] = frozenset()

    @property
    def snapshot_file(self) -> str:
        return self.files[0]

    @property
    def tip_files(self) -> tuple[str, ...]:
        return (*self.files, *self.tip_only)
