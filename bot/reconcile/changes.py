"""What the regeneration PR changes: every change between the default branch's snapshot and the
proposed one, read from the two snapshots, never from the commands that made them (issue #25).

A packet's state, owner, result, receipts, next action, dependencies moving to satisfied,
blockers cleared or added and its condition; a constraint's state, review dates and evidence; a
constraint retired; any other field of a packet, constraint or program that changed. The PR body
(`pr_body.md.j2`) and the job summary list them; the state's reasons are the derivation's when
the evidence moved it. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple, TypeVar

from bot.evidence.derive import Derivation, Reason
from bot.issue_refs import IssueKey
from bot.snapshot.model import Constraint, EvidenceRef, Named, RetiredConstraint, Snapshot, WorkPacket

# Fields each change names on its own line; the rest of a record's changed fields are listed by name.
_PACKET_FIELDS = frozenset(
    {
        "state",
        "owner",
        "result",
        "related_issues",
        "next_action",
        "hard_dependency_ids",
        "satisfied_dependency_ids",
        "blocked_by_ids",
        "blocked_by_condition",
        # perfbot's own bookkeeping of state changes (one nudge per episode), not a change to read
        "state_revision",
        "previous_state",
    }
)
_CONSTRAINT_FIELDS = frozenset({"state", "observed_at", "review_by", "evidence"})

Pair = tuple[str, str]
R = TypeVar("R", bound=Named)


class PacketChange(NamedTuple):
    kind: Literal["packet"]
    id: str
    issue: IssueKey
    added: bool = False
    removed: bool = False
    state: Pair | None = None
    # The evidence behind a state the derivation moved; () when a person's command set it.
    reasons: tuple[Reason, ...] = ()
    owner: Pair | None = None
    result: str = ""
    receipts: tuple[IssueKey, ...] = ()
    next_action_cleared: bool = False
    satisfied: tuple[str, ...] = ()
    cleared: tuple[str, ...] = ()
    blockers_added: tuple[str, ...] = ()
    condition: Pair | None = None
    others: tuple[str, ...] = ()


class ConstraintChange(NamedTuple):
    kind: Literal["constraint"]
    id: str
    added: bool = False
    removed: bool = False
    state: Pair | None = None
    observed_at: Pair | None = None
    review_by: Pair | None = None
    evidence_added: tuple[EvidenceRef, ...] = ()
    evidence_removed: tuple[EvidenceRef, ...] = ()
    others: tuple[str, ...] = ()


class RetiredChange(NamedTuple):
    kind: Literal["retired"]
    retired: RetiredConstraint


class ProgramChange(NamedTuple):
    kind: Literal["program"]
    id: str
    added: bool = False
    removed: bool = False
    others: tuple[str, ...] = ()


Change = PacketChange | ConstraintChange | RetiredChange | ProgramChange


def snapshot_changes(before: Snapshot, after: Snapshot, derivations: Sequence[Derivation] = ()) -> list[Change]:
    """Every change from `before` (the default branch's) to `after` (the PR's), in the file's order:
    packets, then constraints, retired constraints and programs. `derivations` give the reasons
    of the states the evidence moved."""
    by_id = {d.id: d for d in derivations}
    changes: list[Change] = []
    for old, new in _pairs(before.work_packets, after.work_packets):
        found = _packet(old, new, by_id)
        if found is not None:
            changes.append(found)
    known = {r.id for r in before.retired_constraints}
    retired = [r for r in after.retired_constraints if r.id not in known]
    gone = {r.id for r in retired}
    for old_c, new_c in _pairs(before.constraints, after.constraints):
        constraint = _constraint(old_c, new_c)
        if constraint is not None and not (constraint.removed and constraint.id in gone):
            changes.append(constraint)
    changes += [RetiredChange("retired", r) for r in retired]
    for old_p, new_p in _pairs(before.programs, after.programs):
        program = new_p or old_p
        if old_p != new_p and program is not None:
            changes.append(ProgramChange("program", program.id, old_p is None, new_p is None, _others(old_p, new_p)))
    return changes


def _pairs(before: Sequence[R], after: Sequence[R]) -> list[tuple[R | None, R | None]]:
    """Records matched by id: each of `after` in its order with its old self, then the removed ones."""
    old = {r.id: r for r in before}
    kept = {r.id for r in after}
    return [(old.get(r.id), r) for r in after] + [(r, None) for r in before if r.id not in kept]


def _others(old: Named | None, new: Named | None, named: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The fields besides `named` whose values differ (none for a record added or removed)."""
    if old is None or new is None:
        return ()
    return tuple(
        name for name in type(new).model_fields if name not in named and getattr(old, name) != getattr(new, name)
    )


def _pair(old: object, new: object) -> Pair | None:
    return None if old == new else (str(old), str(new))


def _packet(old: WorkPacket | None, new: WorkPacket | None, by_id: Mapping[str, Derivation]) -> PacketChange | None:
    if old == new:
        return None
    if old is None or new is None:
        record = new or old
        assert record is not None
        return PacketChange("packet", record.id, record.issue, added=old is None, removed=new is None)
    derived = by_id.get(new.id)
    moved = derived is not None and derived.recorded_state != derived.derived_state == new.state
    change = PacketChange(
        "packet",
        new.id,
        new.issue,
        state=_pair(old.state, new.state),
        reasons=derived.reasons if moved and derived is not None else (),
        owner=_pair(old.owner, new.owner),
        result=new.result if new.result != old.result else "",
        receipts=tuple(n for n in new.related_issues if n not in old.related_issues),
        next_action_cleared=bool(old.next_action) and not new.next_action,
        satisfied=tuple(d for d in new.satisfied_dependency_ids if d not in old.satisfied_dependency_ids),
        cleared=tuple(b for b in old.blocked_by_ids if b not in new.blocked_by_ids),
        blockers_added=tuple(b for b in new.blocked_by_ids if b not in old.blocked_by_ids),
        condition=_pair(old.blocked_by_condition, new.blocked_by_condition),
        others=_others(old, new, _PACKET_FIELDS)
        + (("hard_dependency_ids",) if _other_dependency_change(old, new) else ()),
    )
    return None if change == PacketChange("packet", new.id, new.issue) else change


def _other_dependency_change(old: WorkPacket, new: WorkPacket) -> bool:
    """Hard dependencies changed otherwise than by moving to satisfied (a person's edit)."""
    moved = set(new.satisfied_dependency_ids) - set(old.satisfied_dependency_ids)
    return set(old.hard_dependency_ids) - moved != set(new.hard_dependency_ids)


def _constraint(old: Constraint | None, new: Constraint | None) -> ConstraintChange | None:
    if old == new:
        return None
    if old is None or new is None:
        record = new or old
        assert record is not None
        return ConstraintChange("constraint", record.id, added=old is None, removed=new is None)
    return ConstraintChange(
        "constraint",
        new.id,
        state=_pair(old.state, new.state),
        observed_at=_pair(old.observed_at, new.observed_at),
        review_by=_pair(old.review_by, new.review_by),
        evidence_added=tuple(e for e in new.evidence if e not in old.evidence),
        evidence_removed=tuple(e for e in old.evidence if e not in new.evidence),
        others=_others(old, new, _CONSTRAINT_FIELDS),
    )
