"""Why a packet is in its state: the evidence behind its derivation, and the shortest list of
events that would make it ready. Pure; `templates/explain.md.j2` puts it into sentences.

The missing events are found by asking the derivation itself: apply the event each blocking
reason names (a dependency completes, a lease is released, a condition or a decision is lifted),
derive again, and repeat until the packet derives `ready` or `running`.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Sequence
from typing import Literal, NamedTuple

from bot.errors import BotError
from bot.evidence.derive import Derivation, PacketEvidence, derive_one
from bot.evidence.leases import Lease
from bot.evidence.overlap import colliding, overlapping_pairs
from bot.github.observed import Issue
from bot.issue_refs import IssueKey, number_of, repository_of
from bot.snapshot.model import Snapshot, WorkPacket

EventKind = Literal["complete", "release", "unblock", "decide", "observe"]
RUNNABLE = frozenset({"ready", "running"})


# Paths of one pull request shown in an explanation (the rest are counted).
SHOWN = 10


class UnknownPacketError(BotError):
    """The id names no work packet; the message offers the closest ids."""


class LeaseFact(NamedTuple):
    """A live lease as evidence: who holds it, where, where it meets the packet, and how old it is."""

    holder: str
    lane: str
    tree: tuple[str, ...]
    issue: IssueKey | None
    overlaps: tuple[tuple[str, str], ...]
    last_seen: str
    age_minutes: int | None
    stale: bool
    # A pull request's lease (`leases.sources: [pull-requests]`): its number and how many of its
    # paths, beyond those shown in `tree` and `overlaps`, it also changes.
    pull: int | None = None
    more: int = 0


class PacketFact(NamedTuple):
    """Another packet as evidence: a dependency or a blocker."""

    id: str
    issue: IssueKey
    owner: str
    state: str
    holds_lease: bool = False


# An explanation's evidence: packets (dependencies, blockers) and leases.
PacketFacts = tuple[PacketFact, ...]
LeaseFacts = tuple[LeaseFact, ...]


class Event(NamedTuple):
    """One thing that has to happen: `subject` is a packet id, a lease holder, a state or an issue."""

    kind: EventKind
    subject: str
    issue: IssueKey | None = None
    lease: LeaseFact | None = None


class Explanation(NamedTuple):
    packet: WorkPacket
    derivation: Derivation
    dependencies: PacketFacts
    satisfied: PacketFacts
    leases: LeaseFacts
    own_leases: LeaseFacts
    blockers: PacketFacts
    issue: Issue | None
    missing: tuple[Event, ...]
    reachable: bool


def explain(
    packet_id: str, snapshot: Snapshot, derivations: Sequence[Derivation], evidence: PacketEvidence, now: dt.datetime
) -> Explanation:
    """The explanation of one packet, from the same derivations a run plans with."""
    packet = snapshot.packet(packet_id)
    if packet is None:
        close = difflib.get_close_matches(packet_id, [p.id for p in snapshot.work_packets], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownPacketError(f"no work packet {packet_id!r} in the snapshot{hint}")
    by_id = {d.id: d for d in derivations}
    derivation = by_id[packet.id]
    facts = _Facts(snapshot, by_id, evidence, now)
    pattern = evidence.rules.holder_issue_pattern
    missing, reachable = _missing_events(packet, snapshot, evidence, facts, derivation)
    return Explanation(
        packet=packet,
        derivation=derivation,
        dependencies=tuple(facts.packet(d) for d in packet.hard_dependency_ids),
        satisfied=tuple(facts.packet(d) for d in packet.satisfied_dependency_ids),
        leases=tuple(facts.lease(x, packet) for x in colliding(packet.paths, packet.issue, evidence.leases, pattern)),
        own_leases=tuple(facts.lease(x, packet) for x in evidence.leases if packet.issue in x.issues(pattern)),
        blockers=tuple(
            facts.packet(b)._replace(holds_lease=b not in derivation.cleared_blockers) for b in packet.blocked_by_ids
        ),
        issue=evidence.issues.get(packet.issue),
        missing=tuple(missing),
        reachable=reachable,
    )


class _Facts:
    def __init__(self, snapshot: Snapshot, by_id: dict[str, Derivation], evidence: PacketEvidence, now: dt.datetime):
        self.snapshot, self.by_id, self.evidence, self.now = snapshot, by_id, evidence, now

    def packet(self, packet_id: str) -> PacketFact:
        d = self.by_id[packet_id]
        return PacketFact(packet_id, d.issue, d.derived_owner, d.derived_state)

    def lease(self, lease: Lease, packet: WorkPacket) -> LeaseFact:
        rules = self.evidence.rules
        seen = lease.last_seen()
        pairs = overlapping_pairs(packet.paths, lease.tree)
        tree, more = lease.tree, 0
        if lease.pull is not None:  # a PR changes up to 3,000 paths: those that meet the packet come first
            meeting = list(dict.fromkeys(b for _, b in pairs))
            ordered = [*meeting, *(g for g in lease.tree if g not in set(meeting))]
            tree, more, pairs = tuple(ordered[:SHOWN]), max(0, len(ordered) - SHOWN), pairs[:SHOWN]
        return LeaseFact(
            pull=lease.pull,
            more=more,
            holder=lease.holder,
            lane=lease.lane,
            tree=tree,
            issue=lease.issue(rules.holder_issue_pattern),
            overlaps=tuple(pairs),
            last_seen=seen.strftime("%Y-%m-%dT%H:%M:%SZ") if seen else "",
            age_minutes=int((self.now - seen).total_seconds() // 60) if seen else None,
            stale=lease.is_stale(self.now, rules.ttl_minutes, rules.grace_minutes),
        )


def _missing_events(
    packet: WorkPacket, snapshot: Snapshot, evidence: PacketEvidence, facts: _Facts, derivation: Derivation
) -> tuple[list[Event], bool]:
    """The events that make `packet` derive `ready` (or `running`), and whether they are enough;
    `derivation` is the packet's as things are (each step derives it again, and only it)."""
    events: list[Event] = []
    limit = len(snapshot.work_packets) + len(evidence.leases) + 3
    d = derivation
    for step_number in range(limit):
        if step_number:
            d = derive_one(snapshot, evidence, snapshot.packet(packet.id) or packet)
        if d.derived_state in RUNNABLE:
            return events, True
        step = _next_events(d, snapshot, evidence, facts, packet)
        if not step:
            return events, False
        for event in step:
            snapshot, evidence = _happen(event, snapshot, evidence, packet)
        events += step
    return events, False


def _next_events(
    d: Derivation, snapshot: Snapshot, evidence: PacketEvidence, facts: _Facts, packet: WorkPacket
) -> list[Event]:
    issues = {p.id: p.issue for p in snapshot.work_packets}
    pattern = evidence.rules.holder_issue_pattern
    events: list[Event] = []
    for reason in d.reasons:
        if reason.kind == "decided" and reason.subject != "complete":
            events.append(Event("decide", reason.subject, packet.issue))
        elif reason.kind == "issue-unobserved":
            events.append(Event("observe", reason.subject, packet.issue))
        elif reason.kind == "dependency-open":
            events.append(Event("complete", reason.subject, issues.get(reason.subject)))
        elif reason.kind == "condition":
            events.append(Event("unblock", reason.subject, packet.issue))
        elif reason.kind in ("lease-overlap", "pull-overlap", "blocker-holds-lease"):
            described = reason.detail if reason.kind == "blocker-holds-lease" else reason.subject
            for lease in evidence.leases:
                if lease.describe() == described:
                    events.append(Event("release", lease.holder, lease.issue(pattern), facts.lease(lease, packet)))
    return list(dict.fromkeys(events))


def _happen(
    event: Event, snapshot: Snapshot, evidence: PacketEvidence, packet: WorkPacket
) -> tuple[Snapshot, PacketEvidence]:
    """The snapshot and evidence as they would be after `event`."""
    if event.kind == "release" and event.lease is not None:
        gone = event.lease
        if gone.pull is not None:  # a PR's fact shows some of its paths: the PR is known by its number
            kept = tuple(x for x in evidence.leases if x.pull != gone.pull)
        else:
            kept = tuple(
                x for x in evidence.leases if (x.holder, x.lane, x.tree) != (gone.holder, gone.lane, gone.tree)
            )
        return snapshot, evidence._replace(leases=kept)
    if event.kind == "observe":
        issue = Issue(number=number_of(packet.issue), repository=repository_of(packet.issue))
        return snapshot, evidence._replace(issues={**evidence.issues, packet.issue: issue})
    if event.kind == "complete":
        target, update = event.subject, {"state": "complete"}
    elif event.kind == "unblock":
        target, update = packet.id, {"blocked_by_condition": ""}
    else:  # a person lifts a decision: the state is derived again
        target, update = packet.id, {"state": "waiting-dependency"}
    packets = tuple(p.model_copy(update=update) if p.id == target else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets}), evidence
