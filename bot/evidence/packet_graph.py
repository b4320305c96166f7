"""The work-packet graph: packets grouped by program, edges from dependencies and blockers. Pure.

Edges run from the prerequisite to the packet that waits for it: `hard` for an open hard
dependency, `blocked-by` for a packet named in `blocked_by_ids`, `satisfied` for a completed
prerequisite. A live lease held for another issue whose paths overlap a packet's is a note on
that packet. Templates (`templates/graph/`) turn the graph into mermaid or DOT text.

The records are NamedTuples: immutable values, cheaper to define at start-up than frozen
dataclasses, and never compared with plain tuples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, NamedTuple

from bot.config import LeaseRules
from bot.evidence.derive import Derivation
from bot.evidence.leases import Lease
from bot.evidence.overlap import LeaseIndex
from bot.snapshot.model import Program, Snapshot, WorkPacket

EdgeKind = Literal["hard", "blocked-by", "satisfied"]
EDGE_KINDS: tuple[EdgeKind, ...] = ("hard", "blocked-by", "satisfied")
Tone = Literal["ready", "running", "waiting", "hold", "complete"]
# GitHub renders mermaid with the library's defaults: longer text or more edges fail to draw.
MERMAID_MAX_TEXT = 50_000
MERMAID_MAX_EDGES = 500


class LeaseNote(NamedTuple):
    """A lease holder whose live leases (on these lanes) collide with the packet."""

    holder: str
    lanes: tuple[str, ...]


class Node(NamedTuple):
    """A packet as drawn: its key in the chart, and its state (derived where the run derived it)."""

    key: str
    packet: WorkPacket
    state: str
    changed: bool = False
    notes: tuple[LeaseNote, ...] = ()

    @property
    def tone(self) -> Tone:
        """The colour family of the state: ready, running, waiting-*, hold or complete."""
        if self.state in ("ready", "running", "complete"):
            return self.state  # type: ignore[return-value]
        return "hold" if self.state == "capacity-hold" else "waiting"


class Group(NamedTuple):
    """A program as drawn: its key in the chart and its packets' nodes."""

    key: str
    program: Program
    nodes: tuple[Node, ...]


class Edge(NamedTuple):
    source: str
    target: str
    kind: EdgeKind


class Graph(NamedTuple):
    groups: tuple[Group, ...]
    edges: tuple[Edge, ...]

    @property
    def nodes(self) -> tuple[Node, ...]:
        return tuple(node for group in self.groups for node in group.nodes)

    def edge_indices(self, kind: EdgeKind) -> tuple[int, ...]:
        """Positions of the edges of one kind, in drawing order (mermaid styles links by position)."""
        return tuple(i for i, edge in enumerate(self.edges) if edge.kind == kind)

    def tone_keys(self, tone: Tone) -> tuple[str, ...]:
        return tuple(node.key for node in self.nodes if node.tone == tone)

    @property
    def changed(self) -> tuple[Node, ...]:
        return tuple(node for node in self.nodes if node.changed)


def build(
    snapshot: Snapshot,
    states: Mapping[str, str] | None = None,
    changed: Iterable[str] = (),
    leases: Iterable[Lease] = (),
    rules: LeaseRules | None = None,
) -> Graph:
    """The graph of `snapshot`; `states` (derived) replace the recorded ones where given."""
    states = states or {}
    outlined = set(changed)
    notes = lease_notes(snapshot, leases, rules or LeaseRules())
    keys = {packet.id: f"p{index}" for index, packet in enumerate(snapshot.work_packets, start=1)}
    members: dict[str, list[Node]] = {program.id: [] for program in snapshot.programs}
    for p in snapshot.work_packets:
        node = Node(keys[p.id], p, states.get(p.id, p.state), p.id in outlined, notes.get(p.id, ()))
        members.setdefault(p.program_id, []).append(node)
    groups = [
        Group(f"g{index}", program, tuple(members[program.id]))
        for index, program in enumerate(snapshot.programs, start=1)
    ]
    edges = [
        Edge(keys[source], keys[packet.id], kind)
        for kind in EDGE_KINDS
        for packet in snapshot.work_packets
        for source in _prerequisites(packet, kind)
        if source in keys
    ]
    return Graph(tuple(groups), tuple(edges))


def of_derivations(
    snapshot: Snapshot, derivations: Iterable[Derivation], leases: Iterable[Lease], rules: LeaseRules
) -> Graph:
    """The graph with derived states shown, packets whose derived state changed outlined, and lease notes."""
    derived = list(derivations)
    changed = [d.id for d in derived if d.recorded_state != d.derived_state]
    return build(snapshot, {d.id: d.derived_state for d in derived}, changed, leases, rules)


def of_run(
    snapshot: Snapshot, derivations: Iterable[Derivation], leases: Iterable[Lease], rules: LeaseRules
) -> Graph | None:
    """The run's graph for a PR body or a job summary; None when no packet's derived state changed."""
    derived = list(derivations)
    if all(d.recorded_state == d.derived_state for d in derived):
        return None
    bare = of_derivations(snapshot, derived, (), rules)
    # Lease notes cost a path comparison per packet and lease; skip them when GitHub cannot draw it.
    return bare if len(bare.edges) > MERMAID_MAX_EDGES else of_derivations(snapshot, derived, leases, rules)


def _prerequisites(packet: WorkPacket, kind: EdgeKind) -> tuple[str, ...]:
    if kind == "hard":
        return packet.hard_dependency_ids
    if kind == "blocked-by":
        return packet.blocked_by_ids
    return packet.satisfied_dependency_ids


def lease_notes(snapshot: Snapshot, leases: Iterable[Lease], rules: LeaseRules) -> dict[str, tuple[LeaseNote, ...]]:
    """Per packet that is not complete: the live leases held for another issue that overlap its paths."""
    index = LeaseIndex(leases)  # the leases overlapping each packet found by prefix, not one test per lease
    issues = [lease.issues(rules.holder_issue_pattern) for lease in index.leases]
    notes: dict[str, tuple[LeaseNote, ...]] = {}
    for packet in snapshot.work_packets:
        if packet.state == "complete":
            continue
        lanes: dict[str, list[str]] = {}
        for position in sorted(index.positions(packet.paths)):
            lease = index.leases[position]
            if packet.issue not in issues[position]:
                lanes.setdefault(lease.holder, []).append(lease.lane)
        if lanes:
            notes[packet.id] = tuple(LeaseNote(holder, tuple(dict.fromkeys(ls))) for holder, ls in lanes.items())
    return notes
