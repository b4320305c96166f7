"""Why a native link perfbot kept is no longer kept: the cause its record names for each change. Pure.

A link goes for one reason, read from the snapshots the run decides on (`base`, the default
branch's, and `following`, the merged state labels and links show): a dependency met, a blocker
that released its lease, a packet complete, a packet moved to another program, a dependency the
snapshot no longer names; or, for a link the snapshot still implies, a note of the plan (the
issue not read, a loop, another parent) that kept perfbot from keeping it.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from bot.reconcile.links import Link
from bot.snapshot.model import Snapshot, WorkPacket

CauseKind = Literal["dependency-met", "lease-released", "packet-complete", "moved", "not-implied", "not-kept"]


class Cause(NamedTuple):
    """Why a link went: its kind, the packet it was kept for, and the packet (or program) it named."""

    kind: CauseKind
    packet: str = ""
    other: str = ""


def cause_of(link: Link, base: Snapshot, following: Snapshot) -> Cause:
    relation, issue, target = link
    if relation == "blocked_by":
        return _blocked_by_cause(issue, target, base, following)
    return _sub_issue_cause(issue, target, following)


def _blocked_by_cause(issue: int, target: int, base: Snapshot, following: Snapshot) -> Cause:
    """The first cause the evidence gives among the packets of `issue` that waited on `target`."""
    on_target = {p.id for p in base.work_packets if p.issue == target}
    after = {p.id: p for p in following.work_packets}
    causes = [
        _one(packet, dep, after.get(packet.id))
        for packet in base.work_packets
        if packet.issue == issue
        for dep in _deps(packet)
        if dep in on_target
    ]
    return next((c for c in causes if c.kind != "not-kept"), causes[0] if causes else Cause("not-implied"))


def _deps(packet: WorkPacket) -> tuple[str, ...]:
    return (*packet.hard_dependency_ids, *packet.blocked_by_ids, *packet.satisfied_dependency_ids)


def _one(packet: WorkPacket, dep: str, now: WorkPacket | None) -> Cause:
    if now is None:
        return Cause("not-implied", packet.id, dep)
    if now.state == "complete":
        return Cause("packet-complete", packet.id, dep)
    if dep in now.satisfied_dependency_ids:
        return Cause("dependency-met", packet.id, dep)
    if dep in packet.blocked_by_ids and dep not in now.blocked_by_ids:
        return Cause("lease-released", packet.id, dep)
    if dep not in (*now.hard_dependency_ids, *now.blocked_by_ids):
        return Cause("not-implied", packet.id, dep)
    return Cause("not-kept", packet.id, dep)


def _sub_issue_cause(child: int, umbrella: int, following: Snapshot) -> Cause:
    umbrellas = {program.id: program.authority_issue for program in following.programs}
    packets = [p for p in following.work_packets if p.issue == child]
    if not packets:
        return Cause("not-implied")
    if all(umbrellas.get(p.program_id) != umbrella for p in packets):
        return Cause("moved", packets[0].id, packets[0].program_id)
    return Cause("not-kept", packets[0].id)
