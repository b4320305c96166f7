"""One view in time (issue #45): between a command and the merge of the regeneration PR, every
surface shows the merged record and what waits for the merge, and the comments follow the present.

Through the CLI, offline and against the GitHub double: after `/perf complete` and before the
merge, *Ready now* does not offer the finished packet and *Waiting for merge* lists it with the
PR; a packet made ready by a released lease is told once, before any merge; the completed
packet's dependents are told once, when it merges; the completed packet whose lease went is told
nothing. A packet the open PR recorded as waiting (the default branch still says `ready`) is told
when the evidence makes it ready again. Every run is also held to the one-state walk
(`tests/support/one_state.py`), which holds the pending rule on every surface.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.harness import Repo, comments

NOW = "2026-08-27T18:00:00Z"
M1, M2, METAL = "mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill", "profile.real-metal"
RESIDENCY, GATE = "cuda.cache-weight-residency", "cuda.q8_1-numerical-gate"


def dashboard_on(repo: Repo) -> None:
    text = repo.config.read_text(encoding="utf-8")
    repo.config.write_text(
        text.replace("dashboard:\n  enabled: false", "dashboard:\n  enabled: true"), encoding="utf-8"
    )


def said(plan: dict[str, Any], topic: str) -> list[int]:
    """The issues the run wrote a `topic` comment on."""
    return sorted(c["issue"] for c in comments(plan) if c["topic"] == topic)


def board(repo: Repo) -> str:
    """The dashboard issue's body as it stands after the run."""
    (issue,) = [i for i in repo.state()["issues"] if "perfbot-dashboard" in i.get("labels", [])]
    body: str = issue["body"]
    return body


def section(body: str, heading: str) -> str:
    return body.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]


def open_pull(repo: Repo) -> int:
    (number,) = [p["number"] for p in repo.state()["pulls"] if p.get("state", "open") == "open"]
    return int(number)


def test_a_week_of_commands_before_and_after_the_merge(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    dashboard_on(either)
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", f"/perf complete {M1} result: kept. receipt: #9482")
    either.add_comment(102, 9420, "alice", f"/perf complete {RESIDENCY} result: exact. receipt: #9483")
    (either.root / "config" / "leases.json").write_text("[]\n", encoding="utf-8")  # its owner released it

    first = either.reconcile(capsys, "--now", NOW)
    # The gate, blocked by the residency packet's lease, is ready now the lease is gone: told once,
    # before any merge. The completed residency packet lost its lease on purpose: no lease-lost.
    assert said(first, "packet-ready") == [8635]
    assert said(first, "lease-lost") == []
    ready_now, merging = section(board(either), "Ready now"), section(board(either), "Waiting for merge")
    assert f"`{M1}`" not in ready_now
    assert "claim" not in ready_now.split(f"`{GATE}`")[0]
    assert f"- #8325 `{M1}` `ready` → `complete`" in merging
    # The PR the run opened is named by its number from that run on.
    number = open_pull(either)
    assert f"#{number} records these when it merges" in merging

    second = either.reconcile(capsys, "--now", NOW)
    assert said(second, "packet-ready") == said(second, "lease-lost") == []
    merging = section(board(either), "Waiting for merge")
    assert f"#{number} records these when it merges" in merging
    # The headline counts what the section lists: its state changes and its commands, apart.
    assert f"4 changes and 2 commands waiting for merge in #{number}" in board(either).splitlines()[1]
    assert f"- #8325 `{M1}` `ready` → `complete`" in merging
    assert f"`{M1}`" not in section(board(either), "Ready now")
    status = json.loads(_status(either, capsys))
    assert M1 not in [r["id"] for r in status["ready"]]
    assert (M1, "ready", "complete") in [(r["id"], r["state"], r["becomes"]) for r in status["waiting_for_merge"]]

    either.merge(first)  # the second run left the PR as the first wrote it
    merged = either.reconcile(capsys, "--now", NOW)
    # M1's dependents are told when its completion merges, once; the gate is not told again.
    assert said(merged, "packet-ready") == [9230, 9495]
    assert said(merged, "lease-lost") == []
    again = either.reconcile(capsys, "--now", NOW)
    assert said(again, "packet-ready") == said(again, "lease-lost") == []


def test_ready_is_told_against_the_wait_the_open_pr_recorded(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """The default branch records M1 `ready`; a lease on its paths makes it wait, which the PR
    records and every surface says; the lease is released before any merge: M1 is told it is
    ready, once, though the default branch never recorded the wait."""
    leases = either.root / "config" / "leases.json"
    held = json.loads(leases.read_text(encoding="utf-8"))  # the residency packet's own leases stay
    taken = [
        *held,
        {
            "acquired_at": "2026-08-27T17:30:00Z",
            "holder": "issue-9999-witness-sweep",
            "lane": "docs",
            "loop_ts": "2026-08-27T17:30:00Z",
            "tree": ["docs/_witnesses/**"],
        },
    ]
    leases.write_text(json.dumps(taken), encoding="utf-8")
    waiting = either.reconcile(capsys, "--now", NOW)
    assert next(p for p in waiting["packets"] if p["id"] == M1)["derived_state"] == "waiting-coordination"
    assert said(waiting, "packet-ready") == []
    leases.write_text(json.dumps(held), encoding="utf-8")
    released = either.reconcile(capsys, "--now", NOW)
    # M1 and profile.real-cuda (#9497), whose paths the lease covered too, are told.
    assert said(released, "packet-ready") == [8325, 9497]
    ready = next(c["body"] for c in comments(released) if c["topic"] == "packet-ready" and c["issue"] == 8325)
    assert f"work packet `{M1}`" in ready
    assert said(either.reconcile(capsys, "--now", NOW), "packet-ready") == []
    # The wait comes back and goes again: a new episode, told again.
    leases.write_text(json.dumps(taken), encoding="utf-8")
    either.reconcile(capsys, "--now", NOW)
    leases.write_text(json.dumps(held), encoding="utf-8")
    assert said(either.reconcile(capsys, "--now", NOW), "packet-ready") == [8325, 9497]


def _status(repo: Repo, capsys: pytest.CaptureFixture[str]) -> str:
    from bot.cli import main

    capsys.readouterr()
    argv = ["status", "--json", "--config", str(repo.config), "--now", NOW, "--offline", str(repo.state_path)]
    assert main(argv) == 0
    return capsys.readouterr().out


def test_a_wait_on_a_packet_the_pr_completes_is_marked_pending_in_the_pr(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #45: a packet waiting on M1, which a command in the PR completes, reads as waiting on a
    completion pending in the PR (with its number), not on work still to do."""
    dashboard_on(either)
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(101, 8325, "alice", f"/perf complete {M1} result: kept. receipt: #9482")
    either.reconcile(capsys, "--now", NOW)
    number = open_pull(either)
    waiting = section(board(either), "Waiting")
    assert f"`{M1}` (#8325, `ready`; `complete` when #{number} merges)" in waiting
    either.reconcile(capsys, "--now", NOW)
    assert open_pull(either) == number
    waiting = section(board(either), "Waiting")
    assert f"`{M1}` (#8325, `ready`; `complete` when #{number} merges)" in waiting
    # M2 follows M1 when the PR merges; a dependency the PR does not change reads as before.
    assert f"On `{M2}` (#9230, `waiting-dependency`; `ready` when #{number} merges):" in waiting
    assert "On `mac.m3-q8-gdn-handoff` (#9216, `waiting-dependency`):" in waiting
