"""`perfbot status`: one screen of derived states, ready packets, overdue reviews, leases and the PR."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from bot.cli import main
from tests.support.harness import Repo

LATER = "2026-08-29T18:00:00Z"


def status(sandbox: Repo, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    argv = ["status", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", LATER, *args]
    assert main(argv) == 0
    return capsys.readouterr().out


def section(text: str, title: str) -> list[str]:
    lines = text.split(title + "\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return lines


def test_status_json_agrees_with_the_plan(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    plan = sandbox.reconcile(capsys, "--now", LATER, dry_run=True)
    data: dict[str, Any] = json.loads(status(sandbox, capsys, "--json"))
    derived = Counter(p["derived_state"] for p in plan["packets"])
    assert data["counts"] == {state: derived.get(state, 0) for state in data["counts"]}
    assert sum(data["counts"].values()) == 17
    assert [(p["id"], p["issue"]) for p in data["ready"]] == [
        (p["id"], p["issue"]) for p in plan["packets"] if p["derived_state"] == "ready"
    ]
    assert data["overdue"] == plan["overdue"]
    assert [o["constraint"] for o in data["overdue"]] == ["active-native-lane-collision", "metal-resident-decode"]
    assert [(x["lane"], x["issue"], x["stale"], x["age_minutes"]) for x in data["leases"]] == [
        ("model", 9420, True, 2 * 1440 + 95),
        ("compute", 9420, True, 2 * 1440 + 95),
    ]
    assert data["pull"] is None


def test_status_is_an_aligned_table(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    out = status(sandbox, capsys)
    assert out.startswith("perfbot status at 2026-08-29T18:00:00+00:00\n")
    states = section(out, "Packets by derived state (17):")
    assert states[0].split() == ["state", "packets"]
    assert "  waiting-dependency    11" in states
    assert len({line.index(line.split()[1]) for line in states}) == 1  # one column start
    ready = section(out, "Ready packets:")
    assert [line.split() for line in ready] == [
        ["packet", "issue", "owner"],
        ["mac.m1-streamed-q4k-no-copy", "#8325", "unassigned"],
        ["profile.real-cuda", "#9497", "unassigned"],
    ]
    assert len({line.index(line.split()[1]) for line in ready}) == 1
    overdue = section(out, "Overdue reviews:")
    assert overdue[1].split() == ["active-native-lane-collision", "2026-08-28", "#9420"]
    leases = section(out, "Live leases from " + str(sandbox.root / "config" / "leases.json") + ":")
    assert leases[1].split()[:4] == [
        "issue-9420-cache-weight-residency",
        "model",
        "internal/model/**",
        "2026-08-27T16:24:05Z",
    ]
    assert leases[1].endswith("2 days (stale, still counted)")
    assert out.endswith("Regeneration PR:\n  none open; this run would not open one\n")


def test_status_names_the_open_pr_and_what_a_run_would_do(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.edit_state(pulls=[{"number": 77, "state": "open", "head": "perfbot/update", "title": "perfbot: update"}])
    out = status(sandbox, capsys)
    assert out.endswith("Regeneration PR:\n  #77 perfbot: update (branch perfbot/update); this run would close it\n")
    sandbox.set_issue(9497, assignees=["bob"])
    assert "Ready packets:\n  packet  " in status(sandbox, capsys)
    data = json.loads(status(sandbox, capsys, "--json"))
    assert data["pull"] == {
        "number": 77,
        "title": "perfbot: update",
        "branch": "perfbot/update",
        "next_operation": "update",
    }
    assert ["profile.real-cuda", 9497, "bob"] in [[p["id"], p["issue"], p["owner"]] for p in data["ready"]]


def test_status_without_leases_or_reviews_says_none(
    sandbox: Repo, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "none.json"
    empty.write_text("[]", encoding="utf-8")
    argv = ["status", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main([*argv, "--now", "2026-08-27T12:00:00Z", "--leases", str(empty)]) == 0
    out = capsys.readouterr().out
    assert "Overdue reviews:\n  none\n" in out
    assert f"Live leases from {empty}:\n  none\n" in out
    assert out.endswith("none open; this run would open one\n")
