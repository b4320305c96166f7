"""Nudges: comments that tell people something changed, each said once, keyed by a marker.

A packet that became ready, a running packet that lost its lease, a constraint past its review
date, an issue closed or reopened against its packet's state.

Packet nudges rest on merged evidence: the default branch's snapshot with the live leases and
issues, never the regeneration PR, which may still be dropped. Their key names the *episode*: a
stretch of the packet's state on the default branch, `state_revision` counting the merged
changes of state and `previous_state` the state the last one moved it from. A ready nudge names
the ready episode it announces, which must follow a waiting one: the next revision when the
default branch still records a waiting state (the regeneration PR will open that episode), or
the current one when a merged change moved the packet from waiting to `ready`. So a packet that
becomes ready, stops, and becomes ready again is told again, and told once per episode whether
the evidence showed it before or after the merge.

Ready is judged against what perfbot last told people (issue #45): where perfbot's own open PR
records a wait the default branch does not (the evidence moved the packet after the last merge,
and every surface said so), the episode is that record's (`Told`), so the release that ends the
wait is told before any merge. A packet that a change waiting in the PR makes other than ready is
told nothing now; what that change makes true is told when it merges.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence

from bot.bodies import fitted
from bot.config import BotConfig
from bot.evidence.derive import Derivation
from bot.github.actions import TOPICS, CommentAction, OverdueReview, Topic
from bot.github.markers import marker, markers_of
from bot.github.observed import Observed
from bot.issue_refs import IssueKey, issue_text
from bot.reconcile.inputs import Told
from bot.render import Renderer
from bot.snapshot.model import Snapshot, WorkPacket
from bot.snapshot.validation import review_issue

WAITING = frozenset({"waiting-dependency", "waiting-coordination"})
# A person's decisions: a packet a pending command gives one of these is told nothing the evidence says.
DECIDED = frozenset({"complete", "capacity-hold", "waiting-evidence"})


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def overdue_reviews(snapshot: Snapshot, now: dt.datetime) -> list[OverdueReview]:
    today = now.astimezone(dt.UTC).date()
    return [
        OverdueReview(
            constraint=c.id, review_by=c.review_by.isoformat(), issue=review_issue(c.review_issue, c.authority_owner)
        )
        for c in snapshot.constraints
        if today > c.review_by
    ]


def ready_episode(packet: WorkPacket, derivation: Derivation, told: Told | None = None) -> str | None:
    """The key of the ready episode to announce, or None when there is none to announce.

    It is judged against what perfbot last told people: the default branch's record, or, where
    perfbot's own open regeneration PR records the packet otherwise (the evidence moved it to
    waiting after the last merge, and every surface said so), that record."""
    if derivation.derived_state != "ready":
        return None
    if packet.state in WAITING:
        return _digest("ready", packet.state_revision + 1)  # the PR records it with the next revision
    record = told.states.get(packet.id) if told is not None else None
    if (
        told is not None
        and record is not None
        and record[0] in WAITING
        and record
        != (
            packet.state,
            packet.state_revision,
        )
    ):
        return _digest("ready", "told", told.key)  # the PR told people it waits; the merge never came
    if packet.state == "ready" and packet.previous_state in WAITING:
        return _digest("ready", packet.state_revision)  # a merged change made it ready, from waiting
    return None


def _landed(packet: WorkPacket, d: Derivation) -> bool:
    """The packet's own pull request merged: its work landed, no lease was lost (GitHub closes the
    issue, and the issue-mismatch nudge asks for the packet's completion)."""
    return any(r.kind == "pull-released" and r.detail == f"merged {issue_text(packet.issue)}" for r in d.reasons)


class Nudges:
    """Comments that tell people something changed; each is said once, keyed by a marker."""

    def __init__(
        self, observed: Observed, config: BotConfig, renderer: Renderer, now: dt.datetime, told: Told | None = None
    ) -> None:
        self.observed, self.config, self.renderer, self.now = observed, config, renderer, now
        self.told = told
        self.said = markers_of(observed.bot_comments())
        self.planned: set[tuple[str, str]] = set()

    def _comment(
        self,
        issue: IssueKey,
        topic: Topic,
        key: str,
        listed: tuple[str, Sequence[object]] | None = None,
        **context: object,
    ) -> list[CommentAction]:
        """One nudge, unless said; `listed` names its list (shown as far as it fits, the rest counted)."""
        if (topic, key) in self.planned or (topic, key) in self.said:
            return []
        self.planned.add((topic, key))
        name, items = listed if listed is not None else ("", ())

        def render(shown: int, renderer: Renderer = self.renderer) -> str:
            if listed is not None:
                context.update({name: items[:shown], "omitted": len(items) - shown})
            return renderer.render(
                TOPICS[topic].template, marker=marker(topic, key), prefix=self.config.commands.prefix, **context
            )

        body = fitted(render, len(items), self.config.commands.max_body_chars, self.renderer)
        return [CommentAction(issue=issue, topic=topic, body=body)]

    def every(
        self,
        merged: Snapshot,
        derivations: list[Derivation],
        working: Snapshot,
        overdue_now: list[OverdueReview],
        pending: Mapping[str, str] | None = None,
    ) -> list[CommentAction]:
        """Every nudge of a run, in the plan's order: `merged` is the default branch's snapshot and
        `derivations` its packets' derivations; `working` the snapshot with this run's commands,
        and `pending` each packet's state in it where that differs from the merged one.

        A new nudge adds its method below and its line here, so `decide` calls it unchanged.
        """
        return [
            *self.packets(merged, derivations, pending or {}),
            *self.reviews(working, overdue_now),
            *self.mismatches(merged, derivations, working),
        ]

    def packets(
        self, merged: Snapshot, derivations: list[Derivation], pending: Mapping[str, str] | None = None
    ) -> list[CommentAction]:
        """Ready and lease-lost nudges from the default branch's snapshot and its derivations.
        `pending` maps each packet the regeneration PR changes to the state it takes on the merge:
        one that will not be ready then (a completion, a hold, a block waiting in the PR) is not
        told it is ready, and one a person completes or holds is not told its lease is lost (its
        owner let it go on purpose); what its change makes true is told when it merges."""
        actions: list[CommentAction] = []
        pending = pending or {}
        for packet, d in zip(merged.work_packets, derivations, strict=True):
            ready = ready_episode(packet, d, self.told) if pending.get(packet.id, "ready") == "ready" else None
            topic: Topic
            if ready is not None:
                topic, episode = "packet-ready", ready
            elif (
                packet.state == "running"
                and not d.own_lease
                and not _landed(packet, d)
                and pending.get(packet.id) not in DECIDED
            ):
                topic, episode = "lease-lost", _digest(packet.state, packet.state_revision)
            else:
                continue
            actions += self._comment(
                packet.issue,
                topic,
                f"{packet.id}:{episode}",
                ("reasons", d.reasons),
                packet=packet,
                derivation=d,
                lease_file=self.config.lease_file is not None,
                pulls=self.config.pull_leases is not None,
            )
        return actions

    def reviews(self, snapshot: Snapshot, overdue_now: list[OverdueReview]) -> list[CommentAction]:
        actions: list[CommentAction] = []
        for overdue in overdue_now:
            constraint = snapshot.constraint(overdue.constraint)
            if overdue.issue is None or constraint is None:
                continue
            actions += self._comment(
                overdue.issue,
                "review-overdue",
                f"{constraint.id}:{overdue.review_by}",
                constraint=constraint,
                today=self.now.astimezone(dt.UTC).date(),
            )
        return actions

    def mismatches(self, merged: Snapshot, derivations: list[Derivation], working: Snapshot) -> list[CommentAction]:
        """Issues closed while their packet is open, or reopened while it is complete.

        The mismatch must hold on the default branch (its derived state, which the labels show)
        and in the working snapshot: a completion still in the PR neither makes one (it may be
        dropped) nor leaves one to point out.
        """
        actions: list[CommentAction] = []
        by_issue: dict[IssueKey, list[WorkPacket]] = {}
        states = {d.id: d.derived_state for d in derivations}
        for packet in merged.work_packets:
            by_issue.setdefault(packet.issue, []).append(packet.model_copy(update={"state": states[packet.id]}))
        complete_now = {p.id: p.state == "complete" for p in working.work_packets}
        issues = self.observed.issues_by_number()
        for number, packets in by_issue.items():
            issue = issues.get(number)
            if issue is None:
                continue
            if issue.state == "closed":
                open_packets = [p for p in packets if p.state != "complete" and not complete_now.get(p.id, False)]
                kind = "closed-while-open"
            elif issue.state_reason == "reopened":
                open_packets = [p for p in packets if p.state == "complete" and complete_now.get(p.id, False)]
                kind = "reopened-while-complete"
            else:
                continue
            if open_packets:
                key = f"{number}:{kind}"
                actions += self._comment(number, "issue-mismatch", key, ("packets", open_packets), kind=kind)
        return actions
