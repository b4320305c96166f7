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
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence

from bot.bodies import fitted
from bot.config import BotConfig
from bot.evidence.derive import Derivation
from bot.github.actions import TOPICS, CommentAction, OverdueReview, Topic
from bot.github.markers import marker, markers_of
from bot.github.observed import Observed
from bot.render import Renderer
from bot.snapshot.model import Snapshot, WorkPacket
from bot.snapshot.validation import review_issue

WAITING = frozenset({"waiting-dependency", "waiting-coordination"})


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


def ready_episode(packet: WorkPacket, derivation: Derivation) -> int | None:
    """The revision of the ready episode to announce, or None when there is none to announce."""
    if derivation.derived_state != "ready":
        return None
    if packet.state in WAITING:
        return packet.state_revision + 1  # the regeneration PR records it with the next revision
    if packet.state == "ready" and packet.previous_state in WAITING:
        return packet.state_revision  # a merged change made it ready, from waiting
    return None


def _landed(packet: WorkPacket, d: Derivation) -> bool:
    """The packet's own pull request merged: its work landed, no lease was lost (GitHub closes the
    issue, and the issue-mismatch nudge asks for the packet's completion)."""
    return any(r.kind == "pull-released" and r.detail == f"merged #{packet.issue}" for r in d.reasons)


class Nudges:
    """Comments that tell people something changed; each is said once, keyed by a marker."""

    def __init__(self, observed: Observed, config: BotConfig, renderer: Renderer, now: dt.datetime) -> None:
        self.observed, self.config, self.renderer, self.now = observed, config, renderer, now
        self.said = markers_of(observed.bot_comments())
        self.planned: set[tuple[str, str]] = set()

    def _comment(
        self,
        issue: int,
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

        def render(shown: int) -> str:
            if listed is not None:
                context.update({name: items[:shown], "omitted": len(items) - shown})
            return self.renderer.render(
                TOPICS[topic].template, marker=marker(topic, key), prefix=self.config.commands.prefix, **context
            )

        body = fitted(render, len(items), self.config.commands.max_body_chars, self.renderer)
        return [CommentAction(issue=issue, topic=topic, body=body)]

    def every(
        self, merged: Snapshot, derivations: list[Derivation], working: Snapshot, overdue_now: list[OverdueReview]
    ) -> list[CommentAction]:
        """Every nudge of a run, in the plan's order: `merged` is the default branch's snapshot and
        `derivations` its packets' derivations; `working` the snapshot with this run's commands.

        A new nudge adds its method below and its line here, so `decide` calls it unchanged.
        """
        return [
            *self.packets(merged, derivations),
            *self.reviews(working, overdue_now),
            *self.mismatches(merged, derivations, working),
        ]

    def packets(self, merged: Snapshot, derivations: list[Derivation]) -> list[CommentAction]:
        """Ready and lease-lost nudges from the default branch's snapshot and its derivations."""
        actions: list[CommentAction] = []
        for packet, d in zip(merged.work_packets, derivations, strict=True):
            ready = ready_episode(packet, d)
            topic: Topic
            if ready is not None:
                topic, episode = "packet-ready", _digest("ready", ready)
            elif packet.state == "running" and not d.own_lease and not _landed(packet, d):
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
        by_issue: dict[int, list[WorkPacket]] = {}
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
