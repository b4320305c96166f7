"""The registry: one spec per verb, consistent with the grammar, and the README table it generates."""

from __future__ import annotations

import pytest

from bot.commands.effects import Answered, Applied, Situation, enact
from bot.commands.reading import parse
from bot.commands.registry import (
    HELP,
    SPECS,
    TABLE_END,
    TABLE_START,
    VERBS,
    command_table,
    spec,
    table_drift,
    with_table,
)
from bot.config import BotConfig
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from tests.support.paths import ROOT
from tests.unit.commands.values import LIMITS, comment

# One valid line per verb, and what it must come to on the seed for a writer.
EXAMPLES = {
    "complete": "/perf complete mac.m1-streamed-q4k-no-copy result: accepted",
    "claim": "/perf claim profile.real-cuda",
    "unclaim": "/perf unclaim profile.real-cuda",
    "state": "/perf state mac.m10-parity-reconvergence capacity-hold",
    "block": "/perf block profile.real-cuda no A100 window",
    "unblock": "/perf unblock cuda.q8_1-numerical-gate",
    "review": "/perf review metal-resident-decode by 2026-09-04",
    "evidence": "/perf evidence metal-resident-decode issue a summary (#1)",
    "exit": "/perf exit laptop-placement met: #9600",
    "why": "/perf why cuda.q8_1-numerical-gate",
    "help": "/perf help",
    "drop": "/perf drop all",
}


def test_there_is_one_spec_and_one_help_line_per_verb_in_the_grammars_order() -> None:
    assert tuple(s.verb for s in SPECS) == VERBS
    assert tuple(HELP) == VERBS
    assert set(EXAMPLES) == set(VERBS)


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_parses_and_its_effect_matches_its_spec(
    verb: str, seed: Snapshot, config: BotConfig, renderer: Renderer
) -> None:
    (command,) = parse(EXAMPLES[verb], "/perf", LIMITS.max_comment_chars, LIMITS.max_argument_chars).commands
    assert command.verb == verb
    entry = spec(command.verb)
    if verb == "unblock":  # the seed has no free-text blocker to clear; give the packet one
        gate = seed.packet(command.target)
        assert gate is not None
        changed = gate.model_copy(update={"blocked_by_condition": "waiting"})
        seed = seed.model_copy(
            update={"work_packets": tuple(changed if p.id == gate.id else p for p in seed.work_packets)}
        )
    situation = Situation(
        seed, config, renderer, {9497: ("carol",)}, {}, frozenset(), explain=lambda s, packet, a: f"about {packet}"
    )
    outcome = enact(entry.effect, situation, command, comment(101, "alice", EXAMPLES[verb]))
    if verb == "why":
        assert outcome == Answered("about cuda.q8_1-numerical-gate")
    if entry.changes_snapshot:
        assert isinstance(outcome, Applied), outcome
        assert outcome.snapshot.ledger[-1].comment_id == 101
    else:
        assert isinstance(outcome, Answered), outcome


def test_a_usage_error_quotes_every_form_of_the_verb() -> None:
    (error,) = parse("/perf drop everything", "/perf", 1000, 100).errors
    assert (
        error.message
        == "expected `all` or comment ids; usage: `/perf drop all` or `/perf drop <comment-id> [<comment-id> ...]`"
    )


def test_the_table_has_a_row_per_verb_with_who_may_use_it() -> None:
    rows = command_table("/x").split("\n")[2:]
    assert len(rows) == len(VERBS)
    by_verb = dict(zip(VERBS, rows, strict=True))
    assert (
        by_verb["claim"]
        == "| `/x claim <packet>` | assign the commenter on the packet's issue | `write`, or the packet's assignee |"
    )
    assert by_verb["drop"].startswith("| `/x drop all` / `/x drop <comment-id> [<comment-id> ...]` |")
    assert by_verb["drop"].endswith("| `maintain` |")


def test_help_replies_with_the_table(config: BotConfig, seed: Snapshot, renderer: Renderer) -> None:
    (command,) = parse("/perf help", "/perf", 1000, 100).commands
    outcome = spec("help").effect(Situation(seed, config, renderer, {}, {}, frozenset()), command, comment(1, "a", ""))
    assert isinstance(outcome, Answered)
    assert command_table(config.commands.prefix) in outcome.text


def test_the_readme_table_is_the_generated_one() -> None:
    """Fails with the diff when README.md's table drifts from the registry. To regenerate:
    python -m bot.commands.registry --readme < README.md > README.md.new && mv README.md.new README.md"""
    drift = table_drift((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not drift, "README.md's commands table differs from the registry:\n" + drift


README = f"intro\n{TABLE_START}\n| old |\n{TABLE_END}\nafter\n"


def test_a_drifted_table_is_reported_as_a_diff_and_regenerated() -> None:
    drift = table_drift(README)
    assert "-| old |" in drift
    assert "+| command | effect | who |" in drift
    fixed = with_table(README)
    assert fixed.startswith(f"intro\n{TABLE_START}\n| command | effect | who |\n")
    assert fixed.endswith(f"\n{TABLE_END}\nafter\n")
    assert table_drift(fixed) == ""


def test_a_readme_without_the_markers_is_reported() -> None:
    assert "no commands table" in table_drift("# README\n")
    assert with_table("# README\n") == "# README\n"


def test_the_table_ends_at_the_first_end_marker_after_its_start() -> None:
    readme = f"{TABLE_END}\nintro\n{TABLE_START}\n| old |\n{TABLE_END}\nafter\n"
    assert with_table(readme) == f"{TABLE_END}\nintro\n{TABLE_START}\n{command_table('/perf')}\n{TABLE_END}\nafter\n"


def test_a_drift_is_a_unified_diff_of_the_readme_against_the_generated_one() -> None:
    lines = table_drift(README).split("\n")
    rows = len(SPECS) + 2
    assert lines[:3] == ["--- README.md", "+++ README.md (generated)", f"@@ -1,6 +1,{rows + 5} @@"]
    assert "-| old |" in lines
