"""`perfbot status`: one screen of what a run sees. Pure.

Counts by derived state, the ready packets and their issues, overdue reviews, the live leases
and their age, and the open regeneration PR (with what this run would do to it).
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field

from bot.config import BotConfig
from bot.evidence.leases import LeaseReadback
from bot.github.actions import OverdueReview, ReadbackTime
from bot.github.observed import Observed
from bot.issue_refs import IssueKey, IssueRef
from bot.reconcile.plan import Plan
from bot.snapshot.model import WORK_STATES


class StatusRow(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")


class ReadyPacket(StatusRow):
    id: str
    issue: IssueKey
    owner: str


class WaitingForMerge(StatusRow):
    """A packet the regeneration PR changes: its merged state, and the state it takes on the merge."""

    id: str
    issue: IssueKey
    state: str
    becomes: str


class LiveLease(StatusRow):
    holder: str
    lane: str
    tree: tuple[str, ...]
    issue: IssueRef | None
    last_seen: str | None
    age_minutes: int | None
    stale: bool


class OpenPull(StatusRow):
    number: int
    title: str
    branch: str
    next_operation: str


class Status(StatusRow):
    now: str
    counts: dict[str, int]
    ready: tuple[ReadyPacket, ...]
    waiting_for_merge: tuple[WaitingForMerge, ...]
    overdue: tuple[OverdueReview, ...]
    # Constraints whose review nudge has nowhere to go (absent when every one has a review issue).
    unrouted_reviews: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    leases: tuple[LiveLease, ...]
    lease_file: str
    pull: OpenPull | None
    next_operation: str
    # When a published readback was read back (the other formats carry no time).
    readback: ReadbackTime | None = Field(default=None, exclude_if=lambda value: value is None)


def more(count: int) -> tuple[str, ...]:
    return (f"… and {count} more",) if count > 0 else ()


def status(plan: Plan, readback: LeaseReadback, observed: Observed, config: BotConfig, now: dt.datetime) -> Status:
    """The summary of a planned (not applied) run, in the merged state the labels show (a change
    pending in the regeneration PR counts once it merges). A ready packet that a pending change
    moves away from ready is not listed as ready but as waiting for the merge, with what it becomes."""
    packets = plan.merged or plan.packets
    counts: dict[str, int] = {s: sum(1 for d in packets if d.derived_state == s) for s in WORK_STATES}
    rules = config.leases_rules
    leases = []
    for lease in readback.live:
        seen = lease.last_seen()
        leases.append(
            LiveLease(
                holder=lease.holder,
                lane=lease.lane,
                # A PR changes up to 3,000 paths: the first few stand for them on one screen.
                tree=lease.tree if lease.pull is None else (*lease.tree[:5], *more(len(lease.tree) - 5)),
                issue=lease.issue(rules.holder_issue_pattern),
                last_seen=seen.strftime("%Y-%m-%dT%H:%M:%SZ") if seen else None,
                age_minutes=int((now - seen).total_seconds() // 60) if seen else None,
                stale=lease.is_stale(now, rules.ttl_minutes, rules.grace_minutes),
            )
        )
    existing = observed.open_pull(config.pull_request.branch)
    operation = plan.pull_request().operation
    return Status(
        now=plan.now,
        counts=counts,
        ready=tuple(
            ReadyPacket(id=d.id, issue=d.issue, owner=d.derived_owner)
            for d in packets
            if d.derived_state == "ready" and plan.pending.get(d.id, "ready") == "ready"
        ),
        waiting_for_merge=tuple(
            WaitingForMerge(id=d.id, issue=d.issue, state=d.derived_state, becomes=plan.pending[d.id])
            for d in packets
            if d.id in plan.pending
        ),
        overdue=plan.overdue,
        unrouted_reviews=plan.unrouted_reviews,
        leases=tuple(leases),
        lease_file=readback.file,
        pull=None
        if existing is None
        else OpenPull(number=existing.number, title=existing.title, branch=existing.head, next_operation=operation),
        next_operation=operation,
        readback=plan.leases.readback,
    )
