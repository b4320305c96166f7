"""Exactly-once edges of commands (#10 items 12 and 14): refusals, drops and claims across runs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.harness import Repo, comments, pull

NOW = "2026-08-27T23:00:00Z"
CUDA = "profile.real-cuda"  # issue 9497, unassigned in the seed
BLOCK = f"/perf block {CUDA} waiting for an A100 window"


@pytest.fixture
def repo(sandbox: Repo) -> Repo:
    """Replies to every command comment (`commands.replies: all`): these edges are the replies'."""
    sandbox.reply_to_all()
    sandbox.edit_state(permissions={"alice": "write", "root": "admin", "carol": "triage"})
    return sandbox


def replies(repo: Repo, comment_id: int) -> list[str]:
    marker = f"<!-- perfbot:command-reply {comment_id} -->"
    return [c["body"] for c in repo.state()["comments"] if c["user"] == "perfbot[bot]" and marker in c["body"]]


def delete_comment(repo: Repo, comment_id: int) -> None:
    state = repo.state()
    state["comments"] = [c for c in state["comments"] if c["id"] != comment_id]
    repo.write_state(state)


def proposed_snapshot(plan: dict[str, Any], repo: Repo) -> str:
    """The snapshot the open regeneration PR proposes (written by this run or an earlier one)."""
    text = pull(plan).get("files", {}).get("config/snapshot.yaml")
    if text:
        return str(text)
    (open_pull,) = [p for p in repo.state().get("pulls", []) if p["state"] == "open"]
    return str(open_pull["files"]["config/snapshot.yaml"])


def decisions(plan: dict[str, Any]) -> list[tuple[int, int, str]]:
    return [(c["comment_id"], c["line"], c["decision"]) for c in plan["commands"]]


# Item 12: a comment refused as a whole has no effect at all, and two runs agree.


def test_a_drop_in_a_comment_refused_whole_drops_nothing(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(500, 9497, "alice", BLOCK)
    repo.add_comment(501, 9497, "root", "\n".join(["/perf drop all"] + ["/perf help"] * 20), at="2026-08-27T10:05:00Z")
    first = repo.reconcile(capsys, "--now", NOW)
    assert decisions(first) == [(500, 1, "accepted"), (501, 0, "refused")]
    (reply,) = replies(repo, 500)
    assert "dropped" not in reply
    assert "blocked_by_condition: waiting for an A100 window" in proposed_snapshot(first, repo)
    second = repo.reconcile(capsys, "--now", NOW)
    assert decisions(second) == [(500, 1, "replayed")]
    assert "blocked_by_condition: waiting for an A100 window" in proposed_snapshot(second, repo)


def test_a_reply_never_reports_a_later_comments_drop(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """500's reply is written before 501's: it must stay true when 501 is deleted before its reply."""
    repo.add_comment(500, 9497, "alice", BLOCK)
    repo.add_comment(501, 9497, "root", "/perf drop all", at="2026-08-27T10:05:00Z")
    first = repo.reconcile(capsys, "--now", NOW, "--max-writes", "3")  # 500's eyes, reply and rocket
    assert decisions(first) == [(500, 1, "dropped"), (501, 1, "accepted")]
    (reply,) = replies(repo, 500)
    assert replies(repo, 501) == []
    assert "applied: `profile.real-cuda` blocked" in reply
    assert "dropped" not in reply
    delete_comment(repo, 501)
    second = repo.reconcile(capsys, "--now", NOW)
    assert decisions(second) == [(500, 1, "replayed")]
    assert "blocked_by_condition: waiting for an A100 window" in proposed_snapshot(second, repo)


def test_a_recorded_drop_still_says_which_commands_it_removed(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(500, 9497, "alice", BLOCK)
    repo.add_comment(501, 9497, "root", "/perf drop all", at="2026-08-27T10:05:00Z")
    first = repo.reconcile(capsys, "--now", NOW)
    assert "dropped pending commands: comment 500 line 1" in replies(repo, 501)[0]
    assert pull(first)["operation"] == "none"
    again = repo.reconcile(capsys, "--now", NOW)
    assert decisions(again) == [(500, 1, "dropped"), (501, 1, "answered")]
    assert comments(again) == []


# Item 14: a claim's reply says what perfbot will do; a later run assigns, or corrects the reply.


def assignees(repo: Repo, issue: int) -> list[str]:
    return list(next(i for i in repo.state()["issues"] if i["number"] == issue)["assignees"])


def notices(repo: Repo) -> list[str]:
    return [
        c["body"] for c in repo.state()["comments"] if c["user"] == "perfbot[bot]" and "perfbot:lapsed" in c["body"]
    ]


def test_a_claim_whose_comment_is_deleted_before_the_assignment_is_corrected(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(500, 9497, "alice", f"/perf claim {CUDA}")
    # Eyes and the reply; the assignment waits, and so does the PR (the budget keeps it one write).
    repo.reconcile(capsys, "--now", NOW, "--max-writes", "3")
    (reply,) = replies(repo, 500)
    assert f"applied: alice will be assigned to #9497 (`{CUDA}`)" in reply
    assert assignees(repo, 9497) == []
    delete_comment(repo, 500)
    later = repo.reconcile(capsys, "--now", NOW)
    assert assignees(repo, 9497) == []  # a deleted comment's assignment is not made ...
    assert decisions(later) == [(500, 1, "lapsed")]
    (notice,) = notices(repo)  # ... and the reply is corrected, once
    assert f"`/perf claim {CUDA}` was accepted, but perfbot will not carry it out" in notice
    assert "alice is not assigned to #9497" in notice
    final = repo.reconcile(capsys, "--now", NOW)
    assert comments(final) == []
    assert [a["kind"] for a in final["actions"]] == ["pull_request"]
    assert len(notices(repo)) == 1


def test_a_claim_whose_assignment_was_deferred_is_assigned_by_the_next_run(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(500, 9497, "alice", f"/perf claim {CUDA}")
    repo.reconcile(capsys, "--now", NOW, "--max-writes", "2")
    later = repo.reconcile(capsys, "--now", NOW)
    assert {"kind": "assign", "issue": 9497, "login": "alice", "add": True} in later["actions"]
    assert assignees(repo, 9497) == ["alice"]
    assert notices(repo) == []


def test_a_finished_claim_is_left_alone_after_its_comment_and_reactions_are_gone(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub deletes a comment's reactions with it: the assignment GitHub shows is what counts."""
    repo.add_comment(500, 9497, "alice", f"/perf claim {CUDA}")
    repo.reconcile(capsys, "--now", NOW)
    assert assignees(repo, 9497) == ["alice"]
    delete_comment(repo, 500)
    repo.edit_state(reactions=[])
    later = repo.reconcile(capsys, "--now", NOW)
    assert [a["kind"] for a in later["actions"]] == ["pull_request"]
    repo.set_issue(9497, assignees=[])  # alice unassigns herself by hand: perfbot does not undo it
    last = repo.reconcile(capsys, "--now", NOW)
    assert not any(a["kind"] == "assign" for a in last["actions"])
    assert assignees(repo, 9497) == []
    (notice,) = notices(repo)
    assert "alice is not assigned to #9497" in notice
