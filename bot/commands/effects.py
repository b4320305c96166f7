"""What a command does to the snapshot, or why it is refused. Pure: snapshot in, snapshot out.

Each accepted command adds its ledger entry in the same change as its effect; the result must
still validate, or the command is refused and nothing of it is kept.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bot.commands.grammar import Command
from bot.config import BotConfig
from bot.github.observed import Comment
from bot.snapshot.model import (
    DECIDED_STATES,
    Constraint,
    EvidenceRef,
    LedgerEntry,
    RetiredConstraint,
    Snapshot,
    WorkPacket,
)
from bot.snapshot.validation import validate
from bot.timestamps import utc_stamp
from bot.untrusted import code_span


@dataclass(frozen=True)
class Applied:
    snapshot: Snapshot
    effect: str


@dataclass(frozen=True)
class Refused:
    reason: str


Outcome = Applied | Refused


def suggest(unknown: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(unknown, list(known), n=3, cutoff=0.5)
    return f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""


def find_packet(snapshot: Snapshot, packet_id: str) -> WorkPacket | Refused:
    packet = snapshot.packet(packet_id)
    if packet is None:
        return Refused(f"unknown packet `{packet_id}`" + suggest(packet_id, (p.id for p in snapshot.work_packets)))
    return packet


def apply(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    """Apply one snapshot-changing command and record it in the ledger, or refuse it."""
    outcome = _EFFECTS[command.verb](snapshot, command, comment, config)
    if isinstance(outcome, Refused):
        return outcome
    entry = LedgerEntry(
        comment_id=comment.id,
        line=command.line,
        issue=comment.issue,
        author=comment.user,
        at=utc_stamp(comment.created_at),
        effect=outcome.effect,
    )
    changed = outcome.snapshot.model_copy(update={"ledger": (*outcome.snapshot.ledger, entry)})
    findings = validate(changed)
    if findings:
        return Refused("the snapshot would be invalid: " + "; ".join(f.message for f in findings[:3]))
    return Applied(changed, outcome.effect)


def _with_packet(snapshot: Snapshot, packet: WorkPacket) -> Snapshot:
    packets = tuple(packet if p.id == packet.id else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def _complete(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    packet = find_packet(snapshot, command.target)
    if isinstance(packet, Refused):
        return packet
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is already complete")
    related = packet.related_issues
    if command.receipt is not None and command.receipt != packet.issue and command.receipt not in related:
        related = (*related, command.receipt)
    owner = config.owner.accepted_receipt.format(receipt=command.receipt) if command.receipt else packet.owner
    done = packet.model_copy(
        update={
            "state": "complete",
            "result": command.result,
            "related_issues": related,
            "owner": owner,
            "next_action": "",
        }
    )
    packets = []
    for p in snapshot.work_packets:
        if p.id == packet.id:
            packets.append(done)
        elif packet.id in p.hard_dependency_ids:
            packets.append(
                p.model_copy(
                    update={
                        "hard_dependency_ids": tuple(d for d in p.hard_dependency_ids if d != packet.id),
                        "satisfied_dependency_ids": (*p.satisfied_dependency_ids, packet.id),
                    }
                )
            )
        else:
            packets.append(p)
    receipt = f" (receipt #{command.receipt})" if command.receipt else ""
    return Applied(snapshot.model_copy(update={"work_packets": tuple(packets)}), f"completed `{packet.id}`{receipt}")


def _state(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    packet = find_packet(snapshot, command.target)
    if isinstance(packet, Refused):
        return packet
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is complete; its state is final")
    if packet.state == command.state:
        return Refused(f"`{packet.id}` is already `{command.state}`")
    if command.state not in DECIDED_STATES and packet.state not in DECIDED_STATES:
        return Refused(
            f"`{command.state}` is derived from evidence (dependencies, leases, assignment); a person decides "
            "only `capacity-hold` and `waiting-evidence`, and can lift them with `ready`"
        )
    reason = f" (reason: {code_span(command.reason)})" if command.reason else ""
    changed = _with_packet(snapshot, packet.model_copy(update={"state": command.state}))
    return Applied(changed, f"`{packet.id}`: `{packet.state}` → `{command.state}`{reason}")


def _block(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    packet = find_packet(snapshot, command.target)
    if isinstance(packet, Refused):
        return packet
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is complete; nothing can block it")
    changed = _with_packet(snapshot, packet.model_copy(update={"blocked_by_condition": command.condition}))
    return Applied(changed, f"`{packet.id}` blocked: {code_span(command.condition)}")


def _unblock(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    packet = find_packet(snapshot, command.target)
    if isinstance(packet, Refused):
        return packet
    if not packet.blocked_by_condition:
        return Refused(f"`{packet.id}` has no blocking condition")
    changed = _with_packet(snapshot, packet.model_copy(update={"blocked_by_condition": ""}))
    return Applied(changed, f"`{packet.id}` unblocked")


def _with_constraint(
    snapshot: Snapshot, constraint_id: str, change: Callable[[Constraint], dict[str, Any]]
) -> Snapshot:
    constraints = tuple(c.model_copy(update=change(c)) if c.id == constraint_id else c for c in snapshot.constraints)
    return snapshot.model_copy(update={"constraints": constraints})


def _constraint_or_refusal(snapshot: Snapshot, constraint_id: str) -> Refused | None:
    if snapshot.constraint(constraint_id) is None:
        known = (c.id for c in snapshot.constraints)
        return Refused(f"unknown constraint `{constraint_id}`" + suggest(constraint_id, known))
    return None


def _review(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    missing = _constraint_or_refusal(snapshot, command.target)
    if missing:
        return missing
    today = comment.created_at.astimezone(dt.UTC).date()
    try:
        by = command.by or today + dt.timedelta(days=config.commands.review_days)
    except OverflowError:
        return Refused(f"no review date can follow {today}")
    if by <= today:
        return Refused(f"review date {by} is not after the comment's date {today}")
    note = f" (note: {code_span(command.note)})" if command.note else ""
    return Applied(
        _with_constraint(snapshot, command.target, lambda c: {"observed_at": today, "review_by": by}),
        f"`{command.target}` re-observed {today}; review by {by}{note}",
    )


def _evidence(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    missing = _constraint_or_refusal(snapshot, command.target)
    if missing:
        return missing
    item = EvidenceRef(class_=command.evidence_class, summary=command.summary, ref=command.ref)
    return Applied(
        _with_constraint(snapshot, command.target, lambda c: {"evidence": (*c.evidence, item)}),
        f"evidence [{command.evidence_class}] added to `{command.target}`",
    )


def _exit(snapshot: Snapshot, command: Command, comment: Comment, config: BotConfig) -> Outcome:
    missing = _constraint_or_refusal(snapshot, command.target)
    if missing:
        return missing
    users = [
        *(f"program `{p.id}`" for p in snapshot.programs if command.target in p.constraint_ids),
        *(f"packet `{w.id}`" for w in snapshot.work_packets if command.target in w.constraint_ids),
        *(f"route `{r.source}`" for r in snapshot.oss_routes if command.target in r.proposed_constraint_ids),
    ]
    if users:
        more = f" and {len(users) - 5} more" if len(users) > 5 else ""
        return Refused(f"`{command.target}` is still referenced by {', '.join(users[:5])}{more}")
    constraint = snapshot.constraint(command.target)
    assert constraint is not None  # checked above
    retired = RetiredConstraint(
        id=constraint.id, name=constraint.name, retired_on=comment.created_at.astimezone(dt.UTC).date(), ref=command.ref
    )
    return Applied(
        snapshot.model_copy(
            update={
                "constraints": tuple(c for c in snapshot.constraints if c.id != constraint.id),
                "retired_constraints": (*snapshot.retired_constraints, retired),
            }
        ),
        f"retired `{constraint.id}` (exit met: {code_span(command.ref)})",
    )


_EFFECTS = {
    "complete": _complete,
    "state": _state,
    "block": _block,
    "unblock": _unblock,
    "review": _review,
    "evidence": _evidence,
    "exit": _exit,
}
