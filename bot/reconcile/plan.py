"""Decide: from the gathered inputs to the next snapshot, the page and the actions. Pure.

The clock, the bot's login and every observation are inputs; nothing here reads a file,
the network or the time.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from bot.commands import inbox as commands_inbox
from bot.config import BotConfig
from bot.errors import BotError
from bot.evidence.derive import Derivation, Evidence, derive_all
from bot.evidence.leases import LeaseReadback
from bot.github.markers import marker, said
from bot.github.observed import Comment, Observed
from bot.reconcile.actions import (
    Action,
    CommentAction,
    LeaseReport,
    OverdueReview,
    Plan,
    PullRequestAction,
    TipReport,
)
from bot.render import Renderer
from bot.snapshot import store
from bot.snapshot.model import Snapshot, WorkPacket
from bot.snapshot.store import Loaded
from bot.snapshot.validation import review_issue, validate

WAITING = frozenset({"waiting-dependency", "waiting-coordination"})


@dataclass(frozen=True)
class Inputs:
    """Everything one run decides on (the default branch's files, leases, GitHub, the clock)."""

    snapshot: Loaded[Snapshot]
    snapshot_path: str
    page_path: str
    committed: dict[str, str]
    readback: LeaseReadback
    observed: Observed
    config: BotConfig
    renderer: Renderer
    now: dt.datetime
    # The default branch's tip, when its files (not the local checkout's) were decided on.
    decided_on: TipReport | None = None


def decide(inputs: Inputs) -> Plan:
    config, observed = inputs.config, inputs.observed
    base = inputs.snapshot.model
    inbox = commands_inbox.read(base, observed, config, inputs.renderer)
    snapshot = inbox.snapshot
    evidence = Evidence(
        leases=inputs.readback.live,
        released=inputs.readback.released,
        issues={
            issue.number: issue.model_copy(update={"assignees": inbox.assignees.get(issue.number, issue.assignees)})
            for issue in observed.issues
        },
        rules=config.leases_rules,
        owner=config.owner,
    )
    derivations = derive_all(snapshot, evidence)
    following = _count_state_changes(base, next_snapshot(snapshot, derivations))
    if following != base and inbox.settled_through > base.commands_settled_through:
        following = following.model_copy(
            update={
                "ledger": tuple(e for e in following.ledger if e.comment_id > inbox.settled_through),
                "commands_settled_through": inbox.settled_through,
            }
        )
    findings = validate(following)
    if findings:
        raise BotError("the reconciled snapshot would be invalid: " + "; ".join(f.message for f in findings))
    files = {
        inputs.snapshot_path: store.save_text(inputs.snapshot, following),
        inputs.page_path: inputs.renderer.page(following, config.page_text),
    }
    nudges = Nudges(inputs)
    actions: list[Action] = [
        *inbox.actions,
        *nudges.packets(snapshot, derivations),
        *nudges.reviews(snapshot),
        *nudges.mismatches(snapshot),
    ]
    actions.append(pull_request(inputs, derivations, files, inbox.applied))
    return Plan(
        now=inputs.now.isoformat(),
        decided_on=inputs.decided_on,
        commands=tuple(inbox.reports),
        actions=tuple(actions),
        packets=tuple(derivations),
        overdue=tuple(_overdue(snapshot, inputs.now)),
        leases=LeaseReport(
            file=inputs.readback.file,
            format=inputs.readback.format,
            live=len(inputs.readback.live),
            stale=tuple(
                lease.describe()
                for lease in inputs.readback.stale(
                    inputs.now, config.leases_rules.ttl_minutes, config.leases_rules.grace_minutes
                )
            ),
            warnings=inputs.readback.warnings,
        ),
    )


def next_snapshot(snapshot: Snapshot, derivations: list[Derivation]) -> Snapshot:
    """Derived states and owners written in; cleared blockers dropped; completed deps satisfied."""
    by_id = {d.id: d for d in derivations}
    packets = []
    for packet in snapshot.work_packets:
        d = by_id[packet.id]
        packets.append(
            packet.model_copy(
                update={
                    "state": d.derived_state,
                    "owner": d.derived_owner,
                    "blocked_by_ids": tuple(b for b in packet.blocked_by_ids if b not in d.cleared_blockers),
                    "hard_dependency_ids": tuple(x for x in packet.hard_dependency_ids if x not in d.newly_satisfied),
                    "satisfied_dependency_ids": (*packet.satisfied_dependency_ids, *d.newly_satisfied),
                }
            )
        )
    return snapshot.model_copy(update={"work_packets": tuple(packets)})


def _count_state_changes(base: Snapshot, following: Snapshot) -> Snapshot:
    """Bump `state_revision` of each packet whose state this change moves (one episode each)."""
    before = {p.id: p for p in base.work_packets}
    packets = tuple(
        p.model_copy(update={"state_revision": before[p.id].state_revision + 1})
        if p.id in before and p.state != before[p.id].state
        else p
        for p in following.work_packets
    )
    return following.model_copy(update={"work_packets": packets})


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]


def _overdue(snapshot: Snapshot, now: dt.datetime) -> list[OverdueReview]:
    today = now.astimezone(dt.UTC).date()
    return [
        OverdueReview(
            constraint=c.id, review_by=c.review_by.isoformat(), issue=review_issue(c.review_issue, c.authority_owner)
        )
        for c in snapshot.constraints
        if today > c.review_by
    ]


class Nudges:
    """Comments that tell people something changed; each is said once, keyed by a marker."""

    def __init__(self, inputs: Inputs) -> None:
        self.inputs = inputs
        self.mine: list[Comment] = inputs.observed.bot_comments()
        self.planned: set[tuple[str, str]] = set()

    def _comment(self, issue: int, topic: str, key: str, template: str, **context: object) -> list[CommentAction]:
        if (topic, key) in self.planned or said(self.mine, topic, key):
            return []
        self.planned.add((topic, key))
        body = self.inputs.renderer.render(
            template, marker=marker(topic, key), prefix=self.inputs.config.commands.prefix, **context
        )
        return [CommentAction(issue=issue, topic=topic, body=body)]  # type: ignore[arg-type]

    def packets(self, snapshot: Snapshot, derivations: list[Derivation]) -> list[CommentAction]:
        actions: list[CommentAction] = []
        for packet, d in zip(snapshot.work_packets, derivations, strict=True):
            # The default branch's record names the episode: it changes each time a merged
            # change moves the packet's state, and stays put while a PR is open.
            episode = _digest(packet.state, packet.state_revision)
            if packet.state in WAITING and d.derived_state == "ready":
                actions += self._comment(
                    packet.issue,
                    "packet-ready",
                    f"{packet.id}:{episode}",
                    "comments/packet-ready.md.j2",
                    packet=packet,
                    derivation=d,
                )
            elif packet.state == "running" and not d.own_lease:
                actions += self._comment(
                    packet.issue,
                    "lease-lost",
                    f"{packet.id}:{episode}",
                    "comments/lease-lost.md.j2",
                    packet=packet,
                    derivation=d,
                )
        return actions

    def reviews(self, snapshot: Snapshot) -> list[CommentAction]:
        actions: list[CommentAction] = []
        for overdue in _overdue(snapshot, self.inputs.now):
            constraint = snapshot.constraint(overdue.constraint)
            if overdue.issue is None or constraint is None:
                continue
            actions += self._comment(
                overdue.issue,
                "review-overdue",
                f"{constraint.id}:{overdue.review_by}",
                "comments/review-overdue.md.j2",
                constraint=constraint,
                today=self.inputs.now.astimezone(dt.UTC).date(),
            )
        return actions

    def mismatches(self, snapshot: Snapshot) -> list[CommentAction]:
        actions: list[CommentAction] = []
        by_issue: dict[int, list[WorkPacket]] = {}
        for packet in snapshot.work_packets:
            by_issue.setdefault(packet.issue, []).append(packet)
        issues = self.inputs.observed.issues_by_number()
        for number, packets in by_issue.items():
            issue = issues.get(number)
            if issue is None:
                continue
            if issue.state == "closed":
                open_packets = [p for p in packets if p.state != "complete"]
                kind = "closed-while-open"
            elif issue.state_reason == "reopened":
                open_packets = [p for p in packets if p.state == "complete"]
                kind = "reopened-while-complete"
            else:
                continue
            if open_packets:
                key = f"{number}:{kind}"
                actions += self._comment(
                    number, "issue-mismatch", key, "comments/issue-mismatch.md.j2", kind=kind, packets=open_packets
                )
        return actions


def pull_request(
    inputs: Inputs, derivations: list[Derivation], files: dict[str, str], applied: list[tuple[Comment, str]]
) -> PullRequestAction:
    """Create, update or close the one regeneration PR, or leave it: CPR's create-or-update rule."""
    settings = inputs.config.pull_request
    existing = inputs.observed.open_pull(settings.branch)
    changed = any(inputs.committed.get(path) != text for path, text in files.items())
    if not changed:
        if existing is None:
            return PullRequestAction(operation="none", branch=settings.branch)
        return PullRequestAction(operation="close", number=existing.number, branch=settings.branch)
    changes = [d for d in derivations if d.changed]
    shown = max(len(changes), len(applied))
    while True:
        body = inputs.renderer.render(
            "pr_body.md.j2",
            changes=changes[:shown],
            commands=applied[:shown],
            omitted=len(changes[shown:]) + len(applied[shown:]),
            repository=inputs.observed.repository,
            files=sorted(path for path, text in files.items() if inputs.committed.get(path) != text),
            readback=inputs.readback,
        )
        if len(body) <= inputs.config.commands.max_body_chars or shown == 0:
            break
        shown //= 2  # GitHub refuses longer bodies; the snapshot's diff still shows everything
    proposal = PullRequestAction(
        operation="create", branch=settings.branch, title=settings.title, body=body, files=files
    )
    if existing is None:
        return proposal
    if existing.files == files and existing.body == body and existing.title == settings.title:
        return PullRequestAction(operation="none", number=existing.number, branch=settings.branch)
    if existing.foreign_commits:
        return PullRequestAction(
            operation="none",
            number=existing.number,
            branch=settings.branch,
            note="the branch carries commits perfbot did not make; it is left as it is",
        )
    return proposal.model_copy(update={"operation": "update", "number": existing.number})
