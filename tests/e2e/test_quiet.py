"""Quiet by default (`commands.replies: errors`): an accepted command costs one write, a 🚀, and
its record rides in the regeneration PR's body until it merges; what needs reading gets a reply."""

from __future__ import annotations

from typing import Any

import pytest

from bot.github.markers import markers_in
from tests.support.harness import Repo, pull

NOW = "2026-08-27T23:00:00Z"
M1 = "mac.m1-streamed-q4k-no-copy"
CUDA = "profile.real-cuda"
ACCEPTED = {
    "complete": f"/perf complete {M1} result: Exact campaign accepted. receipt: #9482",
    "review": "/perf review metal-resident-decode by 2026-09-04",
    "block": f"/perf block {CUDA} waiting for an A100 window",
    "state": f"/perf state {CUDA} capacity-hold",
    "evidence": "/perf evidence metal-resident-decode seen again on M4 (#9001)",
    "claim": f"/perf claim {CUDA}",
}
ISSUE = {"complete": 8325, "review": 8324, "block": 9497, "state": 9497, "evidence": 8324, "claim": 9497}


@pytest.fixture
def repo(either: Repo) -> Repo:
    either.edit_state(permissions={"alice": "write", "mallory": "read"})
    return either


def bot_writes(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """The bot's new comments and new reactions between two states."""
    seen = {c["id"] for c in before["comments"]}
    posted = [c for c in after["comments"] if c["user"] == "perfbot[bot]" and c["id"] not in seen]
    old = {(r["comment_id"], r["content"]) for r in before.get("reactions", [])}
    reacted = [
        (r["comment_id"], r["content"])
        for r in after.get("reactions", [])
        if (r["comment_id"], r["content"]) not in old
    ]
    return posted, reacted


def records(body: str) -> set[str]:
    return {key for topic, key in markers_in(body) if topic == "decision"}


def open_pull(repo: Repo) -> dict[str, Any]:
    (found,) = [p for p in repo.state().get("pulls", []) if p["state"] == "open"]
    return dict(found)


@pytest.mark.parametrize("verb", sorted(ACCEPTED))
def test_an_accepted_command_costs_one_write_on_its_comment(
    repo: Repo, capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    repo.add_comment(101, ISSUE[verb], "alice", ACCEPTED[verb])
    before = repo.state()
    plan = repo.reconcile(capsys, "--now", NOW)
    posted, reacted = bot_writes(before, repo.state())
    assert [c for c in posted if "perfbot:command-reply" in c["body"]] == []
    assert reacted == [(101, "rocket")]
    assert [c["decision"] for c in plan["commands"]] == ["accepted"]
    if verb == "claim":  # the effect is the assignment itself; nothing to record in a PR
        assert "alice" in next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"]
    else:
        body = open_pull(repo)["body"]
        assert len(records(body)) == 1
        assert "(comment 101)" in body  # names the comment, on the issue GitHub cross-references


def test_six_commands_reply_only_where_there_is_something_to_read(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    for n, verb in enumerate(("complete", "review", "block", "claim")):
        repo.add_comment(101 + n, ISSUE[verb], "alice", ACCEPTED[verb], at=f"2026-08-27T10:0{n}:00Z")
    repo.add_comment(105, 8325, "alice", f"/perf why {M1}", at="2026-08-27T10:05:00Z")
    repo.add_comment(106, 8325, "mallory", ACCEPTED["complete"], at="2026-08-27T10:06:00Z")
    before = repo.state()
    repo.reconcile(capsys, "--now", NOW)
    posted, reacted = bot_writes(before, repo.state())
    replies = [c for c in posted if "perfbot:command-reply" in c["body"]]
    answered = [key for c in replies for topic, key in markers_in(c["body"]) if topic == "command-reply"]
    assert sorted(answered) == ["105", "106"]
    mallory = next(c for c in replies if "perfbot:command-reply 106" in c["body"])
    assert "@mallory" in mallory["body"]  # a refusal names its author, who must act
    why = next(c for c in replies if "perfbot:command-reply 105" in c["body"])
    assert "@alice" not in why["body"]
    assert sorted(reacted) == [(101, "rocket"), (102, "rocket"), (103, "rocket"), (104, "rocket"), (106, "confused")]
    assert len(records(open_pull(repo)["body"])) == 3  # complete, review, block


def test_a_second_run_says_nothing_and_replays_from_the_pr_body(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", ACCEPTED["complete"])
    repo.reconcile(capsys, "--now", NOW)
    # The comment is edited (or deleted) after the decision: the PR body's record is what counts.
    state = repo.state()
    comment = next(c for c in state["comments"] if c["id"] == 101)
    comment.update(body="never mind", edited=True)
    repo.write_state(state)
    before = repo.state()
    again = repo.reconcile(capsys, "--now", NOW)
    assert [(c["comment_id"], c["decision"]) for c in again["commands"]] == [(101, "replayed")]
    assert pull(again)["operation"] == "none"
    assert bot_writes(before, repo.state()) == ([], [])


def test_a_pr_closed_unmerged_is_proposed_again_from_the_unedited_comment(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", ACCEPTED["complete"])
    first = repo.reconcile(capsys, "--now", NOW)
    state = repo.state()
    for record in state["pulls"]:
        record["state"] = "closed"
    repo.write_state(state)
    before = repo.state()
    again = repo.reconcile(capsys, "--now", NOW)
    assert pull(again)["operation"] == "create"
    assert pull(again)["files"] == pull(first)["files"]
    assert records(pull(again)["body"]) == records(pull(first)["body"])
    assert bot_writes(before, repo.state())[0] == []  # still no reply


def test_a_merged_quiet_command_is_settled_and_never_applied_twice(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", ACCEPTED["complete"])
    repo.merge(repo.reconcile(capsys, "--now", NOW))
    after = repo.reconcile(capsys, "--now", NOW)
    assert {(c["comment_id"], c["decision"]) for c in after["commands"]} == {(101, "merged")}
    assert repo.snapshot_path.read_text(encoding="utf-8").count("comment_id: 101\n") == 1


def test_replies_all_keeps_eyes_and_a_reply_for_every_command(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.reply_to_all()
    repo.add_comment(101, 8325, "alice", ACCEPTED["complete"])
    before = repo.state()
    repo.reconcile(capsys, "--now", NOW)
    posted, reacted = bot_writes(before, repo.state())
    assert [c for c in posted if "perfbot:command-reply 101" in c["body"]] != []
    assert reacted == [(101, "eyes"), (101, "rocket")]
    assert records(open_pull(repo)["body"]) == set()  # the reply records it
