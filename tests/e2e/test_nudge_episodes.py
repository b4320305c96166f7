"""Ready nudges rest on merged evidence, one per ready episode (#10 item 13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import Repo, comments, packet

NOW = "2026-08-27T23:00:00Z"
M1 = "mac.m1-streamed-q4k-no-copy"  # ready in the seed; M2 (#9230) and the Metal profile (#9495) wait for it
COMPLETE = f"/perf complete {M1} result: Exact campaign accepted. receipt: #9482"


@pytest.fixture
def repo(sandbox: Repo) -> Repo:
    sandbox.edit_state(permissions={"alice": "write", "root": "admin"})
    return sandbox


def ready_nudges(plan: dict[str, Any]) -> list[int]:
    return sorted(c["issue"] for c in comments(plan) if c["topic"] == "packet-ready")


def test_a_completion_still_in_the_pr_nudges_nobody_and_the_merge_does(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    proposed = repo.reconcile(capsys, "--now", NOW)
    assert packet(proposed, "mac.m2-whole-sequence-prefill")["derived_state"] == "ready"  # in the PR ...
    assert ready_nudges(proposed) == []  # ... but not on the default branch: nobody is told yet
    # Comment ids grow with time: each run's replies take the next ones.
    repo.add_comment(201, 8325, "root", "/perf drop all", at="2026-08-27T11:00:00Z")
    dropped = repo.reconcile(capsys, "--now", NOW)
    assert ready_nudges(dropped) == []
    repo.add_comment(301, 8325, "alice", COMPLETE, at="2026-08-27T12:00:00Z")
    again = repo.reconcile(capsys, "--now", NOW)
    assert ready_nudges(again) == []
    repo.merge(again)
    merged = repo.reconcile(capsys, "--now", NOW)
    assert ready_nudges(merged) == [9230, 9495]
    assert ready_nudges(repo.reconcile(capsys, "--now", NOW)) == []


def write_leases(path: Path, *trees: tuple[str, str]) -> None:
    leases = [
        {
            "acquired_at": "2026-08-27T22:50:00Z",
            "holder": holder,
            "host_id": "worker",
            "lane": "docs",
            "lane_kind": "",
            "loop_ts": "2026-08-27T22:50:00Z",
            "mode": "exclusive",
            "tree": [tree],
        }
        for holder, tree in trees
    ]
    path.write_text(json.dumps(leases), encoding="utf-8")


def test_ready_then_waiting_then_ready_again_is_told_each_time(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    leases = repo.root / "leases.json"

    def run() -> dict[str, Any]:
        return repo.reconcile(capsys, "--now", NOW, "--leases", str(leases))

    write_leases(leases, ("issue-1-docs", "docs/_witnesses/**"))  # someone else works on M1's paths
    taken = run()
    assert packet(taken, M1)["derived_state"] == "waiting-coordination"
    repo.merge(taken)
    for episode in range(2):
        write_leases(leases)  # released: ready from the lease readback, before any merge
        released = run()
        assert ready_nudges(released) == [8325, 9497], f"episode {episode}"  # both work in docs/_witnesses/
        repo.merge(released)
        assert ready_nudges(run()) == []  # the merge records the same episode: told once
        write_leases(leases, ("issue-1-docs", "docs/_witnesses/**"))
        repo.merge(run())  # waiting again, merged


def test_a_merged_change_from_running_to_ready_is_not_a_ready_nudge(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.set_issue(9420, assignees=[])  # the running packet's issue loses its assignee: ready, not waiting before
    plan = repo.reconcile(capsys, "--now", NOW)
    assert packet(plan, "cuda.cache-weight-residency")["derived_state"] == "ready"
    repo.merge(plan)
    assert ready_nudges(repo.reconcile(capsys, "--now", NOW)) == []
    assert "previous_state: running" in repo.snapshot_path.read_text(encoding="utf-8")


def test_an_issue_mismatch_rests_on_the_default_branch_and_the_pr_alike(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)  # the completion is in the PR, not merged
    repo.set_issue(8325, state="open", state_reason="reopened")
    reopened = repo.reconcile(capsys, "--now", NOW)
    assert [c["topic"] for c in comments(reopened)] == []  # not complete on the default branch yet
    repo.set_issue(8325, state="closed", state_reason=None)
    closed = repo.reconcile(capsys, "--now", NOW)
    assert [c["topic"] for c in comments(closed)] == []  # closed with its completion on the way
