"""The proposal rule: a PR proposes only a snapshot text that reloads to the decided snapshot and validates."""

from __future__ import annotations

from bot.reconcile.proposal import refusal
from bot.snapshot.model import Snapshot
from bot.snapshot.store import parse_model
from tests.support.paths import ROOT

SEED = (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8")
FILE = "config/snapshot.yaml"


def model(text: str) -> Snapshot:
    return parse_model(text, FILE, Snapshot).model


def test_a_text_that_reloads_to_the_decided_snapshot_may_be_proposed() -> None:
    assert refusal(SEED, FILE, model(SEED)) == ""


def test_a_text_that_reloads_to_another_snapshot_is_refused_naming_where() -> None:
    other = SEED.replace("name: M1 no-copy", "name: M1 copied", 1)
    assert "would reload differently" in refusal(other, FILE, model(SEED))
    assert "work_packets.1.name" in refusal(other, FILE, model(SEED))


def test_an_invalid_snapshot_is_refused_unless_the_caller_validated_it_already() -> None:
    broken = SEED.replace("name: M1 no-copy", "name: M1 | no-copy", 1)
    assert "would be invalid" in refusal(broken, FILE, model(broken))
    # `decide` validates what it proposes and stops on a finding: the rule does not pay twice.
    assert refusal(broken, FILE, model(broken), intended_valid=True) == ""
