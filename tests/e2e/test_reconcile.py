"""Offline reconcile on the shipped config: the issue's scenarios, end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.boundary.test_dos_conformance import Workspace
from tests.support.harness import Repo, comments, packet, pull

SEED_DAY = "2026-08-27T12:00:00Z"
HOLDER = "issue-9420-cache-weight-residency"


def test_seed_readback_derives_every_recorded_state(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY)
    assert len(plan["packets"]) == 17
    for p in plan["packets"]:
        assert p["derived_state"] == p["recorded_state"], p["id"]
        assert p["derived_owner"] == p["recorded_owner"], p["id"]
        assert p["reasons"], p["id"]
    assert comments(plan) == []
    assert pull(plan)["operation"] == "none"
    assert plan["leases"] == {
        "file": str(sandbox.root / "config" / "leases.json"),
        "format": "live-array",
        "live": 2,
        "stale": [],
        "warnings": [],
    }


def test_released_leases_make_the_gate_ready(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dos").mkdir()
    ws = Workspace(tmp_path / "dos", monkeypatch, capsys)
    for lane in ("model", "compute"):
        ws.dos("acquire", "--lane", lane, "--owner", HOLDER)
    held = sandbox.reconcile(capsys, "--now", SEED_DAY, "--leases", str(ws.journal), dry_run=True)
    assert packet(held, "cuda.q8_1-numerical-gate")["derived_state"] == "waiting-coordination"
    assert packet(held, "cuda.cache-weight-residency")["derived_state"] == "running"
    for lane in ("model", "compute"):
        ws.dos("release", "--lane", lane, "--owner", HOLDER)

    plan = sandbox.reconcile(capsys, "--now", SEED_DAY, "--leases", str(ws.journal))
    gate = packet(plan, "cuda.q8_1-numerical-gate")
    assert (gate["derived_state"], gate["cleared_blockers"]) == ("ready", ["cuda.cache-weight-residency"])
    residency = packet(plan, "cuda.cache-weight-residency")
    assert residency["derived_state"] == "ready"
    assert residency["derived_owner"] == "anthony-chaudhary"
    said = [c for c in comments(plan) if c["topic"] != "native-links"]
    assert [(c["issue"], c["topic"]) for c in said] == [(9420, "lease-lost"), (8635, "packet-ready")]
    assert "- blocker `cuda.cache-weight-residency` no longer holds an overlapping lease\n" in said[1]["body"]
    assert "model lease" not in said[1]["body"]  # internal/model/** never overlapped the gate's paths
    assert f"released: `compute lease of {HOLDER} on internal/compute/**`" in said[1]["body"]
    assert said[1]["body"].startswith("<!-- perfbot:packet-ready cuda.q8_1-numerical-gate:")
    files = pull(plan)["files"]
    assert pull(plan)["operation"] == "create"
    snapshot = files["config/snapshot.yaml"]
    assert "blocked_by_ids" not in snapshot.split("id: cuda.q8_1-numerical-gate")[1].split("  - id:")[0]
    assert "| `ready`<br>Owner: unassigned<br>Lane: `compute` | — |" in files["docs/current-constraints.md"]
    assert "state `waiting-coordination` → `ready`" in pull(plan)["body"]

    again = sandbox.reconcile(capsys, "--now", SEED_DAY, "--leases", str(ws.journal))
    assert comments(again) == []
    assert pull(again)["operation"] == "none"


def test_review_nudges_once_per_review_date(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    first = sandbox.reconcile(capsys, "--now", "2026-08-29")
    assert sorted((c["issue"], c["topic"]) for c in comments(first)) == [
        (8324, "review-overdue"),
        (9420, "review-overdue"),
    ]
    assert "`active-native-lane-collision`" in next(c["body"] for c in comments(first) if c["issue"] == 9420)
    assert comments(sandbox.reconcile(capsys, "--now", "2026-08-29")) == []
    later = sandbox.reconcile(capsys, "--now", "2026-09-02")
    assert sorted(c["issue"] for c in comments(later)) == [8635, 9420, 9495]
    assert all(c["topic"] == "review-overdue" for c in comments(later))
    assert pull(later)["operation"] == "none"


def test_completed_m1_readies_its_dependents(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.edit_snapshot(
        "    issue: 8325\n    program_order: 1\n    state: ready\n",
        "    issue: 8325\n    related_issues: [9482]\n    program_order: 1\n    state: complete\n",
    )
    sandbox.edit_snapshot(
        "    exit_when: The landed no-copy mechanism",
        "    result: Exact campaign accepted with zero fallback.\n    exit_when: The landed no-copy mechanism",
    )
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY)
    said = sorted((c["issue"], c["topic"]) for c in comments(plan))
    assert said == [(9230, "packet-ready"), (9495, "packet-ready")]
    # m1's three blocked-by links go, so the records of both programs that had them are edited too.
    edits = [a for a in plan["actions"] if a["kind"] == "edit_comment"]
    assert sorted((a["issue"], a["topic"]) for a in edits) == [(8922, "native-links"), (9430, "native-links")]
    assert all("because `mac.m1-streamed-q4k-no-copy` is complete" in a["body"] for a in edits)
    files = pull(plan)["files"]
    snapshot = files["config/snapshot.yaml"]
    for dependent in ("mac.m2-whole-sequence-prefill", "mac.m5-exact-p32t64-receipt", "profile.real-metal"):
        block = snapshot.split(f"  - id: {dependent}\n")[1].split("  - id:")[0]
        assert "satisfied_dependency_ids: [mac.m1-streamed-q4k-no-copy]" in block, dependent
        assert "hard_dependency_ids: [mac.m1-streamed" not in block, dependent
    page = files["docs/current-constraints.md"]
    assert "| Satisfied: `mac.m1-streamed-q4k-no-copy` |" in page
    assert "<br>#8325/#9482 |" in page
    assert packet(plan, "mac.m2-whole-sequence-prefill")["derived_state"] == "ready"


def test_closing_an_open_packets_issue_is_pointed_out_once(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.set_issue(8325, state="closed")
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY)
    (said,) = comments(plan)
    assert (said["issue"], said["topic"]) == (8325, "issue-mismatch")
    assert "`mac.m1-streamed-q4k-no-copy`" in said["body"]
    assert pull(plan)["operation"] == "none"
    assert all(p["derived_state"] == p["recorded_state"] for p in plan["packets"])
    assert comments(sandbox.reconcile(capsys, "--now", SEED_DAY)) == []


def test_reopened_issue_of_a_complete_packet(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.edit_snapshot(
        "    state: ready\n    owner: unassigned\n    lane: hardware+docs\n",
        "    state: complete\n    owner: unassigned\n    lane: hardware+docs\n    result: done\n",
    )
    sandbox.set_issue(8325, state_reason="reopened")
    topics = [(c["issue"], c["topic"]) for c in comments(sandbox.reconcile(capsys, "--now", SEED_DAY))]
    assert (8325, "issue-mismatch") in topics


def test_a_pasted_marker_from_someone_else_does_not_count(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    key = "active-native-lane-collision:2026-08-28"
    forged = {
        "id": 1,
        "issue": 9420,
        "user": "mallory",
        "created_at": "2026-08-28T00:00:00Z",
        "body": f"<!-- perfbot:review-overdue {key} -->",
    }
    sandbox.edit_state(comments=[forged])
    plan = sandbox.reconcile(capsys, "--now", "2026-08-29", dry_run=True)
    assert (9420, "review-overdue") in [(c["issue"], c["topic"]) for c in comments(plan)]


def test_dry_run_writes_nothing_and_prints_a_readable_plan(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    before = sandbox.state_path.read_bytes()
    args = [
        "reconcile",
        "--config",
        str(sandbox.config),
        "--offline",
        str(sandbox.state_path),
        "--now",
        "2026-08-29",
        "--dry-run",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "dry run: nothing written" in out
    assert "comment on #9420 (review-overdue)" in out
    assert "no pull request: the default branch's snapshot and page are current" in out
    assert sandbox.state_path.read_bytes() == before


def test_merging_the_pr_then_running_again_is_quiet(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.set_issue(9420, assignees=[])
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY)
    assert pull(plan)["operation"] == "create"
    assert packet(plan, "cuda.cache-weight-residency")["derived_owner"] == "unassigned / live DOS lease"
    sandbox.merge(plan)
    after = sandbox.reconcile(capsys, "--now", SEED_DAY)
    assert pull(after)["operation"] == "none"
    assert comments(after) == []


def test_pr_is_closed_when_the_difference_disappears(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.set_issue(9497, assignees=["alice"])
    sandbox.reconcile(capsys, "--now", SEED_DAY)
    (opened,) = sandbox.state()["pulls"]
    sandbox.set_issue(9497, assignees=[])
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY)
    assert (pull(plan)["operation"], pull(plan)["number"]) == ("close", opened["number"])
    assert sandbox.state()["pulls"][0]["state"] == "closed"


def test_foreign_commits_on_the_branch_are_never_overwritten(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.set_issue(9497, assignees=["alice"])
    sandbox.edit_state(
        pulls=[{"number": 77, "state": "open", "head": "perfbot/update", "files": {}, "foreign_commits": True}]
    )
    action = pull(sandbox.reconcile(capsys, "--now", SEED_DAY))
    assert (action["operation"], action["number"]) == ("none", 77)
    assert "commits perfbot did not make" in action["note"]


def test_write_budget_defers_the_rest_to_the_next_run(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    before = len(sandbox.state()["comments"])  # perfbot's records of its links
    plan = sandbox.reconcile(capsys, "--now", "2026-09-02", "--max-writes", "2")
    assert len(sandbox.state()["comments"]) == before + 2
    assert [d["reason"] for d in plan["deferred"]] == [plan["deferred"][0]["reason"]] * 3
    sandbox.reconcile(capsys, "--now", "2026-09-02", "--max-writes", "2")
    assert len(sandbox.state()["comments"]) == before + 4
    sandbox.reconcile(capsys, "--now", "2026-09-02")
    final = sandbox.state()["comments"][before:]
    assert len(final) == 5
    assert len({c["body"] for c in final}) == 5


def test_plan_json_contract(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    plan = sandbox.reconcile(capsys, "--now", "2026-08-29", dry_run=True)
    assert set(plan) >= {"actions", "packets", "now", "leases"}
    comment = comments(plan)[0]
    assert set(comment) == {"kind", "issue", "topic", "body"}
    assert set(pull(plan)) >= {"kind", "operation", "branch", "title", "body", "files"}
    assert set(plan["packets"][0]) >= {"id", "recorded_state", "derived_state", "reasons"}
    json.dumps(plan)


def test_each_release_of_a_blocking_lease_is_a_new_ready_episode(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = sandbox.root / "lane-journal.jsonl"
    lines: list[str] = []

    def append(op: str, loop_ts: str) -> None:
        lease = {"lane": "docs", "loop_ts": loop_ts, "holder": "issue-777-docs-sweep", "tree": ["docs/**"]}
        lines.append(json.dumps({"op": op, "lane": "docs", "loop_ts": loop_ts, "lease": lease}))
        journal.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def step() -> list[tuple[int, str]]:
        plan = sandbox.reconcile(capsys, "--now", SEED_DAY, "--leases", str(journal))
        if pull(plan)["operation"] in ("create", "update"):
            sandbox.merge(plan)
        return [(c["issue"], c["topic"]) for c in comments(plan) if c["issue"] == 8325]

    append("ACQUIRE", "t1")
    assert step() == []  # M1 now waits on the foreign docs lease
    append("RELEASE", "t1")
    assert step() == [(8325, "packet-ready")]
    assert step() == []
    append("ACQUIRE", "t2")
    assert step() == []
    append("RELEASE", "t2")
    assert step() == [(8325, "packet-ready")]  # a second episode is announced too


def test_the_printed_plan_names_an_open_pr_as_a_person_would(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    sandbox.set_issue(9420, assignees=[])
    sandbox.reconcile(capsys, "--now", SEED_DAY)  # opens the PR
    args = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", SEED_DAY]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    (number,) = [p["number"] for p in sandbox.state()["pulls"] if p["state"] == "open"]
    assert f"pull request #{number} from perfbot/update: left as it is" in out
    assert "none #" not in out


def test_the_printed_plan_says_what_happens_to_the_pr_and_prints_an_answer_line_by_line(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #25 (words): the PR as a person says it (open, close, left), and the help table a
    `/perf help` is answered with on its own lines, not flattened onto one."""
    from bot.cli import main

    sandbox.add_comment(101, 9230, "bob", "/perf help")
    sandbox.set_issue(9420, assignees=[])
    args = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", SEED_DAY]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "  open a pull request from perfbot/update: config/snapshot.yaml, docs/current-constraints.md\n" in out
    assert "  comment 101 line 1 on #9230 by bob: accepted\n      Commands (one per line," in out
    assert "\n      | `/perf help` | reply with this table | anyone |\n" in out
    assert "| command | effect | who | |---|" not in out
    sandbox.reconcile(capsys, "--now", SEED_DAY)  # opens the PR
    (number,) = [p["number"] for p in sandbox.state()["pulls"] if p["state"] == "open"]
    sandbox.set_issue(9420, assignees=["anthony-chaudhary"])  # what the PR recorded is undone
    assert main([*args, "--dry-run"]) == 0
    closing = f"  close pull request #{number} from perfbot/update: the default branch is current\n"
    assert closing in capsys.readouterr().out
