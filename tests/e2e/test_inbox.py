"""Commands end to end on the offline engine: answers, effects, exactly once, nothing lost."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.harness import Repo, comments, packet, pull
from tests.support.plaintext import to_html

NOW = "2026-08-27T23:00:00Z"  # before any review is overdue, so only command answers speak
M1 = "mac.m1-streamed-q4k-no-copy"
COMPLETE = f"/perf complete {M1} result: Exact campaign accepted with zero fallback. receipt: #9482"


@pytest.fixture
def repo(sandbox: Repo) -> Repo:
    """Every command comment answered with 👀 and a reply (`commands.replies: all`), whose words
    these tests read; tests/e2e/test_quiet.py holds the default, quiet answers."""
    sandbox.reply_to_all()
    sandbox.edit_state(permissions={"alice": "write", "mallory": "read", "root": "admin", "carol": "triage"})
    return sandbox


def reactions(repo: Repo, comment_id: int) -> list[str]:
    return [r["content"] for r in repo.state().get("reactions", []) if r["comment_id"] == comment_id]


def bot_comments(repo: Repo) -> list[dict[str, Any]]:
    return [c for c in repo.state()["comments"] if c["user"] == "perfbot[bot]"]


def commands(plan: dict[str, Any]) -> list[tuple[int, int, str]]:
    return [(c["comment_id"], c["line"], c["decision"]) for c in plan["commands"]]


def test_complete_by_a_writer(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", "The receipt is in.\n" + COMPLETE)
    plan = repo.reconcile(capsys, "--now", NOW)
    # The answer first (👀 and the reply), then the PR, then 🚀: the write tiers of bot/reconcile/schedule.py.
    assert [a["kind"] for a in plan["actions"]][:4] == ["react", "comment", "pull_request", "react"]
    assert reactions(repo, 101) == ["eyes", "rocket"]
    replies = [c for c in comments(plan) if c["topic"] == "command-reply"]
    assert len(replies) == 1
    assert replies[0]["issue"] == 8325
    # The change waits in the PR: said as pending, not applied; nothing to fix, so no @-mention.
    assert (
        "pending in perfbot's pull request until it merges: completed `mac.m1-streamed-q4k-no-copy`"
        in replies[0]["body"]
    )
    assert "@alice" not in replies[0]["body"]
    # Ready nudges rest on merged evidence: none while the completion is only proposed.
    assert [c for c in comments(plan) if c["topic"] == "packet-ready"] == []
    assert plan["commands"] == [
        {
            "comment_id": 101,
            "issue": 8325,
            "author": "alice",
            "line": 2,
            "text": COMPLETE,
            "parsed": {
                "verb": "complete",
                "target": M1,
                "result": "Exact campaign accepted with zero fallback.",
                "receipt": 9482,
            },
            "decision": "accepted",
            "reason": "completed `mac.m1-streamed-q4k-no-copy` (receipt #9482)",
        }
    ]
    files = pull(plan)["files"]
    row = next(
        line
        for line in files["docs/current-constraints.md"].splitlines()
        if f"`{M1}`" in line and line.startswith("| 1 /")
    )
    assert row == (
        f"| 1 / `{M1}` — M1 no-copy streamed Q4_K keep/reject receipt<br>#8325/#9482 | `mac-top10` | "
        "`complete`<br>Owner: accepted receipt #9482<br>Lane: `hardware+docs` | — | "
        "**Result:** Exact campaign accepted with zero fallback.<br>**Exit:** The landed no-copy mechanism earns M1 KEEP "
        "from a safe exact end-to-end memory/performance receipt, or is rejected and replaced without KEEP credit. |"
    )
    snapshot = files["config/snapshot.yaml"]
    assert "ledger:\n  - comment_id: 101\n    line: 2\n    issue: 8325\n    author: alice\n" in snapshot
    assert "Satisfied: `mac.m1-streamed-q4k-no-copy`" in files["docs/current-constraints.md"]
    assert (
        "completed `mac.m1-streamed-q4k-no-copy` (receipt #9482) — alice in anthony-chaudhary/fak#8325 (comment 101)"
        in pull(plan)["body"]
    )
    repo.merge(plan)
    merged = repo.reconcile(capsys, "--now", NOW)
    assert sorted(c["issue"] for c in comments(merged) if c["topic"] == "packet-ready") == [9230, 9495]
    nudge = next(c for c in comments(merged) if c["issue"] == 9230)["body"]
    assert f"- hard dependencies met: `{M1}`\n" in nudge


def test_the_same_command_from_a_reader_is_refused(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "mallory", COMPLETE)
    plan = repo.reconcile(capsys, "--now", NOW)
    assert reactions(repo, 101) == ["eyes", "confused"]
    (reply,) = comments(plan)
    assert "not applied: `complete` needs write permission; mallory has read" in reply["body"]
    assert pull(plan)["operation"] == "none"
    assert commands(plan) == [(101, 1, "refused")]


def test_replay_unmerged_pr_then_merge(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    first = repo.reconcile(capsys, "--now", NOW)
    assert pull(first)["operation"] == "create"
    again = repo.reconcile(capsys, "--now", NOW)
    assert [a for a in again["actions"] if a["kind"] != "pull_request"] == []
    assert pull(again)["operation"] == "none"
    assert commands(again) == [(101, 1, "replayed")]

    # Ids above the bot's own replies (the state file numbers those next): GitHub never reuses one.
    repo.add_comment(110, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04", at="2026-08-27T11:00:00Z")
    both = repo.reconcile(capsys, "--now", NOW)
    assert pull(both)["operation"] == "update"
    snapshot = pull(both)["files"]["config/snapshot.yaml"]
    assert "comment_id: 101" in snapshot
    assert "comment_id: 110" in snapshot
    assert "review_by: 2026-09-04" in snapshot
    repo.merge(both)
    merged = repo.reconcile(capsys, "--now", NOW)
    assert pull(merged)["operation"] == "none"
    # The merged completion makes M1's dependents ready: now, and only now, they are told, and the
    # links M1 satisfied go (the programs' records say so).
    assert sorted((c["topic"], c["issue"]) for c in comments(merged) if c["topic"] != "native-links") == [
        ("packet-ready", 9230),
        ("packet-ready", 9495),
    ]
    assert {a["issue"] for a in merged["actions"] if a["kind"] == "link"} == {9230, 9430, 9495}
    assert [d for _, _, d in commands(merged)] == ["merged", "merged"]
    quiet = repo.reconcile(capsys, "--now", NOW)
    assert pull(quiet)["operation"] == "none"
    assert comments(quiet) == []


def test_a_review_ends_the_overdue_nudges(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    nudged = repo.reconcile(capsys, "--now", "2026-08-29T09:00:00Z")
    assert sorted(c["issue"] for c in comments(nudged)) == [8324, 9420]
    repo.add_comment(150, 9420, "alice", "/perf review active-native-lane-collision", at="2026-08-29T10:00:00Z")
    plan = repo.reconcile(capsys, "--now", "2026-08-30T09:00:00Z")
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert "    observed_at: 2026-08-29\n    review_by: 2026-09-05\n" in snapshot
    assert [c["topic"] for c in comments(plan) if c["issue"] == 9420] == ["command-reply"]


def test_claim_assigns_the_commenter_and_updates_the_owner(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 9497, "alice", "/perf claim profile.real-cuda")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert {"kind": "assign", "issue": 9497, "login": "alice", "add": True} in plan["actions"]
    assert next(i for i in repo.state()["issues"] if i["number"] == 9497)["assignees"] == ["alice"]
    assert packet(plan, "profile.real-cuda")["derived_owner"] == "alice"
    again = repo.reconcile(capsys, "--now", NOW)
    assert [a["kind"] for a in again["actions"]] == ["pull_request"]


def test_assignee_without_write_may_block_their_packet(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.set_issue(9497, assignees=["carol"])
    repo.add_comment(101, 9497, "carol", "/perf block profile.real-cuda waiting for an A100 window")
    repo.add_comment(102, 9497, "carol", "/perf state profile.real-cuda capacity-hold", at="2026-08-27T10:05:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "accepted"), (102, 1, "refused")]
    assert packet(plan, "profile.real-cuda")["derived_state"] == "waiting-coordination"


def test_help_replies_with_the_grammar(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 9497, "someone", "/perf help")
    (reply,) = comments(repo.reconcile(capsys, "--now", NOW))
    assert "| `/perf complete <packet> result: <text> [receipt: #N]` |" in reply["body"]
    assert reactions(repo, 101) == ["eyes"]  # an answer: its reply is all of it, no 🚀


def test_a_comment_without_a_command_runs_in_full_and_answers_nothing(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped workflow starts a run only for a body that contains `/perf`; a plain comment that
    starts one anyway (another workflow, a person's run) is a full reconcile like any other event."""
    before = either.reconcile(capsys, "--now", NOW, dry_run=True)
    either.add_comment(101, 8325, "alice", "thanks!")
    event = either.root / "event.json"
    author = {"login": "alice", "type": "User"}
    payload = {
        "action": "created",
        "issue": {"number": 8325},
        "comment": {"id": 101, "body": "thanks!", "user": author},
    }
    event.write_text(json.dumps({**payload, "sender": author}), encoding="utf-8")
    plan = either.reconcile(capsys, "--now", NOW, "--event-name", "issue_comment", "--event-path", str(event))
    trigger = plan.pop("trigger")  # its fields: tests/e2e/test_offline.py
    assert (trigger["event"], trigger["comment_id"]) == ("issue_comment", 101)
    assert plan["commands"] == []
    assert [a["kind"] for a in plan["actions"]] == ["pull_request"]  # the page's PR, as without the comment
    assert before.pop("trigger") is None
    assert plan == before  # the plain comment changed nothing that was decided
    assert reactions(either, 101) == []


def test_exit_retires_only_an_unreferenced_constraint(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8971, "alice", "/perf exit laptop-placement met: #9600")
    repo.add_comment(102, 8635, "alice", "/perf exit cuda-cold-decode met: #9601", at="2026-08-27T10:01:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "accepted"), (102, 1, "refused")]
    refusal = next(c for c in plan["commands"] if c["comment_id"] == 102)["reason"]
    assert refusal.startswith(
        "`cuda-cold-decode` is still referenced by program `cuda-cold-decode`, packet `cuda.q8_1-numerical-gate`"
    )
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert (
        "retired_constraints:\n  - id: laptop-placement\n    name: 36 GiB laptop placement\n    retired_on: 2026-08-27\n    ref: '#9600'\n"
        in snapshot
    )
    assert "`laptop-placement` —" not in pull(plan)["files"]["docs/current-constraints.md"]


def test_evidence_and_state_and_unblock(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    body = "\n".join(
        [
            "/perf evidence cuda-cold-decode accepted A rerun held 12.0 tok/s (docs/_witnesses/rerun.json)",
            "/perf state mac.m5-exact-p32t64-receipt waiting-evidence reason: awaiting the node",
            "/perf unblock mac.m1-streamed-q4k-no-copy",
        ]
    )
    repo.add_comment(101, 8635, "alice", body)
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "accepted"), (101, 2, "accepted"), (101, 3, "refused")]
    assert reactions(repo, 101) == ["eyes", "rocket", "confused"]
    page = pull(plan)["files"]["docs/current-constraints.md"]
    assert "[accepted] A rerun held 12.0 tok/s (`docs/_witnesses/rerun.json`)<br>Owner: issue #8635" in page
    assert "| `waiting-evidence`<br>Owner: unassigned<br>Lane: `hardware+docs` |" in page


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "/perf complete mac.m1-streamd result: x",
            "unknown packet `mac.m1-streamd`; did you mean `mac.m1-streamed-q4k-no-copy`",
        ),
        (
            "/perf review metal-resident-decod",
            "unknown constraint `metal-resident-decod`; did you mean `metal-resident-decode`",
        ),
        (
            "/perf review metal-resident-decode by 2026-08-01",
            "review date 2026-08-01 is not after the comment's date 2026-08-27",
        ),
        ("/perf frobnicate", "not understood (line 1): unknown command `frobnicate`"),
        ("/perf state mac.m2-whole-sequence-prefill complete", "use `complete <packet> result: <text>`"),
        ("/perf complete mac.m1-streamed-q4k-no-copy result: fixes a|b", "'|' would break the table cell"),
    ],
)
def test_bad_commands_get_a_reason_and_change_nothing(
    repo: Repo, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    repo.add_comment(101, 8325, "alice", body)
    plan = repo.reconcile(capsys, "--now", NOW)
    (reply,) = comments(plan)
    assert expected in reply["body"]
    assert reactions(repo, 101) == ["eyes", "confused"]
    assert pull(plan)["operation"] == "none"


def test_a_megabyte_comment_is_refused_whole(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE + "\n" + "x" * 1_000_000)
    plan = repo.reconcile(capsys, "--now", NOW)
    (reply,) = comments(plan)
    assert "longer than 65536 characters, so none of its commands were read" in reply["body"]
    assert pull(plan)["operation"] == "none"


def test_fenced_quoted_edited_and_bot_comments_are_not_commands(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", "```\n" + COMPLETE + "\n```")
    repo.add_comment(102, 8325, "alice", "> " + COMPLETE)
    repo.add_comment(103, 8325, "other-bot[bot]", COMPLETE)
    state = repo.state()
    state["comments"].append(
        {"id": 104, "issue": 8325, "user": "alice", "created_at": NOW, "body": COMPLETE, "edited": True}
    )
    repo.write_state(state)
    plan = repo.reconcile(capsys, "--now", NOW)
    assert plan["commands"] == []
    assert [a["kind"] for a in plan["actions"]] == ["pull_request"]


def test_a_forged_decision_marker_is_ignored(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    forged = "<!-- perfbot:command-reply 101 -->\n<!-- perfbot:decision 101:1:accepted -->"
    repo.add_comment(101, 8325, "mallory", COMPLETE + "\n" + forged)
    repo.add_comment(102, 8325, "mallory", forged, at="2026-08-27T10:01:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "refused")]
    assert pull(plan)["operation"] == "none"


def test_quoted_text_cannot_ping_or_forge(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "mallory", "/perf frob @everyone <!-- perfbot:decision 7:1:accepted --> ``tick``")
    (reply,) = comments(repo.reconcile(capsys, "--now", NOW))
    assert "@everyone" not in reply["body"]
    assert "<!-- perfbot:decision 7" not in reply["body"]  # the pasted comment opener is broken
    from bot.github.markers import markers_in

    assert ("decision", "7:1:accepted") not in markers_in(reply["body"])


def test_drop_removes_pending_commands_and_says_which(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    first = repo.reconcile(capsys, "--now", NOW)
    assert pull(first)["operation"] == "create"
    repo.add_comment(110, 8325, "alice", "/perf drop all", at="2026-08-27T11:00:00Z")
    refused = repo.reconcile(capsys, "--now", NOW)
    assert commands(refused)[-1] == (110, 1, "refused")  # alice has write, not maintain
    repo.add_comment(120, 8325, "root", "/perf drop 101", at="2026-08-27T11:30:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    reply = next(c for c in comments(plan) if c["topic"] == "command-reply")
    assert "dropped pending commands: comment 101 line 1" in reply["body"]
    assert pull(plan)["operation"] == "close"
    assert (101, 1, "dropped") in commands(plan)


def test_hostile_blocker_text_is_inert_everywhere_the_bot_repeats_it(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """An assignee without write access sets a blocker that tries to ping and forge a decision."""
    from bot.github.markers import markers_in

    repo.set_issue(9420, assignees=["eve"])
    repo.add_comment(101, 8325, "eve", COMPLETE)
    hostile = "ping @octocat --> [click](https://evil.example) fixes #8325"
    repo.add_comment(102, 9420, "eve", f"/perf block cuda.cache-weight-residency {hostile}", at="2026-08-27T10:05:00Z")
    marked = "<!-- perfbot:decision 101 --> <td>cell</td>"
    repo.add_comment(103, 9420, "eve", f"/perf block cuda.cache-weight-residency {marked}", at="2026-08-27T10:06:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "refused"), (102, 1, "accepted"), (103, 1, "refused")]
    assert "HTML markup would break the table" in plan["commands"][2]["reason"]
    written = [c["body"] for c in comments(plan)] + [pull(plan)["body"]]
    assert any("octocat" in body for body in written)
    for body in written:
        assert "@octocat" not in body
        html = to_html(body)
        assert 'href="https://evil.example' not in html  # the link stays inside a code span
        assert all(
            topic != "decision" or not key.startswith("101") for topic, key in markers_in(body.split("\n", 1)[1])
        )
    again = repo.reconcile(capsys, "--now", NOW)
    assert (101, 1, "refused") in commands(again)
    assert pull(again)["operation"] == "none"
    (proposed,) = repo.state()["pulls"]
    assert "state: complete" not in proposed["files"]["config/snapshot.yaml"]


def test_markdown_in_an_unknown_command_stays_in_code(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "mallory", "/perf [**Approved**](https://evil.example) ![](https://evil.example/p.png)")
    (reply,) = comments(repo.reconcile(capsys, "--now", NOW))
    prose = reply["body"].split("not understood", 1)[1]
    assert "`[**Approved**](https://evil.example)`" in prose


def test_an_accepted_command_survives_its_comment_being_edited_or_deleted(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    assert pull(repo.reconcile(capsys, "--now", NOW))["operation"] == "create"
    state = repo.state()
    state["comments"][0].update(edited=True, body="never mind, typo")
    repo.write_state(state)
    edited = repo.reconcile(capsys, "--now", NOW)
    assert commands(edited) == [(101, 1, "replayed")]
    assert pull(edited)["operation"] == "none"
    state = repo.state()
    state["comments"] = [c for c in state["comments"] if c["id"] != 101]
    repo.write_state(state)
    deleted = repo.reconcile(capsys, "--now", NOW)
    assert commands(deleted) == [(101, 1, "replayed")]
    assert pull(deleted)["operation"] == "none"
    assert [a for a in deleted["actions"] if a["kind"] != "pull_request"] == []


def test_a_lapsed_command_is_final(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    m5 = "mac.m5-exact-p32t64-receipt"
    repo.add_comment(101, 9430, "alice", f"/perf state {m5} waiting-evidence")
    repo.reconcile(capsys, "--now", NOW)
    repo.edit_snapshot("    state: capacity-hold\n", "    state: waiting-evidence\n")  # done by hand meanwhile
    lapsed = repo.reconcile(capsys, "--now", NOW)
    assert commands(lapsed) == [(101, 1, "lapsed")]
    assert [c["topic"] for c in comments(lapsed)] == ["command-lapsed"]
    repo.edit_snapshot(
        "    state: waiting-evidence\n    owner: unassigned\n    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    hard_dependency_ids: [mac.m1",
        "    state: capacity-hold\n    owner: unassigned\n    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    hard_dependency_ids: [mac.m1",
    )
    later = repo.reconcile(capsys, "--now", NOW)
    assert commands(later) == [(101, 1, "lapsed")]
    assert comments(later) == []
    assert pull(later)["operation"] in ("none", "close")


def test_lease_lost_is_said_only_when_the_lease_is_gone(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.set_issue(9420, assignees=["alice"])
    repo.add_comment(101, 9420, "alice", "/perf block cuda.cache-weight-residency waiting on a reviewer")
    plan = repo.reconcile(capsys, "--now", NOW)
    from tests.support.harness import packet

    assert packet(plan, "cuda.cache-weight-residency")["derived_state"] == "waiting-coordination"
    assert [c["topic"] for c in comments(plan)] == ["command-reply"]


def test_unblock_needs_write_and_complete_packets_cannot_be_blocked(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.set_issue(9497, assignees=["carol"])
    repo.edit_snapshot(
        "    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    next_action: 'Assign #9497",
        "    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    blocked_by_condition: no A100\n    next_action: 'Assign #9497",
    )
    repo.add_comment(101, 9497, "carol", "/perf unblock profile.real-cuda")
    repo.add_comment(102, 8325, "alice", COMPLETE, at="2026-08-27T10:01:00Z")
    repo.add_comment(103, 8325, "alice", f"/perf block {M1} nothing", at="2026-08-27T10:02:00Z")
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "refused"), (102, 1, "accepted"), (103, 1, "refused")]
    assert "`unblock` needs write permission; carol has triage" in plan["commands"][0]["reason"]
    assert "is complete; nothing can block it" in plan["commands"][2]["reason"]


def test_a_comment_flood_does_not_starve_the_pr(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    for n in range(20):
        repo.add_comment(200 + n, 9497, "mallory", "/perf help", at=f"2026-08-27T09:{n:02d}:00Z")
    repo.add_comment(300, 8325, "alice", COMPLETE)
    plan = repo.reconcile(capsys, "--now", NOW, "--max-writes", "25")
    assert len(repo.state().get("pulls", [])) == 1
    answered = {c["comment_id"] for c in plan["commands"]}
    assert answered == {200, 201, 202, 203, 204, 300}  # five per person per run; the rest wait
    later = repo.reconcile(capsys, "--now", NOW)
    assert {c["comment_id"] for c in later["commands"]} >= {205, 206, 207, 208, 209}


def test_the_pr_waits_for_the_replies_it_depends_on(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.reconcile(capsys, "--now", NOW, "--max-writes", "1")  # only the eyes reaction fits
    assert repo.state().get("pulls", []) == []
    repo.reconcile(capsys, "--now", NOW)
    assert len(repo.state()["pulls"]) == 1


def test_naive_comment_times_are_a_clear_error(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    repo.add_comment(101, 8325, "alice", "/perf help", at="2026-08-27T10:00:00")
    repo.add_comment(102, 8325, "alice", "/perf help", at="2026-08-27T10:00:00Z")
    assert main(["reconcile", "--config", str(repo.config), "--offline", str(repo.state_path)]) == 1
    # The example state's first three comments are perfbot's records of its links.
    assert "comments.3.created_at: Input should have timezone info" in capsys.readouterr().err


def test_a_merged_command_whose_reply_vanished_is_answered_not_reapplied(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.add_comment(101, 8325, "alice", COMPLETE)
    repo.merge(repo.reconcile(capsys, "--now", NOW))
    state = repo.state()
    state["comments"] = [c for c in state["comments"] if "command-reply" not in c["body"]]
    state["reactions"] = []
    repo.write_state(state)
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "merged")]
    (reply,) = [c for c in comments(plan) if c["topic"] == "command-reply"]
    assert "applied: applied and merged earlier" in reply["body"]
    assert reactions(repo, 101) == ["eyes", "rocket"]
    assert pull(plan)["operation"] == "none"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("\n".join(["/perf help"] * 21), "more than 20 commands"),
        ("\n".join(f"/perf block profile.real-cuda {'é' * 900}" for _ in range(8)), "too long to answer and record"),
    ],
)
def test_comments_too_big_to_record_are_refused_whole(
    repo: Repo, capsys: pytest.CaptureFixture[str], body: str, why: str
) -> None:
    repo.add_comment(101, 9497, "alice", body)
    plan = repo.reconcile(capsys, "--now", NOW)
    (reply,) = comments(plan)
    assert why in reply["body"]
    assert len(reply["body"]) < 2000
    assert pull(plan)["operation"] == "none"


def test_odd_but_valid_input_is_answered_not_a_traceback(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    state = repo.state()
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "alice", "created_at": "2026-08-27T10:00:00Z", "body": "/perf help \ud800"},
        {
            "id": 102,
            "issue": 8324,
            "user": "alice",
            "created_at": "9999-12-30T10:00:00Z",
            "body": "/perf review metal-resident-decode",
        },
    ]
    repo.state_path.write_text(json.dumps(state), encoding="utf-8")  # keeps the lone surrogate escaped
    plan = repo.reconcile(capsys, "--now", NOW)
    assert commands(plan) == [(101, 1, "accepted"), (102, 1, "refused")]
    assert "no review date can follow 9999-12-30" in plan["commands"][1]["reason"]


def test_an_issue_number_given_as_text_is_a_clear_error(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    state = repo.state()
    state["issues"][0]["number"] = str(state["issues"][0]["number"])
    repo.write_state(state)
    assert main(["reconcile", "--config", str(repo.config), "--offline", str(repo.state_path)]) == 1
    assert "issues.0.number: Input should be a valid integer" in capsys.readouterr().err
