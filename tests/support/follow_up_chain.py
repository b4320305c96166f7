"""A chain of follow-up runs on the GitHub double, as the workflow runs it, on a simulated clock.

The first run is started by hand (`workflow_dispatch`); each `perfbot-follow-up` dispatch a run
sends starts the next: the workflow's wait step sleeps until the dispatch's `next_at` (at most an
hour), the run starts `start_seconds` later (a hosted runner, the cached install), and perfbot
runs in process against the double with the double's secondary content limits on. The clock
moves only when something waits, so the chain's simulated wall time is what the limits and the
pacing cost, not this machine's speed. Runs are one at a time, as the writer's concurrency group
makes them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.cli import main as perfbot
from tests.github_double import GitHubDouble
from tests.support.backends import FakeClock, cli_over, live_environ

T0 = dt.datetime(2026, 8, 27, 17, tzinfo=dt.UTC)
# The workflow's wait step: at most an hour (`.github/workflows/perfbot.yml`).
WAIT_CAP = 3600.0


def least_seconds(requests: int, per_minute: int = 80, per_hour: int = 500) -> float:
    """The shortest span GitHub's documented limits allow for `requests` content-creating requests
    in sliding windows: the i-th and the (i + per_hour)-th are an hour apart, the i-th and the
    (i + per_minute)-th a minute apart."""
    if requests <= 1:
        return 0.0
    hours, rest = divmod(requests - 1, per_hour)
    return 3600.0 * hours + 60.0 * (rest // per_minute)


@dataclass
class Chain:
    """The runs of one chain, and what the double saw."""

    root: Path
    double: GitHubDouble
    budget: int = 50
    start_seconds: float = 30.0
    clock: FakeClock = field(default_factory=FakeClock)
    runs: int = 0
    plans: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def wall(self) -> dt.datetime:
        return T0 + dt.timedelta(seconds=self.clock.now)

    def run(self, event_name: str, payload: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any] | None:
        """One run; the dispatch it sent, if any."""
        self.clock.now += self.start_seconds
        event = self.root / f"event-{self.runs}.json"
        event.write_text(json.dumps(payload), encoding="utf-8")
        sent = len(self.double.world.records("dispatches"))
        argv = ["reconcile", "--config", str(self.root / "config" / "perfbot.yaml"), "--json"]
        argv += ["--now", self.wall().isoformat(), "--max-writes", str(self.budget)]
        argv += ["--cache", str(self.root / "observed.json"), *(["--dry-run"] if dry_run else [])]
        environ = live_environ(self.double.world.repository) | {
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event),
        }
        out, err = io.StringIO(), io.StringIO()
        with cli_over(self.double, self.clock), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = perfbot(argv, environ=environ)
        if status != 0:
            raise AssertionError(f"run {self.runs + 1} exited {status}: {err.getvalue()}")
        self.runs += 0 if dry_run else 1
        self.errors.append(err.getvalue())
        self.plans.append(json.loads(out.getvalue()))
        dispatches = self.double.world.records("dispatches")[sent:]
        assert len(dispatches) <= 1, dispatches
        return dispatches[0] if dispatches else None

    def settle(self, first: dict[str, Any] | None = None, most: int = 500) -> None:
        """Start the chain by hand (or with the follow-up `first`), and run each follow-up it asks for."""
        asked = first or {}
        if first is None:
            dispatch = self.run("workflow_dispatch", {"inputs": {"dry-run": False}})
        else:
            dispatch = self.follow(asked)
        while dispatch is not None:
            assert self.runs < most, "the chain did not end"
            dispatch = self.follow(dispatch)

    def follow(self, dispatch: dict[str, Any]) -> dict[str, Any] | None:
        """The workflow's wait step, then the follow-up run."""
        carried = dispatch["client_payload"]
        next_at = dt.datetime.fromisoformat(carried["next_at"]) if "next_at" in carried else self.wall()
        self.clock.now += min(max((next_at - self.wall()).total_seconds(), 0.0), WAIT_CAP)
        payload = {"action": dispatch["event_type"], "client_payload": carried, "sender": {"login": "x", "type": "Bot"}}
        return self.run("repository_dispatch", payload)


def writes_planned(plan: dict[str, Any]) -> int:
    return sum(1 for a in plan["actions"] if a["kind"] != "pull_request" or a["operation"] != "none")


def on_the_double(root: Path, state: dict[str, Any], clock: FakeClock) -> GitHubDouble:
    """The double over `state` in memory, its clock the chain's, with GitHub's content limits on."""
    double = GitHubDouble(state, repo_dir=root, clock=lambda: T0 + dt.timedelta(seconds=clock.now))
    double.content.on = True
    return double
