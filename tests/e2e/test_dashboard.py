"""The dashboard issue against the GitHub double, through the CLI (issue #29): the first run opens
it, a run that changes nothing writes nothing to it, a lease release edits it once, an issue
deleted by hand comes back once, one closed by a person is left alone and the plan says so.

Every run starts a fresh double on the sandbox's state file (as a new job meets GitHub), so the
requests counted are that run's own; each exchange is held to GitHub's OpenAPI description by
the suite's autouse fixture.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.github_double import GitHubDouble
from tests.support.backends import NOW, FakeClock, double_on, wired
from tests.support.harness import Repo

REPO = "anthony-chaudhary/fak"
LABEL = "perfbot-dashboard"
MARKER = "<!-- perfbot:dashboard board -->"
DASHBOARD_WRITE = re.compile(rf"^(POST /repos/{REPO}/(issues|labels)|PATCH /repos/{REPO}/issues/\d+) \d+$")
# Opening it: its label made sure of (201 made, 422 there already), then the issue.
OPENED = [f"POST /repos/{REPO}/labels 201", f"POST /repos/{REPO}/issues 201"]
REOPENED = [f"POST /repos/{REPO}/labels 422", f"POST /repos/{REPO}/issues 201"]


class Runs:
    """`perfbot reconcile` runs against the double over its in-process transport."""

    def __init__(self, sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
        self.sandbox, self.capsys = sandbox, capsys
        text = sandbox.config.read_text(encoding="utf-8")
        assert "dashboard:\n  enabled: false" in text  # off in the seed config
        sandbox.config.write_text(text.replace("dashboard:\n  enabled: false", "dashboard:\n  enabled: true"))

    def run(
        self,
        *args: str,
        command: str = "reconcile",
        as_json: bool = True,
        fault: Callable[[GitHubDouble], object] | None = None,
        status: int = 0,
    ) -> tuple[dict[str, Any] | str, list[str]]:
        """The plan JSON (or what the command printed) and the dashboard writes made; `fault` is
        injected into the double first, and the run must exit with `status`."""
        double = double_on(self.sandbox.state_path, self.sandbox.root)
        if fault is not None:
            fault(double)
        argv = [command, "--config", str(self.sandbox.config), "--now", NOW.isoformat(), *args]
        as_json = as_json and command == "reconcile"
        if as_json:
            argv.append("--json")
        with wired(double, FakeClock(), "transport", REPO) as environ:
            assert main(argv, environ=environ) == status
        out = self.capsys.readouterr().out
        made = (f"{r['method']} {r['path']} {r['status']}" for r in double.requests)
        writes = [w for w in made if DASHBOARD_WRITE.match(w)]
        return (json.loads(out) if as_json and out.strip() else out), writes

    def dashboards(self) -> list[dict[str, Any]]:
        return [i for i in self.sandbox.state()["issues"] if LABEL in i.get("labels", [])]


@pytest.fixture
def runs(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Runs:
    return Runs(sandbox, capsys)


def test_the_first_run_opens_it_and_a_run_that_changes_nothing_writes_nothing(runs: Runs) -> None:
    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == OPENED
    (board,) = runs.dashboards()
    assert plan["dashboard"] == {"status": "created", "issue": None, "chars": len(board["body"])}
    assert board["body"].startswith(MARKER + "\n")
    assert board["user"] == "perfbot[bot]"
    assert board["state"] == "open"
    assert "- #8325 `mac.m1-streamed-q4k-no-copy` · lane `hardware+docs` · claim: `/perf claim" in board["body"]

    again, writes = runs.run()
    assert isinstance(again, dict)
    assert writes == []
    assert again["dashboard"]["status"] == "unchanged"
    assert again["dashboard"]["issue"] == board["number"]
    assert runs.dashboards() == [board]


def test_a_lease_release_edits_it_once(runs: Runs) -> None:
    """The release is one edit; the regeneration PR the run opens (to record the states the evidence
    moved) is named by its number in that same edit, and the next run writes nothing."""
    runs.run()
    (before,) = runs.dashboards()
    (runs.sandbox.root / "config" / "leases.json").write_text("[]\n", encoding="utf-8")

    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == [f"PATCH /repos/{REPO}/issues/{before['number']} 200"]
    assert plan["dashboard"]["status"] == "edited"
    (pull,) = [p for p in runs.sandbox.state()["pulls"] if p.get("state", "open") == "open"]
    (after,) = runs.dashboards()
    assert "`cuda.q8_1-numerical-gate`" in after["body"].split("### Running")[0]  # ready now
    assert "Nothing is running." in after["body"]
    waiting = after["body"].split("### Waiting for merge")[1].split("###")[0]
    assert f"#{pull['number']} brings recorded states up to date" in waiting
    assert "this run opens" not in after["body"]
    assert "perfbot:pull" not in after["body"]
    assert "- #8635 `cuda.q8_1-numerical-gate` recorded `waiting-coordination` → `ready`" in waiting

    _, writes = runs.run()
    assert writes == []


def test_a_dashboard_deleted_by_hand_comes_back_once(runs: Runs) -> None:
    runs.run()
    (first,) = runs.dashboards()
    state = runs.sandbox.state()
    state["issues"] = [i for i in state["issues"] if i["number"] != first["number"]]
    runs.sandbox.write_state(state)

    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == REOPENED
    assert plan["dashboard"]["status"] == "created"
    (second,) = runs.dashboards()  # GitHub would number it anew; the state file reuses the free number
    assert second["body"].startswith(MARKER + "\n")
    assert second["state"] == "open"

    _, writes = runs.run()
    assert writes == []
    assert runs.dashboards() == [second]


def test_an_opening_whose_answer_was_lost_is_found_by_the_next_run_and_not_made_again(runs: Runs) -> None:
    """Opening is not repeatable: the run stops at the lost answer, and the next finds what landed."""

    def lose(double: GitHubDouble) -> None:
        double.faults.lost_response("POST", rf"/repos/{REPO}/issues")

    _, writes = runs.run(fault=lose, status=1)
    assert writes == [OPENED[0], f"POST /repos/{REPO}/issues 502"]
    (landed,) = runs.dashboards()
    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == []
    assert plan["dashboard"]["status"] == "unchanged"
    assert runs.dashboards() == [landed]


def test_a_closed_dashboard_is_left_alone_and_the_plan_says_so(runs: Runs) -> None:
    runs.run()
    (board,) = runs.dashboards()
    runs.sandbox.set_issue(board["number"], state="closed")
    (runs.sandbox.root / "config" / "leases.json").write_text("[]\n", encoding="utf-8")

    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == []
    assert plan["dashboard"]["status"] == "closed"
    printed, writes = runs.run(as_json=False)
    assert writes == []
    assert f"Dashboard: #{board['number']} was closed by a person: left alone" in str(printed)
    assert runs.dashboards()[0]["body"] == board["body"]


def test_an_issue_with_the_marker_that_perfbot_did_not_open_is_not_its_dashboard(runs: Runs) -> None:
    """A person can paste the marker and the label: only the bot's own login opens a dashboard."""
    state = runs.sandbox.state()
    forged = {"number": 7001, "title": "forged", "labels": [LABEL], "user": "mallory", "body": MARKER + "\nmine"}
    state["issues"].append(forged)
    runs.sandbox.write_state(state)

    plan, writes = runs.run()
    assert isinstance(plan, dict)
    assert writes == OPENED
    assert plan["dashboard"]["status"] == "created"
    assert next(i for i in runs.sandbox.state()["issues"] if i["number"] == 7001)["body"] == MARKER + "\nmine"


def test_status_markdown_is_the_body_the_run_writes(runs: Runs) -> None:
    before, _ = runs.run("--format", "markdown", command="status")
    runs.run()
    (board,) = runs.dashboards()
    after, _ = runs.run("--format", "markdown", command="status")
    assert before == after == board["body"]


def test_the_job_summary_links_to_the_dashboard(runs: Runs, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    seen = []
    for _ in range(2):
        double = double_on(runs.sandbox.state_path, runs.sandbox.root)
        argv = ["reconcile", "--config", str(runs.sandbox.config), "--now", NOW.isoformat()]
        with wired(double, FakeClock(), "transport", REPO) as environ:
            assert main(argv, environ=environ | {"GITHUB_STEP_SUMMARY": str(summary)}) == 0
        runs.capsys.readouterr()
        seen.append(summary.read_text(encoding="utf-8"))
        summary.unlink()
    (board,) = runs.dashboards()
    link = f"[#{board['number']}](https://github.com/{REPO}/issues/{board['number']})"
    assert f"Dashboard: {link} (opened by this run)." in seen[0]
    assert f"Dashboard: {link} (unchanged)." in seen[1]


def test_a_heartbeat_is_no_change_but_a_lease_that_comes_back_to_life_is(runs: Runs) -> None:
    """The dashboard shows when a lease was taken and whether it is stale, never its last heartbeat:
    a heartbeat that makes a stale lease live again is one edit, the next heartbeat none."""
    leases = runs.sandbox.root / "config" / "leases.json"

    def beat(at: str) -> None:
        records = json.loads(leases.read_text(encoding="utf-8"))
        leases.write_text(json.dumps([r | {"heartbeat_at": at} for r in records]), encoding="utf-8")

    runs.run()
    (stale,) = runs.dashboards()
    assert "(stale, still counted)" in stale["body"].split("### Waiting")[0]
    beat("2026-08-27T22:50:00Z")
    _, writes = runs.run()
    assert writes == [f"PATCH /repos/{REPO}/issues/{stale['number']} 200"]
    (live,) = runs.dashboards()
    assert "held since 2026-08-27T16:24:05Z" in live["body"]
    assert "stale" not in live["body"].split("### Waiting")[0]
    beat("2026-08-27T22:55:00Z")
    _, writes = runs.run()
    assert writes == []


def test_a_command_pending_in_the_pr_is_shown_as_pending_with_the_pr(runs: Runs) -> None:
    """The run that opens the PR lists the command as pending in that PR, named by the number it got
    (the plan could not know it: the run puts it in before it writes the body); the next run writes
    nothing; the sections keep the merged state until the merge."""
    runs.sandbox.edit_state(permissions={"alice": "write"})
    runs.sandbox.add_comment(
        101, 8325, "alice", "/perf complete mac.m1-streamed-q4k-no-copy result: ok. receipt: #9482"
    )
    plan, _ = runs.run()
    (pull,) = [p for p in runs.sandbox.state()["pulls"] if p.get("state", "open") == "open"]
    (board,) = runs.dashboards()
    number = pull["number"]
    assert board["body"].startswith(f"{MARKER}\n**")
    assert f"waiting for merge in #{number}\n" in board["body"]
    pending = board["body"].split("### Waiting for merge")[1].split("###")[0]
    assert f"#{number} records these when it merges" in pending
    assert "- #8325 `mac.m1-streamed-q4k-no-copy` `ready` → `complete`" in pending
    assert "`alice` on #8325 (comment 101)" in pending
    assert f"`complete` when #{number} merges" in board["body"].split("\n### Waiting\n")[1]
    # The plan (written before the PR had a number) names it as the one this run opens.
    assert isinstance(plan, dict)
    (planned,) = [a for a in plan["actions"] if a["kind"] in ("create_issue", "edit_issue")]
    assert "<!-- perfbot:pull -->The regeneration PR this run opens<!-- /perfbot:pull -->" in planned["body"]
    # Finished work is not offered: the packet is waiting for the merge, not under *Ready now*.
    assert "`mac.m1-streamed-q4k-no-copy`" not in board["body"].split("### Running")[0]

    _, writes = runs.run()
    assert writes == []


def test_a_claimed_ready_packet_names_who_and_tells_nobody_else_to_claim_it(runs: Runs) -> None:
    state = runs.sandbox.state()
    state["permissions"]["alice"] = "write"
    runs.sandbox.write_state(state)
    runs.sandbox.add_comment(101, 9497, "alice", "/perf claim profile.real-cuda")
    for _ in range(2):  # the run that makes the claim, then one that reads the assignment from GitHub
        runs.run()
        (board,) = runs.dashboards()
        body = board["body"]
        assert "- #9497 `profile.real-cuda` · lane `hardware+docs` · claimed by `alice`\n" in body
        assert "/perf claim profile.real-cuda" not in body
        assert "- #8325 `mac.m1-streamed-q4k-no-copy` · lane `hardware+docs` · claim: `/perf claim" in body
    assert next(i for i in runs.sandbox.state()["issues"] if i["number"] == 9497)["assignees"] == ["alice"]
