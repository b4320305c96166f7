"""Derived packet state: what the evidence (dependencies, leases, assignment) says each packet is.

Order of the rules (docs/leases.md, "How a packet's state is derived"): an open hard
dependency (one not `complete`, whatever the reason) means `waiting-dependency`; else a foreign
overlapping lease, a blocker still holding an overlapping lease, or a free-text blocker means
`waiting-coordination`; else, when the packet's issue was not observed, the recorded state
stands; else an assigned issue with its own live lease, or an open pull request that closes the
issue (when pull requests are a lease source), means `running`; else `ready`. `complete`,
`capacity-hold` and `waiting-evidence` change only by decision.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from bot.config import LeaseRules, OwnerWording
from bot.evidence.leases import Lease
from bot.evidence.overlap import LeaseIndex, overlapping_pairs, overlaps
from bot.github.observed import Issue
from bot.issue_refs import IssueKey, IssueRef, issue_text
from bot.snapshot.model import DECIDED_STATES, Snapshot, WorkPacket, WorkState

ReasonKind = Literal[
    "decided",
    "issue-unobserved",
    "dependency-open",
    "dependencies-met",
    "lease-overlap",
    "blocker-holds-lease",
    "blocker-cleared",
    "condition",
    "running",
    "lease-released",
    "no-live-lease",
    "unassigned",
    "pull-overlap",
    "pull-closes",
    "pull-released",
]


class Reason(BaseModel):
    """One piece of evidence behind a derived state; templates turn it into a sentence."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    kind: ReasonKind
    subject: str = ""
    detail: str = ""


class Derivation(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    id: str
    issue: IssueRef
    recorded_state: WorkState
    derived_state: WorkState
    reasons: tuple[Reason, ...]
    recorded_owner: str
    derived_owner: str
    cleared_blockers: tuple[str, ...] = ()
    newly_satisfied: tuple[str, ...] = ()
    own_lease: bool = False

    @property
    def changed(self) -> bool:
        return (
            self.recorded_state != self.derived_state
            or self.recorded_owner != self.derived_owner
            or bool(self.cleared_blockers)
            or bool(self.newly_satisfied)
        )


class PacketEvidence(NamedTuple):
    """The observations derivation needs, gathered beforehand."""

    leases: tuple[Lease, ...]
    released: tuple[Lease, ...]
    issues: dict[IssueKey, Issue]
    rules: LeaseRules
    owner: OwnerWording


def derive_all(snapshot: Snapshot, evidence: PacketEvidence) -> list[Derivation]:
    states = {p.id: p.state for p in snapshot.work_packets}
    issues_of = {p.id: p.issue for p in snapshot.work_packets}
    held = _Holders(evidence.leases, evidence.rules, evidence.released)
    return [_derive(p, states, issues_of, held, evidence) for p in snapshot.work_packets]


def derive_one(snapshot: Snapshot, evidence: PacketEvidence, packet: WorkPacket) -> Derivation:
    """`packet`'s derivation, as `derive_all` gives it: a packet's derivation reads the other
    packets' stated states and issues, never their derivations."""
    states = {p.id: p.state for p in snapshot.work_packets}
    issues_of = {p.id: p.issue for p in snapshot.work_packets}
    held = _Holders(evidence.leases, evidence.rules, evidence.released)
    return _derive(packet, states, issues_of, held, evidence)


class _Holders:
    """Each lease's issue and the prefix indexes of live and released leases, built once per run."""

    def __init__(self, leases: Iterable[Lease], rules: LeaseRules, released: Iterable[Lease] = ()) -> None:
        self.pairs = [(lease, lease.issues(rules.holder_issue_pattern)) for lease in leases]
        self.by_issue: dict[IssueKey | None, list[Lease]] = {}
        for lease, issues in self.pairs:
            for issue in issues or (None,):
                self.by_issue.setdefault(issue, []).append(lease)
        self.index = LeaseIndex(lease for lease, _ in self.pairs)
        self.released = tuple((lease, lease.issues(rules.holder_issue_pattern)) for lease in released)
        self.released_index = LeaseIndex(lease for lease, _ in self.released)
        self.released_by_issue: dict[IssueKey | None, set[int]] = {}
        for position, (_, issues) in enumerate(self.released):
            for issue in issues or (None,):
                self.released_by_issue.setdefault(issue, set()).add(position)

    def overlapping(self, paths: Sequence[str]) -> list[tuple[Lease, tuple[IssueKey, ...]]]:
        """(lease, its issues) of the live leases whose trees overlap `paths`, in readback order."""
        return [self.pairs[at] for at in sorted(self.index.positions(paths))]

    def released_for(self, packet: WorkPacket) -> list[Lease]:
        """Released leases that were the packet's own or overlapped its paths, in readback order."""
        found = self.released_index.positions(packet.paths) | self.released_by_issue.get(packet.issue, set())
        return [self.released[at][0] for at in sorted(found)]

    def of(self, issue: IssueKey) -> list[Lease]:
        return self.by_issue.get(issue, [])


def _derive(
    packet: WorkPacket, states: Mapping[str, str], issues_of: dict[str, IssueKey], held: _Holders, ev: PacketEvidence
) -> Derivation:
    issue = ev.issues.get(packet.issue)
    own_leases = held.of(packet.issue)
    newly_satisfied = tuple(d for d in packet.hard_dependency_ids if states.get(d) == "complete")
    cleared = tuple(
        b
        for b in packet.blocked_by_ids
        if not any(overlaps(packet.paths, lease.tree) for lease in held.of(issues_of[b]))
    )
    owner = _owner(packet, issue, own_leases, ev.owner)
    state, reasons = _state(packet, states, issues_of, issue, own_leases, held, ev)
    reasons += [Reason(kind="blocker-cleared", subject=b) for b in cleared]
    return Derivation(
        id=packet.id,
        issue=packet.issue,
        recorded_state=packet.state,
        derived_state=state,
        reasons=tuple(reasons),
        recorded_owner=packet.owner,
        derived_owner=owner,
        cleared_blockers=cleared,
        newly_satisfied=newly_satisfied,
        own_lease=bool(own_leases),
    )


def _owner(packet: WorkPacket, issue: Issue | None, own_leases: list[Lease], wording: OwnerWording) -> str:
    """Assignees (or `unassigned`), plus the live-lease suffix; complete packets keep their text."""
    if packet.state == "complete" or issue is None:
        return packet.owner
    pulls = [lease for lease in own_leases if lease.pull is not None]
    authors = dict.fromkeys(lease.holder for lease in pulls if lease.holder)
    names = wording.assignee_separator.join(issue.assignees or authors) or wording.unassigned
    suffix = wording.lease_suffix if len(pulls) < len(own_leases) else ""
    if pulls:
        suffix += wording.pull_suffix.replace("{pulls}", ", ".join(f"#{lease.pull}" for lease in pulls))
    return names + suffix


def _state(
    packet: WorkPacket,
    states: Mapping[str, str],
    issues_of: dict[str, IssueKey],
    issue: Issue | None,
    own_leases: list[Lease],
    held: _Holders,
    ev: PacketEvidence,
) -> tuple[WorkState, list[Reason]]:
    if packet.state in DECIDED_STATES:
        return packet.state, [Reason(kind="decided", subject=packet.state)]
    # Dependencies, leases and conditions need no issue: an open dependency makes the packet wait
    # whatever its issue shows, so no surface can call it ready while a dependency is not complete.
    open_deps = [d for d in packet.hard_dependency_ids if states.get(d) != "complete"]
    if open_deps:
        return "waiting-dependency", [Reason(kind="dependency-open", subject=d, detail=states[d]) for d in open_deps]
    reasons = _coordination(packet, issues_of, held)
    if reasons:
        return "waiting-coordination", reasons
    if issue is None:  # running or ready rest on the issue's assignees: unseen, the recorded state stands
        return packet.state, [Reason(kind="issue-unobserved", subject=f"{issue_text(packet.issue)}")]
    deps = (*packet.hard_dependency_ids, *packet.satisfied_dependency_ids)
    met = [Reason(kind="dependencies-met", subject=", ".join(deps))] if deps else []
    pulls = [lease for lease in own_leases if lease.pull is not None]
    if (issue.assignees and own_leases) or pulls:
        return "running", [*met, *_running(issue, own_leases)]
    released = [_released(lease, packet.issue) for lease in held.released_for(packet)]
    if not issue.assignees:
        return "ready", [*met, *released, Reason(kind="unassigned", subject=f"{issue_text(packet.issue)}")]
    return "ready", [*met, *released, Reason(kind="no-live-lease", subject=f"{issue_text(packet.issue)}")]


def _running(issue: Issue, own_leases: list[Lease]) -> list[Reason]:
    """Why a packet runs: its assignees' dos leases, and each open PR that closes its issue."""
    reasons = []
    leases = [lease for lease in own_leases if lease.pull is None]
    if issue.assignees and leases:
        detail = "; ".join(x.describe() for x in leases)
        reasons.append(Reason(kind="running", subject=", ".join(issue.assignees), detail=detail))
    for lease in own_leases:
        if lease.pull is not None:
            reasons.append(Reason(kind="pull-closes", subject=lease.describe(), detail=issue_text(issue.key)))
    return reasons


def _released(lease: Lease, issue: IssueKey) -> Reason:
    """A released lease; a PR's says whether it was merged and whether it closed the packet's issue
    (`merged #N`: the packet's own work landed, which no "lease lost" nudge should call lost)."""
    if lease.pull is None:
        return Reason(kind="lease-released", subject=lease.describe())
    own = f" {issue_text(issue)}" if issue in (lease.closes or ()) else ""
    return Reason(kind="pull-released", subject=lease.describe(), detail=(lease.pull_state or "closed") + own)


def _where(paths: Sequence[str], lease: Lease) -> str:
    """The lease's paths that meet `paths`, at most five named: which of a PR's files collide."""
    meeting = list(dict.fromkeys(glob for _, glob in overlapping_pairs(paths, lease.tree))) or list(lease.tree)
    more = f" and {len(meeting) - 5} more" if len(meeting) > 5 else ""
    return ", ".join(meeting[:5]) + more


def _coordination(packet: WorkPacket, issues_of: dict[str, IssueKey], held: _Holders) -> list[Reason]:
    reasons: list[Reason] = []
    for lease, issues in held.overlapping(packet.paths):
        if packet.issue in issues:
            continue
        if lease.pull is not None:
            reasons.append(Reason(kind="pull-overlap", subject=lease.describe(), detail=_where(packet.paths, lease)))
        else:
            reasons.append(Reason(kind="lease-overlap", subject=lease.describe(), detail=", ".join(packet.paths)))
    for blocker in packet.blocked_by_ids:
        holding = [x for x in held.of(issues_of[blocker]) if overlaps(packet.paths, x.tree)]
        if holding and issues_of[blocker] == packet.issue:
            reasons.append(Reason(kind="blocker-holds-lease", subject=blocker, detail=holding[0].describe()))
    if packet.blocked_by_condition.strip():
        reasons.append(Reason(kind="condition", subject=packet.blocked_by_condition))
    return reasons
