"""The live GitHub port: one client per run, one read, then REST writes.

`open_live` is the only entry point (`github/connect.py` imports it lazily, so a run that never
talks to GitHub never loads githubkit). The clock, the wait and the transport are `Hooks`: real
ones by default, a fake clock and an in-process GitHub double in tests.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from bot.context import RunContext
from bot.github.actions import Action, CommentAction, MergeOutcome, PullRequestAction
from bot.github.live import cache, writes
from bot.github.live.client import LimitBudget, Pacer, RetryPolicy, Session, Traffic, build_client, connection
from bot.github.live.observe import BranchState, Reader
from bot.github.live.writes import DashboardWrites, IssueWrites, LiveMerger, NativeWrites, PullWriter
from bot.github.observed import Observed
from bot.github.port import GitHubError, ReadScope
from bot.issue_refs import IssueKey, sorted_issues


@dataclass(frozen=True)
class Hooks:
    wait: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    transport: httpx.BaseTransport | None = None


DEFAULT_HOOKS = Hooks()


class LiveGitHub(IssueWrites, NativeWrites, DashboardWrites):
    """The GitHub port over the REST and GraphQL APIs of one repository: the read here, the writes
    on issues, labels, links and the dashboard issue from their modules, the regeneration PR's through `PullWriter`."""

    def __init__(self, session: Session, scope: ReadScope) -> None:
        self.session, self.scope = session, scope
        self.branch: BranchState | None = None
        self.ids: dict[IssueKey, int] = {}
        self.keeper = cache.Keeper(scope.cache)
        self.bot_login = scope.bot_login or ""
        self.commenting: list[IssueKey] = []
        self.posted: dict[IssueKey, list[frozenset[tuple[str, str]]]] = {}
        self.head: str | None = None  # the PR branch's head after this run's create or update
        self.pull_api: dict[str, int] = {}

    def observe(self) -> Observed:
        session = self.session
        expected = cache.Expected(session.conn.repository, self.scope.bot_login, session.now)
        cached = cache.load(self.scope.cache, expected) if self.scope.cache else None
        reader = Reader(self.session, self.scope, cached)
        observed, self.branch = reader.observe()
        self.bot_login = observed.bot_login
        self.keeper.keep(reader.renewed())
        self.pull_api = reader.pull_reads.api() if self.scope.pull_leases else {}
        self.ids = {i.key: i.database_id for i in observed.issues if i.database_id is not None}
        return observed

    def remember_commandless(self, comments: Sequence[int]) -> None:
        self.keeper.remember(comments)

    def requests(self) -> dict[str, int]:
        return self.session.traffic.summary() | self.pull_api

    def before_writes(self, actions: Sequence[Action]) -> None:
        self.keeper.touch_for(*actions)
        self.commenting = sorted_issues({a.issue for a in actions if isinstance(a, CommentAction)})

    def pull_request(self, action: PullRequestAction) -> int | None:
        if self.branch is None:
            raise GitHubError("the PR is written only after the repository was read in the same run")
        number = PullWriter(self.session, self.branch, self.scope.branch, self.scope.commit_message).apply(action)
        self.head = self.branch.head if action.operation in ("create", "update") else None
        return number

    def pull_head(self) -> str | None:
        return self.head

    def write_fits(self) -> bool:
        pacer = self.session.traffic.pacer
        return pacer is None or pacer.fits()

    def pace(self) -> tuple[list[dt.datetime], dt.datetime] | None:
        pacer = self.session.traffic.pacer
        return None if pacer is None else (pacer.sent_at(), pacer.next_at())

    def dispatch(self, event_type: str, payload: dict[str, str]) -> None:
        writes.send(self.session, event_type, payload)

    def merge_pull(self, number: int) -> MergeOutcome:
        return LiveMerger(self.session).merge(number)


@contextmanager
def open_session(
    context: RunContext, now: dt.datetime, hooks: Hooks | None = None, sent: Sequence[dt.datetime] = ()
) -> Iterator[Session]:
    """One client for the run, open until the run ends (the hooks default to the real clock and
    network); content-creating requests are paced on from those earlier runs `sent`."""
    hooks = hooks or DEFAULT_HOOKS
    conn = connection(context.token, context.repository, context.api_url)
    pacer = Pacer.carried(now, hooks.monotonic, hooks.wait, sent)
    traffic = Traffic(hooks.monotonic, hooks.wait, pacer)
    retry = RetryPolicy(hooks.wait, LimitBudget())
    github = build_client(conn, traffic, retry, hooks.transport)
    with github:
        yield Session(github, conn, traffic, hooks.wait, now, retry)


@contextmanager
def open_live(
    context: RunContext,
    scope: ReadScope,
    now: dt.datetime,
    hooks: Hooks | None = None,
    sent: Sequence[dt.datetime] = (),
) -> Iterator[LiveGitHub]:
    with open_session(context, now, hooks, sent) as session:
        yield LiveGitHub(session, scope)
