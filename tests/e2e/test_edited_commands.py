"""Edits are read (issue #45), through the CLI, offline and against the GitHub double.

A command comment decided without anything accepted (refused, malformed, mistyped) that its author
edits is decided again from its new text: its reply is edited in place to the new decision, which
says it was decided again; the refusal said the comment could be edited. An accepted comment stays
decided whatever its author edits; an edit after `commands.edit_days` is not read; and a merge in
between does not settle a refused comment its author may still edit.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.harness import Repo

NOW = "2026-08-27T18:00:00Z"
M1 = "mac.m1-streamed-q4k-no-copy"
BOT = "perfbot[bot]"
COMPLETE = f"/perf complete {M1} result: kept. receipt: #9482"


def replies(repo: Repo, comment_id: int) -> list[dict[str, Any]]:
    marker = f"<!-- perfbot:command-reply {comment_id} -->"
    return [c for c in repo.state()["comments"] if c["user"] == BOT and marker in c["body"]]


def reactions(repo: Repo, comment_id: int) -> list[str]:
    return sorted(r["content"] for r in repo.state().get("reactions", []) if r["comment_id"] == comment_id)


def edit(repo: Repo, comment_id: int, body: str) -> None:
    """The author edits the comment, as GitHub shows it: `edited`, the author its editor."""
    state = repo.state()
    for comment in state["comments"]:
        if comment["id"] == comment_id:
            comment.update(body=body, edited=True, editor=comment["user"])
    repo.write_state(state)


def decisions(plan: dict[str, Any], comment_id: int) -> list[str]:
    return [str(c["decision"]) for c in plan["commands"] if c["comment_id"] == comment_id]


def test_a_mistyped_command_edited_is_decided_again_and_its_reply_follows(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", f"/perf compelte {M1} result: kept. receipt: #9482")
    first = either.reconcile(capsys, "--now", NOW)
    assert decisions(first, 101) == ["refused"]
    (reply,) = replies(either, 101)
    assert "Edit your comment to correct it: perfbot decides an edited comment again within 7 days" in reply["body"]
    assert reactions(either, 101) == ["confused"]

    edit(either, 101, COMPLETE)
    again = either.reconcile(capsys, "--now", NOW)
    assert decisions(again, 101) == ["accepted"]
    (edited,) = replies(either, 101)
    assert edited["id"] == reply["id"]  # the one reply, edited in place: its records are the decision
    assert "Decided again after the comment was edited" in edited["body"]
    assert f"🚀 `/perf complete {M1}" in edited["body"]
    assert "Edit your comment" not in edited["body"]
    assert "rocket" in reactions(either, 101)
    (pull,) = [a for a in again["actions"] if a["kind"] == "pull_request"]
    assert "state: complete" in pull["files"]["config/snapshot.yaml"]

    settled = either.reconcile(capsys, "--now", NOW)
    assert decisions(settled, 101) == ["replayed"]  # decided once: replayed from the edited reply
    assert [a for a in settled["actions"] if a["kind"] in ("comment", "edit_comment", "react")] == []


def test_an_accepted_comment_stays_decided_whatever_its_author_edits(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", f"/perf why {M1}")
    either.reconcile(capsys, "--now", NOW)
    (reply,) = replies(either, 101)
    edit(either, 101, COMPLETE)
    after = either.reconcile(capsys, "--now", NOW)
    assert decisions(after, 101) == ["answered"]
    assert replies(either, 101) == [reply]
    assert [a for a in after["actions"] if a["kind"] == "edit_comment"] == []


def test_an_edit_after_the_edit_window_is_not_read(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", "/perf compelte it")
    either.reconcile(capsys, "--now", NOW)
    (reply,) = replies(either, 101)
    edit(either, 101, COMPLETE)
    late = either.reconcile(capsys, "--now", "2026-09-04T10:00:00Z")  # 7 days after 27 August, 10:00
    assert decisions(late, 101) == ["refused"]
    assert replies(either, 101) == [reply]


def test_a_merge_does_not_settle_a_refusal_its_author_may_still_edit(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", "/perf compelte it")
    either.add_comment(
        102, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04", at="2026-08-27T11:00:00Z"
    )
    first = either.reconcile(capsys, "--now", NOW)
    (pull,) = [a for a in first["actions"] if a["kind"] == "pull_request"]
    assert "commands_settled_through: 10" not in pull["files"]["config/snapshot.yaml"]
    either.merge(first)
    either.reconcile(capsys, "--now", NOW)
    edit(either, 101, COMPLETE)
    again = either.reconcile(capsys, "--now", NOW)
    assert decisions(again, 101) == ["accepted"]


@pytest.mark.parametrize(
    ("permission", "body", "mendable"),
    [
        ("read", COMPLETE, False),  # needs write: no edit of the comment gives it
        ("read", f"/perf why {M1}\n/perf complete {M1} result: kept.", False),
        ("read", f"/perf complete {M1} result: kept.\n/perf why mac.m1-no-such-packet", True),
        ("write", "/perf complete mac.m1-no-such-packet result: kept. receipt: #9482", True),
        ("read", f"/perf complete {M1} result: kept.\n/perf compelte {M1}", True),
    ],
)
def test_the_reply_offers_an_edit_only_where_an_edit_can_put_it_right(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], permission: str, body: str, mendable: bool
) -> None:
    sandbox.edit_state(permissions={"alice": permission})
    sandbox.add_comment(101, 8325, "alice", body)
    sandbox.reconcile(capsys, "--now", NOW)
    (reply,) = replies(sandbox, 101)
    assert reply["body"].startswith("<!--")
    assert "@alice" in reply["body"]  # something to fix or to know, whichever it is
    assert ("Edit your comment to correct it" in reply["body"]) is mendable
