"""A PR that merges itself (issue #45): `pull_request.merge: auto`, through the CLI, on the GitHub
double (which models GitHub's merge state, its merge endpoint and its native auto-merge, see
`tests/github_double/merging.py`) and offline (the state's `merge_rules`).

The run that opens the PR merges it when GitHub allows that now; turns on GitHub's auto-merge when
the default branch requires checks and the repository allows auto-merge (GitHub merges it once
they pass); and says in one line why neither is allowed otherwise. The next run decides on the
merged default branch, so the window between a command and the merged record is one run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from bot.cli import main
from tests.github_double import GitHubDouble
from tests.support.backends import NOW, FakeClock, double_on, wired
from tests.support.harness import Repo

REPO = "anthony-chaudhary/fak"
M1 = "mac.m1-streamed-q4k-no-copy"
COMPLETE = f"/perf complete {M1} result: kept. receipt: #9482"


class Runs:
    """`perfbot reconcile --json` runs on the sandbox, live against a fresh double or offline."""

    def __init__(self, sandbox: Repo, capsys: pytest.CaptureFixture[str], live: bool) -> None:
        self.sandbox, self.capsys, self.live = sandbox, capsys, live
        text = sandbox.config.read_text(encoding="utf-8")
        assert "pull_request:\n" in text
        sandbox.config.write_text(
            text.replace("pull_request:\n", "pull_request:\n  merge: auto\n", 1), encoding="utf-8"
        )
        sandbox.edit_state(permissions={"alice": "write"})
        sandbox.add_comment(101, 8325, "alice", COMPLETE)
        self.clock = FakeClock()
        self.log = ""

    def run(self, fault: Callable[[GitHubDouble], object] | None = None) -> dict[str, Any]:
        argv = ["reconcile", "--config", str(self.sandbox.config), "--now", NOW.isoformat(), "--json"]
        if self.live:
            double = double_on(self.sandbox.state_path, self.sandbox.root)
            if fault is not None:
                fault(double)
            with wired(double, self.clock, "transport", REPO) as environ:
                assert main(argv, environ=environ) == 0
        else:
            assert main([*argv, "--offline", str(self.sandbox.state_path)]) == 0
        captured = self.capsys.readouterr()
        self.log = captured.err
        plan: dict[str, Any] = json.loads(captured.out)
        return plan

    def pull(self, number: int) -> dict[str, Any]:
        found: dict[str, Any] = next(p for p in self.sandbox.state()["pulls"] if p["number"] == number)
        return found


@pytest.fixture(params=["live", "offline"])
def runs(request: pytest.FixtureRequest, sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Runs:
    return Runs(sandbox, capsys, live=request.param == "live")


def rules(runs: Runs, **given: Any) -> None:
    runs.sandbox.edit_state(merge_rules=given)


def test_the_run_that_opens_the_pr_merges_it_when_github_allows_it_now(runs: Runs) -> None:
    plan = runs.run()
    merged = plan["merge"]
    assert (merged["status"], merged["method"]) == ("merged", "MERGE")
    assert runs.pull(merged["pull"])["state"] == "merged"
    assert f"merged PR #{merged['pull']} (a merge commit)" in runs.log
    if runs.live:  # the default branch holds the merge: the next run decides on it, and has nothing to propose
        after = runs.run()
        assert after["decided_on"]["oid"]
        assert next(p for p in after["packets"] if p["id"] == M1)["derived_state"] == "complete"
        assert next(a for a in after["actions"] if a["kind"] == "pull_request")["operation"] == "none"
        assert "merge" not in after


def test_required_checks_turn_on_githubs_auto_merge_and_github_merges_when_they_pass(runs: Runs) -> None:
    rules(runs, auto_merge_allowed=True, requires_checks=True, methods=["SQUASH"])
    plan = runs.run()
    armed = plan["merge"]
    assert (armed["status"], armed["method"]) == ("auto-merge", "SQUASH"), armed
    assert runs.pull(armed["pull"])["state"] == "open"
    assert runs.pull(armed["pull"])["auto_merge"] == "SQUASH"
    assert "GitHub merges it when its required checks pass" in runs.log
    if runs.live:
        double = double_on(runs.sandbox.state_path, runs.sandbox.root)
        double.checks_pass(armed["pull"])  # a person re-ran them, or an App's token started them
        assert runs.pull(armed["pull"])["state"] == "merged"


def test_neither_allowed_is_one_line_and_the_pr_stays_open(runs: Runs) -> None:
    rules(runs, auto_merge_allowed=False, requires_checks=True)
    plan = runs.run()
    refused = plan["merge"]
    assert refused["status"] == "not-merged"
    assert "does not allow auto-merge (Settings → General → Pull Requests → Allow auto-merge)" in refused["line"]
    assert runs.pull(refused["pull"])["state"] == "open"
    assert [line for line in runs.log.splitlines() if "not merged" in line] == [
        f"PR #{refused['pull']} not merged: {refused['line']}"
    ]


def test_manual_is_the_default_and_merges_nothing(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 8325, "alice", COMPLETE)
    plan = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert "merge" not in plan
    assert next(a for a in plan["actions"] if a["kind"] == "pull_request").get("merge", "manual") == "manual"
    assert all(p["state"] == "open" for p in sandbox.state()["pulls"])


def test_a_merge_state_github_is_still_computing_is_read_again(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = Runs(sandbox, capsys, live=True)

    def computing(double: GitHubDouble) -> None:
        double.world.unknown_merge_reads = 2

    plan = runs.run(fault=computing)
    assert plan["merge"]["status"] == "merged"
    # Two pauses, growing, between the three reads (besides the pacing of writes).
    paused = [w for w in runs.clock.waits if w in (2.0, 4.0)]
    assert paused == [2.0, 4.0]
