"""Why a kept link went: one cause per link, read from the default branch's snapshot and the merged one."""

from __future__ import annotations

from typing import Any

from bot.reconcile.labels_and_links import Cause, cause_of
from bot.snapshot.model import Snapshot
from bot.snapshot.store import parse_model
from tests.support.paths import ROOT

SEED = parse_model((ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8"), "seed", Snapshot).model
M1, M2 = "mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill"
M5, M6, M8 = "mac.m5-exact-p32t64-receipt", "mac.m6-paged-hybrid-state", "mac.m8-chunked-prefill"
ON_8395 = ("mac.m6-paged-hybrid-state", "mac.m7-prefix-reuse", M8, "mac.m9-resident-cobatching")
GATE, RESIDENCY = "cuda.q8_1-numerical-gate", "cuda.cache-weight-residency"


def changed(snapshot: Snapshot, packet: str, **update: Any) -> Snapshot:
    packets = tuple(p.model_copy(update=update) if p.id == packet else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def test_a_dependency_met_is_named_with_the_packet_that_waited() -> None:
    following = changed(SEED, M2, hard_dependency_ids=(), satisfied_dependency_ids=(M1,))
    assert cause_of(("blocked_by", 9230, 8325), SEED, following) == Cause("dependency-met", M2, M1)


def test_a_blocker_cleared_by_a_released_lease_is_named() -> None:
    following = changed(SEED, GATE, blocked_by_ids=())
    assert cause_of(("blocked_by", 8635, 9420), SEED, following) == Cause("lease-released", GATE, RESIDENCY)


def test_a_complete_packet_keeps_no_link() -> None:
    following = changed(SEED, M2, state="complete")
    assert cause_of(("blocked_by", 9230, 8325), SEED, following) == Cause("packet-complete", M2, M1)


def test_a_dependency_the_snapshot_no_longer_names() -> None:
    base = changed(SEED, M2, hard_dependency_ids=())
    assert cause_of(("blocked_by", 9230, 8325), base, base) == Cause("not-implied")
    # Named by the default branch, gone from the merged state for no reason the evidence gives.
    assert cause_of(("blocked_by", 9230, 8325), SEED, base) == Cause("not-implied", M2, M1)


def test_a_link_the_snapshot_still_implies_was_not_kept_for_a_reason_the_notes_give() -> None:
    assert cause_of(("blocked_by", 9230, 8325), SEED, SEED) == Cause("not-kept", M2, M1)
    assert cause_of(("sub_issue", 9230, 9430), SEED, SEED) == Cause("not-kept", M2)


def test_a_packet_moved_to_another_program_leaves_the_old_umbrella() -> None:
    following = changed(SEED, M2, program_id="cuda-cold-decode")
    assert cause_of(("sub_issue", 9230, 9430), SEED, following) == Cause("moved", M2, "cuda-cold-decode")


def test_an_issue_no_packet_is_on_any_more() -> None:
    following = SEED.model_copy(update={"work_packets": tuple(p for p in SEED.work_packets if p.issue != 9230)})
    assert cause_of(("sub_issue", 9230, 9430), SEED, following) == Cause("not-implied")


def test_among_packets_of_one_issue_the_one_with_a_cause_names_it() -> None:
    """#8395 carries m6-m9; m6, m8 and m9 wait on m5 (#9430). m8's dependency met is the cause,
    though m6, listed first, still waits."""
    following = changed(SEED, M8, hard_dependency_ids=(), satisfied_dependency_ids=(M5,))
    assert cause_of(("blocked_by", 8395, 9430), SEED, following) == Cause("dependency-met", M8, M5)
    assert cause_of(("blocked_by", 8395, 9430), SEED, SEED) == Cause("not-kept", M6, M5)


def test_a_packet_the_merged_state_lacks() -> None:
    following = SEED.model_copy(update={"work_packets": tuple(p for p in SEED.work_packets if p.id != M2)})
    assert cause_of(("blocked_by", 9230, 8325), SEED, following) == Cause("not-implied", M2, M1)


def test_an_issue_leaves_the_umbrella_only_when_every_packet_on_it_moved() -> None:
    one = changed(SEED, M6, program_id="cuda-cold-decode")
    assert cause_of(("sub_issue", 8395, 9430), SEED, one) == Cause("not-kept", M6)
    every = one
    for packet in ON_8395[1:]:
        every = changed(every, packet, program_id="cuda-cold-decode")
    assert cause_of(("sub_issue", 8395, 9430), SEED, every) == Cause("moved", M6, "cuda-cold-decode")
