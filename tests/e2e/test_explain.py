"""`perfbot explain`: the done-when checks of issue #11 and each kind of evidence, through the CLI."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Settings
from bot.errors import BotError
from bot.evidence.explain import explain
from bot.github.offline import OfflineGitHub
from bot.reconcile import gather
from bot.reconcile.view import view
from tests.support.harness import Repo
from tests.support.paths import ROOT

SEED_DAY = "2026-08-27T18:00:00Z"
HOLDER = "issue-9420-cache-weight-residency"


def run(sandbox: Repo, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    argv = ["explain", *args, "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main([*argv, "--now", SEED_DAY]) == 0
    return capsys.readouterr().out


def test_the_gate_names_the_lease_holder_lane_path_and_issue(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(sandbox, capsys, "cuda.q8_1-numerical-gate")
    assert out.startswith("`cuda.q8_1-numerical-gate` (Q8_1 activation numerical gate, #8635) is recorded as ")
    assert "`waiting-coordination`; the evidence agrees: `waiting-coordination`." in out
    lease = next(line for line in out.splitlines() if line.startswith("- The live lease of"))
    assert f"`{HOLDER}` (lane `compute`, on `internal/compute/**`)" in lease
    assert "its path `internal/compute/cuda*` meets `internal/compute/**`" in lease
    assert "saw it 1 h 35 min ago (2026-08-27T16:24:05Z)" in lease
    assert "stale but still counted" in lease
    assert "lane `model`" not in out  # internal/model/** never overlaps the gate's paths
    assert "- It is blocked by `cuda.cache-weight-residency` (#9420, `running`), which still holds" in out
    assert "- Issue #8635 is unassigned." in out
    assert out.endswith(
        f"It becomes ready when:\n- #9420 releases `internal/compute/**` (lane `compute`, holder `{HOLDER}`).\n"
    )


def test_with_both_leases_released_the_gate_is_ready(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "released.json"
    empty.write_text("[]\n", encoding="utf-8")
    out = run(sandbox, capsys, "cuda.q8_1-numerical-gate", "--leases", str(empty))
    assert "is recorded as `waiting-coordination`; the evidence says `ready`." in out
    assert "no longer holds an overlapping lease, so the next update drops it" in out
    assert "It is ready: nothing blocks it. Claim it with `/perf claim cuda.q8_1-numerical-gate`" in out
    assert "live lease of" not in out
    assert "It becomes ready when" not in out


def test_m2_waits_for_m1_to_complete(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(sandbox, capsys, "mac.m2-whole-sequence-prefill")
    assert "- Hard dependency `mac.m1-streamed-q4k-no-copy` (#8325, owner unassigned) is `ready`, not complete." in out
    assert out.endswith("It becomes ready when:\n- `mac.m1-streamed-q4k-no-copy` (#8325) completes.\n")


def test_the_missing_events_cover_leases_behind_dependencies(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """dp4a waits on the gate, and once the gate completes #9420's compute lease still overlaps it."""
    out = run(sandbox, capsys, "cuda.dp4a-q4k-mmvq")
    assert out.endswith(
        "It becomes ready when:\n"
        "- `cuda.q8_1-numerical-gate` (#8635) completes;\n"
        f"- #9420 releases `internal/compute/**` (lane `compute`, holder `{HOLDER}`).\n"
    )


def test_decisions_conditions_running_and_assignees(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    gate = run(sandbox, capsys, "profile.returned-receipt-gate")
    assert "`waiting-evidence` is a person's decision; evidence does not change it." in gate
    assert "- a person lifts `waiting-evidence` (`/perf state profile.returned-receipt-gate <state>`);" in gate
    running = run(sandbox, capsys, "cuda.cache-weight-residency")
    assert (
        "- Issue #9420 is assigned to anthony-chaudhary, and it holds live leases on lane `model`, `compute`."
        in running
    )
    assert running.endswith("It is running: its issue is assigned and holds its own live lease.\n")
    sandbox.edit_snapshot(
        "    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n",
        "    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    blocked_by_condition: exclusive `M3 Pro` window\n",
    )
    sandbox.set_issue(8325, assignees=["@alice"])
    blocked = run(sandbox, capsys, "mac.m1-streamed-q4k-no-copy")
    assert "- It is blocked by a condition: ``exclusive `M3 Pro` window``." in blocked
    assert "- Issue #8325 is assigned to @\u200balice; no live lease is held for it." in blocked
    assert blocked.endswith(
        "It becomes ready when:\n- the condition clears (`/perf unblock mac.m1-streamed-q4k-no-copy`).\n"
    )


def test_an_unobserved_issue_and_an_unknown_packet(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    state = sandbox.state()
    state["issues"] = [i for i in state["issues"] if i["number"] != 9230]
    sandbox.write_state(state)
    out = run(sandbox, capsys, "mac.m2-whole-sequence-prefill")
    assert "- Issue #9230 was not observed, so the recorded state stands." in out
    assert out.endswith(
        "It becomes ready when:\n- `mac.m1-streamed-q4k-no-copy` (#8325) completes;\n- issue #9230 is observed.\n"
    )
    argv = ["explain", "cuda.q8_1-gate", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main(argv) == 1
    assert (
        capsys.readouterr().err
        == "no work packet 'cuda.q8_1-gate' in the snapshot; did you mean cuda.q8_1-numerical-gate?\n"
    )


def test_explain_without_offline_reads_github_and_needs_a_token(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "mac.m1-streamed-q4k-no-copy", "--config", str(sandbox.config)], environ={}) == 1
    assert (
        capsys.readouterr().err == "GITHUB_TOKEN is not set: a live run needs a token (or use --offline STATE.json)\n"
    )


def test_the_missing_events_are_enough_for_every_seed_packet(settings: Settings) -> None:
    """Applying the listed events makes each waiting packet derive ready: asked of the derivation itself."""
    now = dt.datetime(2026, 8, 27, 18, tzinfo=dt.UTC)
    observed = OfflineGitHub.open(ROOT / "examples" / "offline-state.json", now).observed
    seen = view(gather.inputs(settings, observed, now))
    for packet in seen.snapshot.work_packets:
        found = explain(packet.id, seen.snapshot, seen.derivations, seen.evidence, now)
        if packet.state == "complete":
            assert found.missing == ()
            continue
        assert found.reachable, packet.id
        runnable = found.derivation.derived_state in ("ready", "running")
        assert (found.missing == ()) == runnable, packet.id
        completes = [e.subject for e in found.missing if e.kind == "complete"]
        assert completes == [d for d in packet.hard_dependency_ids if d in completes]
    with pytest.raises(BotError, match="no work packet"):
        explain("nope", seen.snapshot, seen.derivations, seen.evidence, now)


def test_a_completed_dependency_makes_the_dependent_ready(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    text = sandbox.snapshot_path.read_text(encoding="utf-8")
    start = text.index("  - id: mac.m1-streamed-q4k-no-copy\n")
    end = text.index("  - id: mac.m2-whole-sequence-prefill\n")
    block = text[start:end].replace("    state: ready\n", "    state: complete\n    result: M1 KEEP 1/10\n")
    block = "".join(line for line in block.splitlines(keepends=True) if not line.startswith("    next_action:"))
    sandbox.snapshot_path.write_text(text[:start] + block + text[end:], encoding="utf-8")
    done = run(sandbox, capsys, "mac.m1-streamed-q4k-no-copy")
    assert done.endswith("is recorded as `complete`; the evidence agrees: `complete`.\nIt is complete: M1 KEEP 1/10\n")
    m2 = run(sandbox, capsys, "mac.m2-whole-sequence-prefill")
    assert "recorded as `waiting-dependency`; the evidence says `ready`." in m2
    assert "- Hard dependency `mac.m1-streamed-q4k-no-copy` (#8325, owner unassigned) is `complete`." in m2
    assert "It becomes ready when" not in m2
