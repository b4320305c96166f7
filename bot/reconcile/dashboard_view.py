"""What the dashboard issue shows, as values: the merged state sorted into what a team lead asks. Pure.

Each packet sits in the one section of its merged derived state (the state its labels and `why`
show): *ready now*, *running*, *waiting* (grouped by what it waits on, so a blocker is named
once per group) or *complete*. What the regeneration PR would change is listed apart, as pending.
Nothing here reads the clock: the run's time is an argument, and the facts that move with it
(ages) are kept out of the content, so a run that changes nothing writes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bot.config import BotConfig
from bot.evidence.derive import Derivation, Reason
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.observed import Comment
from bot.snapshot.model import Snapshot, WorkPacket, WorkState
from bot.snapshot.validation import review_issue
from bot.timestamps import parse_timestamp, utc_stamp

WAITING_STATES: tuple[WorkState, ...] = (
    "waiting-dependency",
    "waiting-coordination",
    "waiting-evidence",
    "capacity-hold",
)
BlockerKind = Literal["dependency", "lease", "blocker-lease", "condition", "evidence", "hold", "unobserved", "other"]


class Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Packet(Row):
    id: str
    issue: int
    state: WorkState
    program: str = ""
    lane: str = ""
    owner: str = ""


class LeaseLine(Row):
    """A live lease as the dashboard shows it: when it was taken (a fixed time, so a heartbeat is
    no change to the dashboard) and whether it is past its time to live."""

    holder: str
    lane: str
    issue: int | None
    since: str | None
    stale: bool


class Running(Row):
    packet: Packet
    leases: tuple[LeaseLine, ...]


class Blocker(Row):
    """One thing packets wait on: a packet (with its issue and merged state), a lease, a condition."""

    kind: BlockerKind
    text: str = ""
    issue: int | None = None
    state: str = ""
    lease: LeaseLine | None = None


class WaitGroup(Row):
    blockers: tuple[Blocker, ...]
    packets: tuple[Packet, ...]


class Review(Row):
    constraint: str
    review_by: str
    issue: int | None
    overdue: bool


class Pending(Row):
    packet: Packet
    becomes: WorkState


class PendingCommand(Row):
    comment_id: int
    issue: int
    user: str
    effect: str


class Readback(Row):
    """The lease readback as the dashboard shows it; its time and age, which move with every
    publish and heartbeat, are on the dashboard's last line, which is not compared."""

    file: str
    format: str
    live: int
    stale: int


class Content(Row):
    """Everything the dashboard says but the time of the run."""

    repository: str
    prefix: str
    ready: tuple[Packet, ...]
    running: tuple[Running, ...]
    waiting: tuple[WaitGroup, ...]
    complete: tuple[Packet, ...]
    reviews: tuple[Review, ...]
    pending: tuple[Pending, ...]
    commands: tuple[PendingCommand, ...]
    # The regeneration PR: its number, or None; `opening` when this run opens it.
    pull: int | None
    opening: bool
    # The open PR carries commits perfbot did not make: perfbot leaves it, and says what to do.
    held: bool = False
    readback: Readback
    review_days: int

    @property
    def waiting_count(self) -> int:
        return sum(len(group.packets) for group in self.waiting)

    @property
    def overdue_count(self) -> int:
        return sum(review.overdue for review in self.reviews)

    def section_of(self, packet_id: str) -> str:
        """The section a packet is listed in: `ready`, `running`, `waiting` or `complete` ("" if none)."""
        sections: dict[str, Sequence[Packet]] = {
            "ready": self.ready,
            "running": [r.packet for r in self.running],
            "waiting": [p for g in self.waiting for p in g.packets],
            "complete": self.complete,
        }
        return next((name for name, found in sections.items() if any(p.id == packet_id for p in found)), "")


def lease_line(lease: Lease, config: BotConfig, now: dt.datetime) -> LeaseLine:
    rules = config.leases_rules
    taken = parse_timestamp(lease.acquired_at) if lease.acquired_at else None
    return LeaseLine(
        holder=lease.holder,
        lane=lease.lane,
        issue=lease.issue(rules.holder_issue_pattern),
        since=utc_stamp(taken) if taken else None,
        stale=lease.is_stale(now, rules.ttl_minutes, rules.grace_minutes),
    )


def content(
    snapshot: Snapshot,
    merged: Sequence[Derivation],
    pending: Mapping[str, WorkState],
    applied: Sequence[tuple[Comment, str]],
    readback: LeaseReadback,
    config: BotConfig,
    now: dt.datetime,
    pull: tuple[int | None, bool],
    repository: str,
) -> Content:
    """The dashboard's content for the merged state `merged` of `snapshot`; `pending` maps each
    packet the regeneration PR changes to the state it takes when the PR merges; `pull` is the PR's
    number and whether this run opens it."""
    packets = {p.id: p for p in snapshot.work_packets}
    states = {d.id: d.derived_state for d in merged}
    leases = {lease.describe(): lease_line(lease, config, now) for lease in readback.live}

    def row(d: Derivation) -> Packet:
        packet = packets[d.id]
        return Packet(
            id=d.id,
            issue=d.issue,
            state=d.derived_state,
            program=packet.program_id,
            lane=packet.lane,
            owner=d.derived_owner,
        )

    by_state: dict[str, list[Derivation]] = {}
    for d in merged:
        by_state.setdefault(d.derived_state, []).append(d)
    running = tuple(
        Running(packet=row(d), leases=tuple(v for v in leases.values() if v.issue == d.issue))
        for d in by_state.get("running", [])
    )
    return Content(
        repository=repository,
        prefix=config.commands.prefix,
        ready=tuple(row(d) for d in by_state.get("ready", [])),
        running=running,
        waiting=_grouped([d for d in merged if d.derived_state in WAITING_STATES], row, packets, states, leases),
        complete=tuple(row(d) for d in by_state.get("complete", [])),
        reviews=_reviews(snapshot, now, config.commands.review_days),
        pending=tuple(Pending(packet=row(d), becomes=pending[d.id]) for d in merged if d.id in pending),
        commands=tuple(
            PendingCommand(comment_id=c.id, issue=c.issue, user=c.user, effect=effect) for c, effect in applied
        ),
        pull=pull[0],
        opening=pull[1],
        readback=_readback(readback, config, now),
        review_days=config.commands.review_days,
    )


def _grouped(
    waiting: Sequence[Derivation],
    row: Callable[[Derivation], Packet],
    packets: Mapping[str, WorkPacket],
    states: Mapping[str, str],
    leases: Mapping[str, LeaseLine],
) -> tuple[WaitGroup, ...]:
    """Waiting packets grouped by the exact set of things each waits on, first seen first."""
    groups: dict[tuple[Blocker, ...], list[Packet]] = {}
    for d in waiting:
        key = tuple(dict.fromkeys(b for r in d.reasons if (b := _blocker(r, d, packets, states, leases)) is not None))
        groups.setdefault(key or (Blocker(kind="other"),), []).append(row(d))
    return tuple(WaitGroup(blockers=key, packets=tuple(members)) for key, members in groups.items())


def _blocker(
    reason: Reason,
    d: Derivation,
    packets: Mapping[str, WorkPacket],
    states: Mapping[str, str],
    leases: Mapping[str, LeaseLine],
) -> Blocker | None:
    """What one reason of a waiting packet names it waiting on (None: a reason that blocks nothing)."""
    kind = reason.kind
    if kind == "dependency-open" or kind == "blocker-holds-lease":
        other = packets.get(reason.subject)
        issue = other.issue if other is not None else None
        lease = leases.get(reason.detail) if kind == "blocker-holds-lease" else None
        return Blocker(
            kind="dependency" if kind == "dependency-open" else "blocker-lease",
            text=reason.subject,
            issue=issue,
            state=states.get(reason.subject, ""),
            lease=lease,
        )
    if kind == "lease-overlap":
        return Blocker(kind="lease", text=reason.subject, lease=leases.get(reason.subject))
    if kind == "condition":
        return Blocker(kind="condition", text=reason.subject)
    if kind == "decided":
        return Blocker(kind="hold" if d.derived_state == "capacity-hold" else "evidence")
    if kind == "issue-unobserved":
        return Blocker(kind="unobserved", text=reason.subject)
    return None


def _reviews(snapshot: Snapshot, now: dt.datetime, review_days: int) -> tuple[Review, ...]:
    """Constraints past `review_by` (overdue) and those due within `review_days`, soonest first."""
    today = now.astimezone(dt.UTC).date()
    horizon = today + dt.timedelta(days=review_days)
    found = [
        Review(
            constraint=c.id,
            review_by=c.review_by.isoformat(),
            issue=review_issue(c.review_issue, c.authority_owner),
            overdue=today > c.review_by,
        )
        for c in snapshot.constraints
        if c.review_by <= horizon
    ]
    return tuple(sorted(found, key=lambda r: (r.review_by, r.constraint)))


def _readback(readback: LeaseReadback, config: BotConfig, now: dt.datetime) -> Readback:
    rules = config.leases_rules
    return Readback(
        file=readback.file,
        format=readback.format,
        live=len(readback.live),
        stale=len(readback.stale(now, rules.ttl_minutes, rules.grace_minutes)),
    )
