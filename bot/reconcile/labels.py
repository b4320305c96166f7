"""State labels: one `perf/<state>` label per distinct state on each packet issue. Pure.

An issue that carries a sequence of packets is labelled by where the sequence stands: a packet
that waits only on earlier packets of the same issue adds no label, and neither does a complete
one while another packet of the issue is open. perfbot touches only the labels named by its
prefix and a state; every other label, `perf/regression` included, is a person's.

A label is *restored* when perfbot puts back a label that it had set and that a person then took
off: GitHub's timeline (the label events) says who removed it. The snapshot and the evidence
decide the label, never the other way round: the default branch's snapshot with the live leases
and issues, as every other surface shows it (what the regeneration PR would change is labelled
once it merges). A closed issue keeps `perf/complete` when all of its packets are complete and
loses every other state label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.config import LabelSettings
from bot.evidence.derive import Derivation
from bot.github.actions import Action, CreateLabelAction, LabelAction
from bot.github.observed import Issue, LabelEvent, Observed
from bot.snapshot.model import WORK_STATES, Snapshot, WorkPacket, WorkState


@dataclass
class LabelPlan:
    """The label writes of a run (creations first), and the labels each issue gets back."""

    actions: list[Action] = field(default_factory=list)
    restored: dict[int, list[str]] = field(default_factory=dict)
    # Each restored label's removal, (issue, label) -> when and by whom: it keys the explaining comment.
    removals: dict[tuple[int, str], LabelEvent] = field(default_factory=dict)


def issue_states(snapshot: Snapshot, derivations: Iterable[Derivation]) -> dict[int, tuple[WorkState, ...]]:
    """The distinct states each packet issue shows, in the order of `WORK_STATES`."""
    derived = {d.id: d.derived_state for d in derivations}
    by_issue: dict[int, list[WorkPacket]] = {}
    for packet in snapshot.work_packets:
        by_issue.setdefault(packet.issue, []).append(packet)
    issue_of = {p.id: p.issue for p in snapshot.work_packets}
    shown: dict[int, tuple[WorkState, ...]] = {}
    for number, packets in by_issue.items():
        states = [derived[p.id] for p in packets if _current(p, packets, derived, issue_of)]
        states = states or [derived[p.id] for p in packets]
        shown[number] = tuple(s for s in WORK_STATES if s in states)
    return shown


def _current(
    packet: WorkPacket, siblings: list[WorkPacket], derived: dict[str, WorkState], issue_of: dict[str, int]
) -> bool:
    state = derived[packet.id]
    if state == "complete":
        return all(derived[s.id] == "complete" for s in siblings)
    if state == "waiting-dependency":
        open_deps = [d for d in packet.hard_dependency_ids if derived.get(d) != "complete"]
        return any(issue_of.get(d) != packet.issue for d in open_deps)
    return True


def plan_labels(
    snapshot: Snapshot,
    derivations: Iterable[Derivation],
    observed: Observed,
    settings: LabelSettings,
    pulls: bool = False,
) -> LabelPlan:
    """Remove the state labels an issue should not carry, add those it lacks, create missing ones."""
    found = LabelPlan()
    if not settings.enabled:
        return found
    managed = {settings.name(state): state for state in WORK_STATES}
    folded = {name.casefold() for name in managed}
    shown = issue_states(snapshot, derivations)
    existing = {label.name.casefold() for label in observed.labels}
    removals, additions = [], []
    for issue in sorted(observed.issues, key=lambda i: i.number):
        states = shown.get(issue.number, ())
        if issue.state == "closed":
            # A closed issue keeps only `complete`, and only when all of its packets are.
            states = tuple(s for s in states if s == "complete" and states == ("complete",))
        wanted = {settings.name(state) for state in states}
        # GitHub's label names are case-insensitive: `Perf/Ready` on an issue is `perf/ready`.
        present = {name.casefold(): name for name in issue.labels if name.casefold() in folded}
        wanted_folded = {name.casefold() for name in wanted}
        removals += [
            LabelAction(issue=issue.number, name=present[n], add=False) for n in sorted(present.keys() - wanted_folded)
        ]
        for name in sorted(n for n in wanted if n.casefold() not in present):
            additions.append(LabelAction(issue=issue.number, name=name, add=True))
            removal = _removed_by_hand(issue, name, observed)
            if removal is not None:
                found.restored.setdefault(issue.number, []).append(name)
                found.removals[(issue.number, name)] = removal
    created = sorted({a.name for a in additions if a.name.casefold() not in existing})
    found.actions += [
        CreateLabelAction(
            name=n, color=settings.style(managed[n]).color, description=settings.style(managed[n], pulls).description
        )
        for n in created
    ]
    found.actions += removals + additions
    return found


def _removed_by_hand(issue: Issue, name: str, observed: Observed) -> LabelEvent | None:
    """The event of a person taking off a label that perfbot had put on, when that is its last event."""
    events = sorted(
        (e for e in observed.label_events if e.issue == issue.number and e.label.casefold() == name.casefold()),
        key=lambda e: e.created_at,
    )
    if not events or events[-1].action != "unlabeled" or events[-1].actor == observed.bot_login:
        return None
    set_by_bot = any(e.action == "labeled" and e.actor == observed.bot_login for e in events[:-1])
    return events[-1] if set_by_bot else None
