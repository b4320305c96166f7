"""Hostile review of quiet answers (issue #25): ways a quiet comment's command could be lost,
applied twice, accepted when it should be refused, or answered twice. Each test is one attack
that perfbot survives (issue #39 closed the last ones: records kept in perfbot's commit, a budget
of 1, a lowered body limit, a deferred 👀)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.config import load_settings
from bot.github.markers import marker, markers_in
from bot.github.pull_body import parts
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from tests.e2e.test_exactly_once import NOW as NOW_DT
from tests.e2e.test_exactly_once import Stale, crash_everywhere, put_world, run, run_on, world_files
from tests.support.backends import backend
from tests.support.faults import Crash, Faulty
from tests.support.harness import Repo, pull

NOW = "2026-08-27T23:00:00Z"
M1 = "mac.m1-streamed-q4k-no-copy"
CUDA = "profile.real-cuda"
COMPLETE = f"/perf complete {M1} result: Exact campaign accepted. receipt: #9482"
REVIEW = "/perf review metal-resident-decode by 2026-09-04"
BLOCK = f"/perf block {CUDA} waiting for an A100 window"


@pytest.fixture
def repo(either: Repo) -> Repo:
    either.edit_state(permissions={"alice": "write", "mallory": "read", "maya": "maintain"})
    return either


def open_pull(repo: Repo) -> dict[str, Any] | None:
    found = [p for p in repo.state().get("pulls", []) if p["state"] == "open"]
    return dict(found[0]) if found else None


def pull_body(repo: Repo) -> str:
    found = open_pull(repo)
    assert found is not None, "no open regeneration PR"
    return str(found["body"])


def proposed(repo: Repo) -> str:
    """The snapshot the open regeneration PR proposes ('' when none is open)."""
    found = open_pull(repo)
    return found["files"].get("config/snapshot.yaml", "") if found else ""


def in_ledger(snapshot_text: str, comment_id: int) -> int:
    return snapshot_text.count(f"comment_id: {comment_id}\n")


def set_pulls(repo: Repo, **fields: Any) -> None:
    state = repo.state()
    for record in state["pulls"]:
        if record["state"] == "open":
            record.update(fields)
    repo.write_state(state)


def edit_comment(repo: Repo, comment_id: int, body: str) -> None:
    state = repo.state()
    for comment in state["comments"]:
        if comment["id"] == comment_id:
            comment.update(body=body, edited=True)
    repo.write_state(state)


def bot_replies(repo: Repo) -> list[str]:
    return [c["body"] for c in repo.state()["comments"] if c["user"] == "perfbot[bot]" and "command-reply" in c["body"]]


def reactions(repo: Repo) -> list[tuple[int, str]]:
    return sorted((r["comment_id"], r["content"]) for r in repo.state().get("reactions", []))


# --- records gone, then the comment edited ------------------------------------------------------


def test_a_closed_pr_then_an_edited_comment_keeps_the_accepted_command(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    set_pulls(repo, state="closed")
    edit_comment(repo, 101, COMPLETE + "\n\n(typo fixed)")
    repo.reconcile(capsys, "--now", NOW)
    # The record in perfbot's commit outlives the PR: the command is proposed again, once, quietly.
    assert in_ledger(proposed(repo), 101) == 1
    assert bot_replies(repo) == []
    assert reactions(repo) == [(101, "rocket")]


def test_a_rewritten_pr_body_then_an_edited_comment_keeps_the_accepted_command(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    set_pulls(repo, body="We should merge this after the release.")
    edit_comment(repo, 101, COMPLETE + " (edited)")
    again = repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    assert bot_replies(repo) == []
    # perfbot writes its part, with its records, into the body again (the commit kept them
    # meanwhile), below the person's text, which stays as they wrote it.
    assert pull(again)["operation"] == "update"
    assert pull_body(repo).startswith("We should merge this after the release.\n\n<!-- perfbot:pr-body ")
    assert "decision" in dict(markers_in(parts(pull_body(repo)).ours))


def delete_comment(repo: Repo, comment_id: int) -> None:
    state = repo.state()
    state["comments"] = [c for c in state["comments"] if c["id"] != comment_id]
    repo.write_state(state)


@pytest.mark.parametrize("to_the_pr", ["closed", "body rewritten", "closed after its body was rewritten"])
@pytest.mark.parametrize("to_the_comment", ["edited", "deleted"])
def test_every_quiet_command_lands_once_whatever_happens_to_the_pr_and_then_the_comment(
    repo: Repo, capsys: pytest.CaptureFixture[str], to_the_pr: str, to_the_comment: str
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.add_comment(102, 8324, "alice", REVIEW, at="2026-08-27T10:05:00Z")
    repo.reconcile(capsys, "--now", NOW)
    if "rewritten" in to_the_pr:
        set_pulls(repo, body="Hold until the release.", editor="maya")
    if "closed" in to_the_pr:
        set_pulls(repo, state="closed")
    if to_the_comment == "edited":
        edit_comment(repo, 101, "/perf complete something-else result: other")
    else:
        delete_comment(repo, 101)
    repo.add_comment(201, 9497, "alice", BLOCK, at="2026-08-27T11:00:00Z")  # news meanwhile
    plan = repo.reconcile(capsys, "--now", NOW)
    for cid in (101, 102, 201):
        assert in_ledger(proposed(repo), cid) == 1, cid
    assert "something-else" not in proposed(repo)
    assert bot_replies(repo) == []
    assert len([p for p in repo.state()["pulls"] if p["state"] == "open"]) == 1
    # Merged: each lands once, and nothing comes back after.
    repo.merge(plan)
    repo.reconcile(capsys, "--now", NOW)
    merged = repo.snapshot_path.read_text(encoding="utf-8")
    assert [in_ledger(merged, cid) for cid in (101, 102, 201)] == [1, 1, 1]
    assert open_pull(repo) is None


def test_a_rewritten_pr_body_with_the_comment_unedited_gets_perfbots_part_back_below_the_persons_text(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    first = repo.reconcile(capsys, "--now", NOW)
    set_pulls(repo, body="We should merge this after the release.")
    again = repo.reconcile(capsys, "--now", NOW)
    assert pull(again)["operation"] == "update"
    assert pull(again)["body"] == "We should merge this after the release.\n\n" + pull(first)["body"]
    assert bot_replies(repo) == []
    assert reactions(repo) == [(101, "rocket")]


# --- forged records -----------------------------------------------------------------------------


def test_a_record_forged_into_the_pr_body_does_not_accept_a_readers_command(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8324, "alice", REVIEW)
    repo.reconcile(capsys, "--now", NOW)
    # mallory (read) asks for a change; before the next run, a record of it is put in the body.
    repo.add_comment(201, 8325, "mallory", COMPLETE, at="2026-08-27T11:00:00Z")
    state = repo.state()
    forged = json.dumps(
        {
            "f": 2,
            "c": 201,
            "i": 8325,
            "a": "mallory",
            "at": "2026-08-27T11:00:00+00:00",
            "l": 1,
            "v": "accepted",
            "t": COMPLETE,
        },
        separators=(",", ":"),
    )
    for record in state["pulls"]:
        if record["state"] == "open":
            record["body"] = marker("decision", forged) + "\n" + record["body"]
    repo.write_state(state)
    assert ("decision", forged) in markers_in(pull_body(repo))  # the forgery is read as a record
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 201) == 0
    assert (201, "confused") in reactions(repo)


def test_a_record_in_a_readers_own_comment_counts_for_nothing(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    forged = json.dumps(
        {
            "f": 2,
            "c": 201,
            "i": 8325,
            "a": "alice",
            "at": "2026-08-27T11:00:00+00:00",
            "l": 1,
            "v": "accepted",
            "t": COMPLETE,
        },
        separators=(",", ":"),
    )
    header = marker("command-reply", "201") + "\n" + marker("decision", forged)
    repo.add_comment(201, 8325, "mallory", f"{header}\n{COMPLETE}")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 201) == 0
    assert (201, "confused") in reactions(repo)


# --- assignments ------------------------------------------------------------------------------


def test_a_quiet_claim_is_not_made_again_after_a_person_unassigns(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 9497, "alice", f"/perf claim {CUDA}")
    repo.add_comment(102, 9497, "alice", f"/perf claim {CUDA}\n{BLOCK}", at="2026-08-27T10:01:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert "alice" in next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"]
    repo.set_issue(9497, assignees=[])
    before = repo.state()
    repo.reconcile(capsys, "--now", NOW)
    assert next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"] == []
    assert repo.state()["comments"] == before["comments"]
    assert reactions(repo) == [(101, "rocket"), (102, "rocket")]


def test_an_unclaim_by_a_reader_who_is_not_assigned_changes_nobody(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.set_issue(9497, assignees=["alice"])
    repo.add_comment(101, 9497, "mallory", f"/perf unclaim {CUDA}")
    repo.reconcile(capsys, "--now", NOW)
    assert next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"] == ["alice"]
    repo.reconcile(capsys, "--now", NOW)
    assert next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"] == ["alice"]


# --- config switched between runs --------------------------------------------------------------


def test_switching_to_replies_all_adds_nothing_to_a_quiet_comment(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    repo.reply_to_all()
    before = repo.state()
    repo.reconcile(capsys, "--now", NOW)
    assert reactions(repo) == [(101, "rocket")], "👀 (deferred) on a comment already answered with 🚀"
    assert repo.state()["comments"] == before["comments"]
    assert in_ledger(proposed(repo), 101) == 1


def test_switching_to_quiet_keeps_a_replied_command_once(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.reply_to_all()
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    text = repo.config.read_text(encoding="utf-8").replace("  replies: all\n", "", 1)
    repo.config.write_text(text, encoding="utf-8")
    repo.add_comment(201, 8324, "alice", REVIEW, at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    body = pull_body(repo)
    decisions = [json.loads(key)["c"] for topic, key in markers_in(body) if topic == "decision"]
    assert decisions == [201]  # 101's record is its reply's, not repeated in the body
    assert in_ledger(proposed(repo), 101) == 1
    assert in_ledger(proposed(repo), 201) == 1
    assert len(bot_replies(repo)) == 1


# --- drops mixed with quiet comments -----------------------------------------------------------


def test_drop_all_then_the_pr_closes_and_nothing_comes_back(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    repo.add_comment(201, 8325, "maya", "/perf drop all", at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert open_pull(repo) is None  # nothing left to propose: the PR is closed, its records with it
    for _ in range(2):
        repo.reconcile(capsys, "--now", NOW)
        assert open_pull(repo) is None
    edit_comment(repo, 101, COMPLETE + " (edited)")
    repo.add_comment(301, 8324, "alice", REVIEW, at="2026-08-27T12:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 0
    assert in_ledger(proposed(repo), 301) == 1
    assert len(bot_replies(repo)) == 1  # the drop's


def test_drop_of_a_quiet_comment_in_the_same_run(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.add_comment(102, 8324, "alice", REVIEW, at="2026-08-27T10:01:00Z")
    repo.add_comment(201, 8325, "maya", "/perf drop 101", at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 0
    assert in_ledger(proposed(repo), 102) == 1
    again = repo.reconcile(capsys, "--now", NOW)
    assert pull(again)["operation"] == "none"
    assert in_ledger(proposed(repo), 101) == 0
    # The PR is closed by a person: 101 is read again from its text, and stays dropped.
    set_pulls(repo, state="closed")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 0
    assert in_ledger(proposed(repo), 102) == 1


def test_a_drop_by_a_writer_who_may_not_is_refused_and_drops_nothing(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.add_comment(201, 8325, "alice", "/perf drop all", at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    assert (201, "confused") in reactions(repo)


# --- merged, then edited -------------------------------------------------------------------------


def test_a_merged_quiet_command_edited_afterwards_is_not_applied_twice(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.merge(repo.reconcile(capsys, "--now", NOW))
    edit_comment(repo, 101, COMPLETE + " (edited)")
    repo.add_comment(201, 8324, "alice", REVIEW, at="2026-08-27T11:00:00Z")
    repo.merge(repo.reconcile(capsys, "--now", NOW))
    repo.add_comment(301, 9497, "alice", BLOCK, at="2026-08-27T12:00:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert in_ledger(snapshot, 301) == 1
    assert snapshot.count("state: complete") == repo.snapshot_path.read_text(encoding="utf-8").count("state: complete")
    assert bot_replies(repo) == []


# --- foreign commits -----------------------------------------------------------------------------


def test_foreign_commits_bring_back_the_reply_and_the_command_survives(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    # offline only: the double derives `foreign_commits` from its branch, which a state edit cannot move
    repo = sandbox
    repo.edit_state(permissions={"alice": "write"})
    repo.add_comment(101, 8324, "alice", REVIEW)
    repo.reconcile(capsys, "--now", NOW)
    set_pulls(repo, foreign_commits=True)
    repo.add_comment(201, 8325, "alice", COMPLETE, at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    (reply,) = bot_replies(repo)
    assert "command-reply 201" in reply
    (number,) = [p["number"] for p in repo.state()["pulls"] if p["state"] == "open"]
    set_pulls(repo, state="closed")  # the person's PR is closed unmerged
    plan = repo.reconcile(capsys, "--now", NOW)
    assert pull(plan)["restarted"] == f"it holds commits perfbot did not make, and its PR #{number} was closed"
    snapshot = proposed(repo)
    assert in_ledger(snapshot, 101) == 1
    assert in_ledger(snapshot, 201) == 1
    assert len(bot_replies(repo)) == 1


# --- crashes, budgets, lagging lists, overlapping runs on a mixed inbox ---------------------------

MIXED = [
    (101, 8325, "alice", COMPLETE),
    (102, 8324, "mallory", REVIEW),  # refused: read permission
    (103, 9497, "carol", f"{BLOCK}\n/perf unclaim {CUDA}"),  # assigned, without write access
    (104, 8324, "alice", REVIEW),
    (105, 8324, "maya", "/perf drop 104"),
    (106, 8325, "alice", f"/perf why {M1}"),
    (107, 9497, "alice", f"/perf claim {CUDA}"),  # a claim alone: no record anywhere
    (108, 8324, "alice", "/perf evidence metal-resident-decode seen again on M4 (#9001)\n/perf bogus"),
]


def mixed_state(repo: Repo) -> str:
    state = repo.state()
    state["permissions"] = {"alice": "write", "mallory": "read", "carol": "read", "maya": "maintain"}
    state["comments"] = [
        {"id": cid, "issue": issue, "user": user, "created_at": f"2026-08-27T10:0{cid % 10}:00Z", "body": body}
        for cid, issue, user, body in MIXED
    ]
    for issue in state["issues"]:
        if issue["number"] == 9497:
            issue["assignees"] = ["carol"]
    return json.dumps(state, indent=2)


@pytest.mark.slow
def test_a_mixed_inbox_survives_a_crash_after_any_write(sandbox: Repo, adapter: str) -> None:
    settings = load_settings(sandbox.config)
    writes = crash_everywhere(settings, sandbox.root, mixed_state(sandbox), backend(adapter))
    final = json.loads((sandbox.root / "clean.json").read_text(encoding="utf-8"))
    (pr,) = final["pulls"]
    snapshot = pr["files"]["config/snapshot.yaml"]
    assert [cid for cid, *_ in MIXED if in_ledger(snapshot, cid)] == [101, 103, 108]
    replied = sorted(
        key
        for c in final["comments"]
        if c["user"] == "perfbot[bot]"
        for topic, key in markers_in(c["body"])
        if topic == "command-reply"
    )
    assert replied == ["102", "103", "105", "106", "108"]  # 103: a change beside an unclaim is replied to
    assert writes > 0


def converge(settings: Any, path: Any, budget: int, limit: int) -> int:
    for runs in range(1, limit + 1):
        with backend("offline").open(settings, path, NOW_DT) as port:
            counted = Faulty(port)
            plan = decide(gather.inputs(settings, counted.observe(), NOW_DT, max_writes=budget))
            executor.apply(plan, counted, budget)
        assert counted.writes <= budget
        if counted.writes == 0:
            return runs
    raise AssertionError(f"budget {budget} does not converge in {limit} runs")


@pytest.mark.parametrize("budget", [1, 2, 3, 4, 5, 7, 11])
def test_every_budget_ends_a_mixed_inbox_where_one_unbounded_run_does(sandbox: Repo, budget: int) -> None:
    settings = load_settings(sandbox.config)
    initial = mixed_state(sandbox)
    clean, bounded = sandbox.root / "clean.json", sandbox.root / "bounded.json"
    clean.write_text(initial, encoding="utf-8")
    bounded.write_text(initial, encoding="utf-8")
    run_on(settings, backend("offline"), clean)
    converge(settings, bounded, budget, 40)
    assert bounded.read_text(encoding="utf-8") == clean.read_text(encoding="utf-8")


def test_a_budget_of_one_still_makes_progress(sandbox: Repo) -> None:
    settings = load_settings(sandbox.config)
    bounded = sandbox.root / "bounded.json"
    bounded.write_text(mixed_state(sandbox), encoding="utf-8")
    with backend("offline").open(settings, bounded, NOW_DT) as port:
        counted = Faulty(port)
        executor.apply(decide(gather.inputs(settings, counted.observe(), NOW_DT, max_writes=1)), counted, 1)
    assert counted.writes == 1


def test_lagging_lists_after_a_crash_at_any_write_of_a_mixed_inbox_post_nothing_twice(sandbox: Repo) -> None:
    settings = load_settings(sandbox.config)
    clean = sandbox.root / "clean.json"
    clean.write_text(mixed_state(sandbox), encoding="utf-8")
    left_behind: list[dict[str, bytes]] = []
    run_on(settings, backend("live"), clean, before_write=lambda: left_behind.append(world_files(clean)))
    expected = json.loads(clean.read_text(encoding="utf-8"))
    for k, files in enumerate(left_behind):
        path = sandbox.root / f"crash-{k}.json"
        put_world(path, files)
        run_on(settings, backend("live-lagging"), path)
        raw = json.loads(path.read_text(encoding="utf-8"))
        markers = [m for c in raw["comments"] if c["user"] == raw["bot_login"] for m in sorted(markers_in(c["body"]))]
        assert len(markers) == len(set(markers)), f"a marker posted twice after a crash after {k} writes"
        assert len([p for p in raw["pulls"] if p["state"] == "open"]) <= 1, f"two PRs after {k} writes"
        run_on(settings, backend("live"), path)
        assert json.loads(path.read_text(encoding="utf-8")) == expected, f"crash after {k} writes"


def test_an_older_run_writing_last_keeps_a_newer_runs_quiet_record(sandbox: Repo, adapter: str) -> None:
    """Run A read GitHub when only 101 was there; run B saw 101 and 102 and wrote everything first;
    then A writes its PR body, without 102's record. 102's author then fixes a typo."""
    settings = load_settings(sandbox.config)
    via = backend(adapter)
    state = json.loads(mixed_state(sandbox))
    state["comments"] = [c for c in state["comments"] if c["id"] == 101]
    shared = sandbox.root / "shared.json"
    shared.write_text(json.dumps(state), encoding="utf-8")
    with via.open(settings, shared, NOW_DT) as port:
        seen_by_a = port.observe()
    state = json.loads(shared.read_text(encoding="utf-8"))
    state["comments"].append(
        {"id": 102, "issue": 8324, "user": "alice", "created_at": "2026-08-27T10:02:00Z", "body": REVIEW}
    )
    shared.write_text(json.dumps(state), encoding="utf-8")
    run_on(settings, via, shared)  # B
    with via.open(settings, shared, NOW_DT) as port:
        run(settings, Stale(port, seen_by_a))  # A
    state = json.loads(shared.read_text(encoding="utf-8"))
    body = next(p for p in state["pulls"] if p["state"] == "open")["body"]
    kept = {json.loads(key)["c"] for topic, key in markers_in(body) if topic == "decision"}
    state["comments"] = [
        {**c, "body": REVIEW + " (typo)", "edited": True} if c["id"] == 102 else c for c in state["comments"]
    ]
    shared.write_text(json.dumps(state), encoding="utf-8")
    run_on(settings, via, shared)
    final = json.loads(shared.read_text(encoding="utf-8"))
    snapshot = next(p for p in final["pulls"] if p["state"] == "open")["files"]["config/snapshot.yaml"]
    assert in_ledger(snapshot, 101) == 1
    assert in_ledger(snapshot, 102) == 1, f"102's accepted review is gone (records left in the body: {kept})"


# --- the body limit ------------------------------------------------------------------------------


def set_body_limit(repo: Repo, limit: int) -> None:
    text = repo.config.read_text(encoding="utf-8")
    assert "  max_body_chars: 60000\n" in text
    repo.config.write_text(
        text.replace("  max_body_chars: 60000\n", f"  max_body_chars: {limit}\n", 1), encoding="utf-8"
    )


def long_review(n: int) -> str:
    return f"/perf evidence metal-resident-decode seen again on M4, run {n}: {'x' * 300} (#9001)"


def test_records_past_half_the_limit_get_replies_and_every_command_lands_once(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = sandbox
    repo.edit_state(permissions={"alice": "write"})
    set_body_limit(repo, 4000)
    for n in range(5):  # the per-person cap
        repo.add_comment(101 + n, 8324, "alice", long_review(n), at=f"2026-08-27T10:0{n}:00Z")
    repo.reconcile(capsys, "--now", NOW)
    first_body = pull_body(repo)
    assert len(first_body) <= 4000
    quiet = {json.loads(key)["c"] for topic, key in markers_in(first_body) if topic == "decision"}
    replied = {int(key) for b in bot_replies(repo) for topic, key in markers_in(b) if topic == "command-reply"}
    assert quiet | replied == set(range(101, 106))
    assert not quiet & replied
    assert quiet  # some fit
    for n in range(5):
        repo.add_comment(201 + n, 8324, "alice", long_review(10 + n), at=f"2026-08-27T11:0{n}:00Z")
    again = repo.reconcile(capsys, "--now", NOW)
    body = pull_body(repo)
    assert len(body) <= 4000
    snapshot = proposed(repo)
    for cid in [*range(101, 106), *range(201, 206)]:
        assert in_ledger(snapshot, cid) == 1, cid
    repo.merge(again)
    repo.reconcile(capsys, "--now", NOW)
    for cid in [*range(101, 106), *range(201, 206)]:
        assert in_ledger(repo.snapshot_path.read_text(encoding="utf-8"), cid) == 1, cid


def test_a_lowered_body_limit_never_writes_a_longer_pr_body(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = sandbox
    repo.edit_state(permissions={"alice": "write"})
    for n in range(5):
        repo.add_comment(101 + n, 8324, "alice", long_review(n), at=f"2026-08-27T10:0{n}:00Z")
    repo.reconcile(capsys, "--now", NOW)
    set_body_limit(repo, 2000)
    repo.add_comment(201, 8325, "alice", COMPLETE, at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert len(pull_body(repo)) <= 2000
    # The records the body no longer holds are in perfbot's commit: every command stays, once, even
    # with its comment edited since.
    for n in range(5):
        edit_comment(repo, 101 + n, long_review(n) + " (edited)")
    repo.reconcile(capsys, "--now", NOW)
    assert len(pull_body(repo)) <= 2000
    for cid in (*range(101, 106), 201):
        assert in_ledger(proposed(repo), cid) == 1, cid
    # 201 came when the body had no room for its record: it was answered with a reply that records it.
    assert [key for b in bot_replies(repo) for topic, key in markers_in(b) if topic == "command-reply"] == ["201"]


def test_switching_to_quiet_after_a_crash_leaves_no_deferred_eyes(sandbox: Repo, adapter: str) -> None:
    sandbox.reply_to_all()
    settings = load_settings(sandbox.config)
    path = sandbox.root / "state.json"
    path.write_text(mixed_state(sandbox), encoding="utf-8")
    with pytest.raises(Crash):
        run_on(settings, backend(adapter), path, crash_after=1)  # 👀 on 101
    text = sandbox.config.read_text(encoding="utf-8").replace("  replies: all\n", "", 1)
    sandbox.config.write_text(text, encoding="utf-8")
    settings = load_settings(sandbox.config)
    run_on(settings, backend(adapter), path)
    final = json.loads(path.read_text(encoding="utf-8"))
    on_101 = sorted(r["content"] for r in final["reactions"] if r["comment_id"] == 101)
    assert on_101 == ["rocket"]
    # Nothing is left to take back: the next run writes nothing.
    assert run_on(settings, backend(adapter), path).writes == 0


def test_a_pr_merged_between_its_write_and_the_rocket_is_not_applied_twice(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = load_settings(sandbox.config)
    state = json.loads(mixed_state(sandbox))
    state["comments"] = [c for c in state["comments"] if c["id"] in (101, 104)]
    sandbox.write_state(state)
    with pytest.raises(Crash):
        run_on(settings, backend("offline"), sandbox.state_path, crash_after=1)  # the PR, no 🚀 yet
    with backend("offline").open(settings, sandbox.state_path, NOW_DT) as port:
        port.observe()  # the crashed run's journal is folded into the state file
    merged = sandbox.state()
    (pr,) = merged["pulls"]
    for path, text in pr["files"].items():
        (sandbox.root / path).write_text(text, encoding="utf-8")
    pr["state"] = "merged"
    sandbox.write_state(merged)
    plan = sandbox.reconcile(capsys, "--now", NOW)
    assert {(c["comment_id"], c["decision"]) for c in plan["commands"]} == {(101, "merged"), (104, "merged")}
    assert reactions(sandbox) == [(101, "rocket"), (104, "rocket")]
    assert bot_replies(sandbox) == []
    text = sandbox.snapshot_path.read_text(encoding="utf-8")
    assert in_ledger(text, 101) == 1
    assert in_ledger(text, 104) == 1


def test_a_quiet_comment_deleted_while_its_pr_is_open_stays_proposed_and_droppable(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW)
    state = repo.state()
    state["comments"] = [c for c in state["comments"] if c["id"] != 101]
    state["reactions"] = [r for r in state.get("reactions", []) if r["comment_id"] != 101]
    repo.write_state(state)
    again = repo.reconcile(capsys, "--now", NOW)
    assert pull(again)["operation"] == "none"
    assert in_ledger(proposed(repo), 101) == 1
    repo.add_comment(201, 8325, "maya", "/perf drop 101", at="2026-08-27T11:00:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert open_pull(repo) is None
    repo.reconcile(capsys, "--now", NOW)
    assert open_pull(repo) is None


def test_a_budget_cut_before_the_rocket_then_a_closed_pr_never_refuses_what_was_accepted(sandbox: Repo) -> None:
    """carol's block beside her unclaim is recorded in a reply before the unassignment; a budget that
    stops the run before the 🚀, then a PR closed by hand, leave the block accepted and said once."""
    settings = load_settings(sandbox.config)
    state = json.loads(mixed_state(sandbox))
    state["comments"] = [c for c in state["comments"] if c["id"] == 103]
    path = sandbox.root / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    with backend("offline").open(settings, path, NOW_DT) as port:
        plan = decide(gather.inputs(settings, port.observe(), NOW_DT, max_writes=2))
        executor.apply(plan, port, 2)
    after = json.loads(path.read_text(encoding="utf-8"))
    assert next(i for i in after["issues"] if i["number"] == 9497)["assignees"] == ["carol"]  # the unclaim waits
    assert after.get("reactions", []) == []  # and so does the 🚀
    for record in after["pulls"]:
        record["state"] = "closed"
    path.write_text(json.dumps(after), encoding="utf-8")
    run_on(settings, backend("offline"), path)
    final = json.loads(path.read_text(encoding="utf-8"))
    replies = [c["body"] for c in final["comments"] if c["user"] == "perfbot[bot]" and "command-reply 103" in c["body"]]
    assert len(replies) == 1
    assert "not applied" not in replies[0]
    assert next(i for i in final["issues"] if i["number"] == 9497)["assignees"] == []
    assert in_ledger(next(p for p in final["pulls"] if p["state"] == "open")["files"]["config/snapshot.yaml"], 103) == 1


def test_an_assignees_block_then_her_unclaim_in_another_comment_survive_a_crash_after_any_write(
    sandbox: Repo, adapter: str
) -> None:
    """carol (read, assigned) blocks the packet in one comment and gives it up in the next: the block
    was allowed because she was assigned; the unclaim alone has no record anywhere."""
    settings = load_settings(sandbox.config)
    state = json.loads(mixed_state(sandbox))
    state["comments"] = [
        {"id": 103, "issue": 9497, "user": "carol", "created_at": "2026-08-27T10:03:00Z", "body": BLOCK},
        {
            "id": 109,
            "issue": 9497,
            "user": "carol",
            "created_at": "2026-08-27T10:09:00Z",
            "body": f"/perf unclaim {CUDA}",
        },
    ]
    crash_everywhere(settings, sandbox.root, json.dumps(state, indent=2), backend(adapter))
    final = json.loads((sandbox.root / "clean.json").read_text(encoding="utf-8"))
    (pr,) = final["pulls"]
    assert in_ledger(pr["files"]["config/snapshot.yaml"], 103) == 1
    assert [c for c in final["comments"] if c["user"] == "perfbot[bot]" and "command-reply" in c["body"]] == []


def test_an_assignees_block_then_her_replied_unclaim_survive_a_crash_after_any_write(sandbox: Repo) -> None:
    settings = load_settings(sandbox.config)
    state = json.loads(mixed_state(sandbox))
    state["comments"] = [
        {"id": 103, "issue": 9497, "user": "carol", "created_at": "2026-08-27T10:03:00Z", "body": BLOCK},
        {
            "id": 109,
            "issue": 9497,
            "user": "carol",
            "created_at": "2026-08-27T10:09:00Z",
            "body": f"/perf unclaim {CUDA}\n/perf why {CUDA}",
        },
    ]
    crash_everywhere(settings, sandbox.root, json.dumps(state, indent=2), backend("offline"))


# --- permission lowered before the merge -------------------------------------------------------


def lapsed_notices(repo: Repo) -> list[str]:
    return [
        c["body"] for c in repo.state()["comments"] if c["user"] == "perfbot[bot]" and "perfbot:lapsed " in c["body"]
    ]


@pytest.mark.parametrize("replies", ["errors", "all"])
@pytest.mark.parametrize("lowered_to", ["read", "none"])
def test_a_recorded_change_is_not_replayed_once_its_authors_permission_is_lowered(
    repo: Repo, capsys: pytest.CaptureFixture[str], replies: str, lowered_to: str
) -> None:
    if replies == "all":
        repo.reply_to_all()
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.add_comment(102, 8324, "maya", REVIEW, at="2026-08-27T10:05:00Z")
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    permissions = {"mallory": "read", "maya": "maintain"} | ({"alice": lowered_to} if lowered_to != "none" else {})
    state = repo.state()
    state["permissions"] = permissions
    repo.write_state(state)
    plan = repo.reconcile(capsys, "--now", NOW)
    (line,) = [c for c in plan["commands"] if c["comment_id"] == 101]
    assert line["decision"] == "lapsed"
    assert f"alice now has {lowered_to} permission" in line["reason"]
    assert in_ledger(proposed(repo), 101) == 0
    assert in_ledger(proposed(repo), 102) == 1  # maya's stays
    (notice,) = lapsed_notices(repo)
    assert f"alice now has {lowered_to} permission, and `complete` needs write" in notice
    # Said once, and settled: given write again, the command does not come back unasked.
    state = repo.state()
    state["permissions"] = permissions | {"alice": "write"}
    repo.write_state(state)
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 0
    assert len(lapsed_notices(repo)) == 1


def test_an_assignees_recorded_block_stays_when_she_is_unassigned(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reader's change made as the packet's assignee rests on the assignment, not on a permission:
    it is not checked again when the assignment goes."""
    repo.set_issue(9497, assignees=["mallory"])
    repo.add_comment(101, 9497, "mallory", BLOCK)
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    repo.set_issue(9497, assignees=[])
    repo.reconcile(capsys, "--now", NOW)
    assert in_ledger(proposed(repo), 101) == 1
    assert lapsed_notices(repo) == []
