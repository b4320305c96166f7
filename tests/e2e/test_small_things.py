"""The small things a teammate notices (issue #45), each through the CLI on the seed, offline.

- `why` and `help` replies do not start with 🚀: nothing was applied;
- `why` on a complete packet lists no dependencies or leases as evidence;
- the dashboard's lease line does not read "2 live leases, 2 stale" as four;
- the dashboard's pending commands are Markdown, not literal backticks inside a code span.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.cli import main
from tests.support.harness import Repo

NOW = "2026-08-27T18:00:00Z"
M1, CUDA = "mac.m1-streamed-q4k-no-copy", "profile.real-cuda"
BOT = "perfbot[bot]"


def reply(repo: Repo, comment_id: int) -> str:
    marker = f"<!-- perfbot:command-reply {comment_id} -->"
    (found,) = [c["body"] for c in repo.state()["comments"] if c["user"] == BOT and marker in c["body"]]
    return str(found)


def reactions(repo: Repo, comment_id: int) -> list[str]:
    return sorted(r["content"] for r in repo.state().get("reactions", []) if r["comment_id"] == comment_id)


def test_answers_are_not_marked_applied(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.add_comment(101, 8325, "bob", f"/perf why {M1}\n/perf help")
    sandbox.reconcile(capsys, "--now", NOW)
    text = reply(sandbox, 101)
    assert f"💬 `/perf why {M1}`" in text
    assert "💬 `/perf help`" in text
    assert "🚀" not in text
    assert "rocket" not in reactions(sandbox, 101)


def test_why_on_a_complete_packet_names_no_evidence(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    # Completed by hand while #9420's lease still overlaps its paths: not its evidence any more.
    sandbox.edit_snapshot(
        "    issue: 8635\n    program_order: 1\n    state: waiting-coordination\n",
        "    issue: 8635\n    program_order: 1\n    state: complete\n    result: kept\n",
    )
    sandbox.add_comment(101, 8635, "bob", "/perf why cuda.q8_1-numerical-gate")
    sandbox.reconcile(capsys, "--now", NOW)
    text = reply(sandbox, 101)
    assert "It is complete: kept" in text
    assert "Evidence:" not in text
    assert "overlaps this packet" not in text
    assert "It is blocked by" not in text


def test_an_unclaim_that_changes_nothing_is_refused_not_rocketed(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing to take back: refused (😕, and a reply that says so), where an unclaim that takes the
    claim back gets its 🚀. Crash replays stay exact: tests/e2e/test_exactly_once.py."""
    either.add_comment(101, 9497, "alice", f"/perf unclaim {CUDA}")
    either.reconcile(capsys, "--now", NOW)
    assert reactions(either, 101) == ["confused"]
    assert f"alice is not assigned to #9497 (`{CUDA}`): nothing to unclaim" in reply(either, 101)
    state = either.state()
    next(i for i in state["issues"] if i["number"] == 9497)["assignees"] = ["carol"]
    either.write_state(state)
    either.add_comment(201, 9497, "carol", f"/perf unclaim {CUDA}", at="2026-08-27T11:00:00Z")
    either.reconcile(capsys, "--now", NOW)
    assert reactions(either, 201) == ["rocket"]
    assert next(i for i in either.state()["issues"] if i["number"] == 9497)["assignees"] == []


def board(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    argv = ["status", "--format", "markdown", "--config", str(sandbox.config), "--now", NOW]
    assert main([*argv, "--offline", str(sandbox.state_path)]) == 0
    out: str = capsys.readouterr().out
    return out


def test_the_dashboards_lease_count_and_pending_commands_read_right(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    body = board(sandbox, capsys)
    assert "2 live leases (2 of them stale, still counted)." in body
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 8325, "alice", f"/perf complete {M1} result: kept. receipt: #9482")
    plan: dict[str, Any] = sandbox.reconcile(capsys, "--now", NOW)
    assert plan["commands"]
    body = board(sandbox, capsys)
    assert f"- completed `{M1}` (receipt #9482): `alice` on #8325 (comment 101)" in body
    assert "`` " not in body


def test_the_pages_as_of_moves_with_the_dates_of_what_merges(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """Two overdue constraints reviewed on 30 August: the page the PR proposes, and the one on the
    default branch once it merges, say "As of" that day; a later command is held at the earliest
    `review_by` still standing (1 September), never past it."""
    either.edit_state(permissions={"alice": "write"})
    for n, constraint in enumerate(("active-native-lane-collision", "metal-resident-decode")):
        at = f"2026-08-30T0{n}:00:00Z"
        either.add_comment(101 + n, 8324, "alice", f"/perf review {constraint} by 2026-09-20", at=at)
    plan = either.reconcile(capsys, "--now", "2026-08-30T12:00:00Z")
    (pull,) = [a for a in plan["actions"] if a["kind"] == "pull_request"]
    assert "**As of:** 2026-08-30  \n" in pull["files"]["docs/current-constraints.md"]
    assert "\nas_of: 2026-08-30\n" in pull["files"]["config/snapshot.yaml"]
    either.merge(plan)
    assert main(["render", "--config", str(either.config), "--check"]) == 0
    capsys.readouterr()
    assert "**As of:** 2026-08-30  \n" in (either.root / "docs" / "current-constraints.md").read_text(encoding="utf-8")
    either.add_comment(103, 8324, "alice", "/perf review cuda-cold-decode by 2026-09-20", at="2026-09-05T00:00:00Z")
    later = either.reconcile(capsys, "--now", "2026-09-05T12:00:00Z")
    (pull,) = [a for a in later["actions"] if a["kind"] == "pull_request"]
    assert "**As of:** 2026-09-01  \n" in pull["files"]["docs/current-constraints.md"]
