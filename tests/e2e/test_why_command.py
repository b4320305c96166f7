"""`/perf why PACKET`: anyone may ask; the reply explains the packet from the run's own evidence."""

from __future__ import annotations

import pytest

from tests.support.harness import Repo, comments, pull

NOW = "2026-08-27T18:00:00Z"


def test_why_says_what_must_complete_first(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.add_comment(501, 9230, "reader", "/perf why mac.m2-whole-sequence-prefill")
    plan = sandbox.reconcile(capsys, "--now", NOW)
    (reply,) = [c for c in comments(plan) if c["topic"] == "command-reply"]
    assert reply["issue"] == 9230
    body = reply["body"]
    assert "`mac.m1-streamed-q4k-no-copy` (#8325) completes" in body
    assert "waiting-dependency" in body
    reactions = [(a["comment_id"], a["content"]) for a in plan["actions"] if a["kind"] == "react"]
    # It changes nothing: its reply alone, with no 👀 or 🚀, no PR, no label or link.
    assert reactions == []
    assert pull(plan)["operation"] == "none"
    assert [a["kind"] for a in plan["actions"]] == ["comment", "pull_request"]
    assert "@reader" not in body  # nothing for the asker to fix
    decisions = [(c["comment_id"], c["decision"]) for c in plan["commands"]]
    assert decisions == [(501, "accepted")]


def test_why_an_unknown_packet_is_refused_with_the_closest_ids(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.add_comment(501, 8635, "reader", "/perf why cuda.q8_1-gate")
    plan = sandbox.reconcile(capsys, "--now", NOW)
    (reply,) = [c for c in comments(plan) if c["topic"] == "command-reply"]
    assert "unknown packet `cuda.q8_1-gate`" in reply["body"]
    assert "cuda.q8_1-numerical-gate" in reply["body"]


def test_why_names_the_colliding_lease_and_what_would_free_the_packet(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.add_comment(501, 8635, "reader", "/perf why cuda.q8_1-numerical-gate")
    plan = sandbox.reconcile(capsys, "--now", NOW)
    (reply,) = [c for c in comments(plan) if c["topic"] == "command-reply"]
    body = reply["body"]
    assert "issue-9420-cache-weight-residency" in body
    assert "#9420 releases `internal/compute/**`" in body
    assert "\n::" not in body
