"""Run perfbot against either adapter: offline over a state file, or live over the GitHub double.

Both read and write the same state file, so a test written against one runs against the other:
`Offline` opens `OfflineGitHub` on it; `Live` starts a `GitHubDouble` on it (the default branch's
files are the sandbox's) and opens the live adapter over the double's in-process transport, with
a fake clock, so retries and write spacing cost no real time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from unittest import mock

import httpx

from bot.config import Settings
from bot.context import RunContext
from bot.github.live import adapter
from bot.github.live.adapter import Hooks, open_live
from bot.github.offline import OfflineGitHub
from bot.github.port import GitHubPort
from bot.reconcile import gather
from tests.github_double import DEFAULT_TOKEN, GitHubDouble
from tests.github_double.server import serve

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
API_URL = "https://api.github.com"


@dataclass
class FakeClock:
    """A monotonic clock that moves only when perfbot waits; every wait is recorded."""

    now: float = 0.0
    waits: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def double_on(path: Path, repo_dir: Path, now: dt.datetime = NOW) -> GitHubDouble:
    return GitHubDouble(state_path=path, repo_dir=repo_dir, clock=lambda: now)


def live_environ(repository: str) -> dict[str, str]:
    return {"GITHUB_TOKEN": DEFAULT_TOKEN, "GITHUB_REPOSITORY": repository, "GITHUB_API_URL": API_URL}


@contextmanager
def cli_over(double: GitHubDouble, clock: FakeClock | None = None) -> Iterator[FakeClock]:
    """`perfbot` runs inside this block talk to `double` (the CLI builds its own live port)."""
    clock = clock or FakeClock()
    hooks = Hooks(wait=clock.wait, monotonic=clock.monotonic, transport=double.transport())
    with mock.patch.object(adapter, "DEFAULT_HOOKS", hooks):
        yield clock


@contextmanager
def wired(double: GitHubDouble, clock: FakeClock, through: str, repository: str) -> Iterator[dict[str, str]]:
    """`perfbot` runs inside this block talk to `double` `through` its in-process transport or
    loopback HTTP (a server started for the block), waiting on `clock`; the environment to run with."""
    environ = live_environ(repository)
    if through == "transport":
        with cli_over(double, clock):
            yield environ
        return
    server = serve(double, 0)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    double.api_url = url
    # Plain HTTP on loopback: no certificate is ever checked, and a verifying transport would load
    # the machine's whole CA bundle (about 60 ms of CPU) for every block.
    hooks = Hooks(wait=clock.wait, monotonic=clock.monotonic, transport=httpx.HTTPTransport(verify=False))
    try:
        with mock.patch.object(adapter, "DEFAULT_HOOKS", hooks):
            yield environ | {"GITHUB_API_URL": url}
    finally:
        server.shutdown()
        server.server_close()


class Backend(Protocol):
    name: str

    def open(self, settings: Settings, path: Path, now: dt.datetime = NOW) -> AbstractContextManager[GitHubPort]: ...


class Offline:
    name = "offline"

    def open(self, settings: Settings, path: Path, now: dt.datetime = NOW) -> AbstractContextManager[GitHubPort]:
        return self._open(path, now)

    @contextmanager
    def _open(self, path: Path, now: dt.datetime) -> Iterator[GitHubPort]:
        """As a run opens it: writes journalled, folded into the state file when the run ends."""
        github = OfflineGitHub.open(path, now, journal=True)
        yield github
        github.fold()


class Live:
    """The live adapter over a double started on the state file; requests are kept in `log`."""

    name = "live"

    def __init__(self, lag: int = 0) -> None:
        """`lag`: lists lag by that many reads, and each run starts not seeing the bot's comments
        and the open PR in them (as a run right after another may not)."""
        self.clock = FakeClock()
        self.log: list[dict[str, Any]] = []
        self.lag = lag

    def open(self, settings: Settings, path: Path, now: dt.datetime = NOW) -> AbstractContextManager[GitHubPort]:
        return self._open(settings, path, now)

    @contextmanager
    def _open(self, settings: Settings, path: Path, now: dt.datetime) -> Iterator[GitHubPort]:
        double = double_on(path, settings.root, now)
        if self.lag:
            double.lag(comments=self.lag, pulls=self.lag)
            double.world.lag.hide_present(double.world.raw, double.world.bot_login)
        hooks = Hooks(wait=self.clock.wait, monotonic=self.clock.monotonic, transport=double.transport())
        context = RunContext(token=DEFAULT_TOKEN, repository=double.world.repository, api_url=API_URL)
        scope = gather.read_scope(settings, gather.snapshot(settings))
        try:
            with open_live(context, scope, now, hooks) as port:
                yield port
        finally:
            self.log += double.requests


def backend(name: str) -> Backend:
    """`offline`, `live`, or `live-lagging` (the live adapter over a double whose lists lag one read)."""
    if name == "live-lagging":
        return Live(lag=1)
    return Live() if name == "live" else Offline()
