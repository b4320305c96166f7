"""What the regeneration PR changes, read from the two snapshots (bot.reconcile.changes)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.evidence.derive import Derivation, Reason
from bot.reconcile.changes import ConstraintChange, PacketChange, ProgramChange, RetiredChange, snapshot_changes
from bot.snapshot.model import EvidenceRef, RetiredConstraint, Snapshot

M1, M2, M3 = "mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill", "mac.m3-q8-gdn-handoff"


def edited(snapshot: Snapshot, packet_id: str, **update: Any) -> Snapshot:
    packets = tuple(p.model_copy(update=update) if p.id == packet_id else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def test_the_same_snapshot_changes_nothing(seed: Snapshot) -> None:
    assert snapshot_changes(seed, seed) == []


def test_a_completion_and_its_dependent_moving_to_satisfied(seed: Snapshot) -> None:
    after = edited(
        seed, M1, state="complete", result="accepted", owner="receipt #1", related_issues=(1,), next_action=""
    )
    after = edited(after, M2, hard_dependency_ids=(), satisfied_dependency_ids=(M1,), state_revision=1)
    m2 = Derivation(
        id=M2,
        issue=9230,
        recorded_state="waiting-dependency",
        derived_state="ready",
        reasons=(Reason(kind="dependencies-met", subject=M1),),
        recorded_owner="unassigned",
        derived_owner="unassigned",
    )
    after = edited(after, M2, state="ready", previous_state="waiting-dependency")
    first, second = snapshot_changes(seed, after, [m2])
    assert first == PacketChange(
        "packet",
        M1,
        8325,
        state=("ready", "complete"),
        owner=("unassigned", "receipt #1"),
        result="accepted",
        receipts=(1,),
        next_action_cleared=True,
    )
    # The derivation moved M2: its reasons come along; perfbot's bookkeeping is not a change to read.
    assert second == PacketChange(
        "packet", M2, 9230, state=("waiting-dependency", "ready"), reasons=m2.reasons, satisfied=(M1,)
    )


def test_a_state_a_command_set_has_no_derivation_reasons(seed: Snapshot) -> None:
    after = edited(seed, M3, state="capacity-hold", blocked_by_condition="a reason", lane="other")
    (change,) = snapshot_changes(seed, after)
    assert change == PacketChange(
        "packet", M3, 9216, state=("waiting-dependency", "capacity-hold"), condition=("", "a reason"), others=("lane",)
    )


def test_blockers_cleared_and_added_and_dependencies_a_person_changed(seed: Snapshot) -> None:
    gate = next(p for p in seed.work_packets if p.blocked_by_ids)
    after = edited(seed, gate.id, blocked_by_ids=(M1,), hard_dependency_ids=(M3,))
    (change,) = snapshot_changes(seed, after)
    assert isinstance(change, PacketChange)
    assert (change.cleared, change.blockers_added) == (gate.blocked_by_ids, (M1,))
    assert change.others == ("hard_dependency_ids",)


def test_review_dates_evidence_and_a_retired_constraint(seed: Snapshot) -> None:
    first, second, *rest = seed.constraints
    item = EvidenceRef(class_="accepted", summary="s", ref="r")
    reviewed = second.model_copy(
        update={"observed_at": dt.date(2026, 8, 30), "review_by": dt.date(2026, 9, 30), "evidence": (item,)}
    )
    retired = RetiredConstraint(id=first.id, name=first.name, retired_on=dt.date(2026, 8, 30), ref="done")
    after = seed.model_copy(
        update={"constraints": (reviewed, *rest), "retired_constraints": (*seed.retired_constraints, retired)}
    )
    changes = snapshot_changes(seed, after)
    assert changes == [
        ConstraintChange(
            "constraint",
            second.id,
            observed_at=(str(second.observed_at), "2026-08-30"),
            review_by=(str(second.review_by), "2026-09-30"),
            evidence_added=(item,),
            evidence_removed=second.evidence,
        ),
        RetiredChange("retired", retired),  # retired, not also listed as a constraint removed
    ]


def test_records_added_removed_and_a_program_changed(seed: Snapshot) -> None:
    packet = seed.work_packets[0]
    program = seed.programs[0]
    new = packet.model_copy(update={"id": "new.packet"})
    after = seed.model_copy(
        update={
            "work_packets": (*seed.work_packets[1:], new),
            "programs": (program.model_copy(update={"current_result": "more"}), *seed.programs[1:]),
        }
    )
    assert snapshot_changes(seed, after) == [
        PacketChange("packet", "new.packet", packet.issue, added=True),
        PacketChange("packet", packet.id, packet.issue, removed=True),
        ProgramChange("program", program.id, others=("current_result",)),
    ]


def test_perfbots_bookkeeping_alone_is_no_change_and_an_unchanged_result_is_not_listed(seed: Snapshot) -> None:
    done = edited(seed, M1, state="complete", result="kept")
    assert snapshot_changes(done, edited(done, M2, state_revision=3, previous_state="ready")) == []
    after = edited(done, M1, owner="someone")
    assert snapshot_changes(done, after) == [PacketChange("packet", M1, 8325, owner=("unassigned", "someone"))]


def test_a_derivation_that_did_not_move_the_state_gives_no_reasons(seed: Snapshot) -> None:
    kept = Derivation(
        id=M3,
        issue=9216,
        recorded_state="capacity-hold",
        derived_state="capacity-hold",
        reasons=(Reason(kind="decided", subject="capacity-hold"),),
        recorded_owner="unassigned",
        derived_owner="unassigned",
    )
    (change,) = snapshot_changes(seed, edited(seed, M3, state="capacity-hold"), [kept])
    assert change == PacketChange("packet", M3, 9216, state=("waiting-dependency", "capacity-hold"))


def test_a_constraint_added_removed_or_changed_otherwise(seed: Snapshot) -> None:
    first, second, *rest = seed.constraints
    added = first.model_copy(update={"id": "new-constraint"})
    changed = second.model_copy(update={"state": "ready", "driver": "another driver"})
    after = seed.model_copy(update={"constraints": (changed, *rest, added)})
    assert snapshot_changes(seed, after) == [
        ConstraintChange("constraint", second.id, state=(second.state, "ready"), others=("driver",)),
        ConstraintChange("constraint", "new-constraint", added=True),
        ConstraintChange("constraint", first.id, removed=True),  # removed, not retired
    ]


def test_a_program_added_and_one_removed(seed: Snapshot) -> None:
    first, *rest = seed.programs
    added = first.model_copy(update={"id": "new-program"})
    after = seed.model_copy(update={"programs": (*rest, added)})
    assert snapshot_changes(seed, after) == [
        ProgramChange("program", "new-program", added=True),
        ProgramChange("program", first.id, removed=True),
    ]
