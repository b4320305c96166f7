"""What a command does, or why it is refused. Pure: the situation in, an outcome out.

A command either changes the snapshot (`Applied`), or answers and at most asks for one GitHub
side effect (`Answered`), or is refused (`Refused`). Each applied command adds its ledger entry
in the same change as its effect — the ledger is the snapshot's list of applied commands, keyed
by (comment id, line), so a command in it is never applied again. The result must still
validate, or the command is refused and nothing of it is kept.

**Lookalikes** (`lookalike`): ids written in characters that look like, or normalise to, those of a
known id. Ids are matched exactly as written: `ﬁx` (with the ligature U+FB01) is not `fix`, nor is `mа`
(with a Cyrillic а) `ma`, so such a command changes nothing. But whoever wrote it meant the known
id, and their refusal names it: an id whose *skeleton* is a known id's. The skeleton is the id
in Unicode's compatibility form (NFKC: ligatures, full-width and other presentation forms,
super- and subscripts), each letter of another script that looks like a Latin letter or digit
taken as that one (`LOOKALIKE`), each dash, dot or slash that looks like `-`, `.` or `/` taken as
it, and the marks over letters dropped.

**Answers** (`claim`, `unclaim`, `why`, `drop`): the effects of the commands that leave the snapshot
alone: they answer, and at most assign someone. An assignment is a side effect after the reply
(`outbox`), and perfbot never edits a comment, so the reply says what perfbot *will* do ("alice will
be assigned to #9497"), and the record in it is what later runs finish from (`replay`):

- while the command comment is there, a run that finds no 🚀/😕 on it (the verdict comes after
  the assignment) makes the assignment if GitHub does not show it yet, then gives the verdict;
- when the comment is gone, so is the verdict that would say whether the assignment was ever
  made: perfbot does not make it (it could undo a person's later change), and when GitHub does
  not show it, one notice corrects the reply (`lapsed` marker), as it does when the packet or
  its issue is gone.

A run decides a comment afresh only when no reply to it was written, and then its assignment was
not made either (it follows the reply), so the words of the reply that is written hold.
"""

from __future__ import annotations

import datetime as dt
import difflib
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple, TypeVar

from bot.commands.grammar import Blocking, Command, Completion, Evidence, ExitMet, Review, StateChange, Targeted
from bot.commands.records import Key
from bot.config import BotConfig
from bot.github.actions import AssignAction
from bot.github.observed import Comment
from bot.issue_refs import IssueKey, issue_text, ref_seen_from
from bot.render import Renderer
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

# (the working snapshot, packet id, assignees by issue) -> the Markdown answer; the packet exists.
Explainer = Callable[[Snapshot, str, Mapping[IssueKey, tuple[str, ...]]], str]


class Situation(NamedTuple):
    """What an effect may read: the working snapshot and assignments, the config, this run's drops."""

    snapshot: Snapshot
    config: BotConfig
    renderer: Renderer
    assignees: Mapping[IssueKey, tuple[str, ...]]
    # Pending commands an accepted `drop` removes, each mapped to the dropping comment's id.
    dropped: Mapping[Key, int]
    # Commands accepted so far (recorded earlier or decided in this run).
    accepted: AbstractSet[Key]
    # Why a packet of a snapshot is in its state, as a reply (`/perf why`): the evidence it needs
    # (leases, issues, the clock) is the run's, so the planner passes this in.
    explain: Explainer | None = None
    # The bot's own repository (`owner/name`): an issue a command names there is its plain number.
    repository: str = ""


class Applied(NamedTuple):
    snapshot: Snapshot
    effect: str


class Answered(NamedTuple):
    text: str
    # The one side effect an answer may ask for: (un)assigning the commenter.
    assignment: AssignAction | None = None


class Refused(NamedTuple):
    reason: str


Outcome = Applied | Answered | Refused
Effect = Callable[[Situation, Command, Comment], Outcome]


# An id is suggested for a typo when it is this similar (difflib's ratio) ...
SUGGEST_CUTOFF = 0.5
# ... and about as similar as the closest one: ids that share only a prefix (`mac.m…`) are not offered.
SUGGEST_MARGIN = 0.1


def suggest(unknown: str, known: Iterable[str]) -> str:
    """ "; did you mean …?" naming at most three known ids close to `unknown`, the closest first."""
    scored = []
    for candidate in known:
        matcher = difflib.SequenceMatcher(None, unknown, candidate)
        if matcher.real_quick_ratio() >= SUGGEST_CUTOFF and matcher.quick_ratio() >= SUGGEST_CUTOFF:
            scored.append((matcher.ratio(), candidate))
    scored = sorted((item for item in scored if item[0] >= SUGGEST_CUTOFF), reverse=True)
    close = [c for ratio, c in scored[:3] if ratio >= scored[0][0] - SUGGEST_MARGIN]
    return f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""


def unknown(situation: Situation, kind: str, given: str, known: Sequence[str]) -> Refused:
    """An id the snapshot does not hold: one written like a known id names it, any other the closest."""
    meant = lookalike(given, known)
    if meant is not None:
        reply = situation.renderer.render("comments/did-you-mean.md.j2", kind=kind, given=given, meant=meant)
        return Refused(reply.strip())
    return Refused(f"unknown {kind} {code_span(given, 60)}" + suggest(given, known))


def find_packet(situation: Situation, packet_id: str) -> WorkPacket | Refused:
    """The packet with exactly this id, or the refusal that says there is none."""
    packet = situation.snapshot.packet(packet_id)
    if packet is None:
        return unknown(situation, "packet", packet_id, [p.id for p in situation.snapshot.work_packets])
    return packet


def enact(effect: Effect, situation: Situation, command: Command, comment: Comment) -> Outcome:
    """Run one command's effect; a snapshot change gets its ledger entry and must still validate."""
    outcome = effect(situation, command, comment)
    if not isinstance(outcome, Applied):
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
    # The snapshot before the command has no finding: it was checked when read, or made by an applied command.
    findings = validate(changed, clean=situation.snapshot)
    if findings:
        return Refused("the snapshot would be invalid: " + "; ".join(f.message for f in findings[:3]))
    return Applied(changed, outcome.effect)


# The arguments an effect takes: a shape from `grammar` that names a packet or a constraint.
A = TypeVar("A", bound=Targeted)


def _on_packet(shape: type[A], effect: Callable[[Situation, A, WorkPacket], Outcome]) -> Effect:
    """An effect, on arguments of `shape`, on the packet they name; an unknown packet is refused.

    Applied as `verb = _on_packet(Shape, _verb)` after the effect rather than as a decorator:
    mutmut does not mutate decorated functions, and the effects are rules (docs/testing.md).
    """

    def run(situation: Situation, command: Command, comment: Comment) -> Outcome:
        args = command.of(shape)
        packet = find_packet(situation, args.target)
        return packet if isinstance(packet, Refused) else effect(situation, args, packet)

    return run


def _on_constraint(shape: type[A], effect: Callable[[Situation, A, Comment, Constraint], Outcome]) -> Effect:
    """An effect, on arguments of `shape`, on the constraint they name; an unknown one is refused."""

    def run(situation: Situation, command: Command, comment: Comment) -> Outcome:
        args = command.of(shape)
        constraint = situation.snapshot.constraint(args.target)
        if constraint is None:
            return unknown(situation, "constraint", args.target, [c.id for c in situation.snapshot.constraints])
        return effect(situation, args, comment, constraint)

    return run


def _with_packet(snapshot: Snapshot, packet: WorkPacket) -> Snapshot:
    packets = tuple(packet if p.id == packet.id else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def _with_constraint(snapshot: Snapshot, constraint_id: str, change: dict[str, Any]) -> Snapshot:
    constraints = tuple(c.model_copy(update=change) if c.id == constraint_id else c for c in snapshot.constraints)
    return snapshot.model_copy(update={"constraints": constraints})


def _satisfied_by(packet: WorkPacket, done: str) -> WorkPacket:
    """`packet` with the completed `done` moved from its hard dependencies to its satisfied ones."""
    if done not in packet.hard_dependency_ids:
        return packet
    return packet.model_copy(
        update={
            "hard_dependency_ids": tuple(d for d in packet.hard_dependency_ids if d != done),
            "satisfied_dependency_ids": (*packet.satisfied_dependency_ids, done),
        }
    )


def _complete(situation: Situation, args: Completion, packet: WorkPacket) -> Outcome:
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is already complete")
    related = packet.related_issues
    if args.receipt is not None and args.receipt != packet.issue and args.receipt not in related:
        related = (*related, args.receipt)
    receipt_owner = situation.config.owner.accepted_receipt
    owner = _receipt_owner(receipt_owner, args.receipt) if args.receipt else packet.owner
    done = packet.model_copy(
        update={
            "state": "complete",
            "result": args.result,
            "related_issues": related,
            "owner": owner,
            "next_action": "",
        }
    )
    packets = tuple(done if p.id == packet.id else _satisfied_by(p, packet.id) for p in situation.snapshot.work_packets)
    receipt = f" (receipt {issue_text(args.receipt)})" if args.receipt else ""
    return Applied(situation.snapshot.model_copy(update={"work_packets": packets}), f"completed `{packet.id}`{receipt}")


def _receipt_owner(template: str, receipt: IssueKey) -> str:
    """The owner text of a packet completed with `receipt`: the template's `#{receipt}` is the
    issue as GitHub links it (`#N` here, `owner/repo#N` elsewhere)."""
    if isinstance(receipt, int):
        return template.format(receipt=receipt)
    return template.replace("#{receipt}", "{receipt}").format(receipt=receipt)


_complete_packet = _on_packet(Completion, _complete)


def complete(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """`/perf complete`: a receipt written `#N` on another repository's issue is that repository's,
    and one naming the bot's own repository (`owner/repo#N`, its URL) is the plain number."""
    args = command.of(Completion).seen_from(comment.issue, situation.repository)
    return _complete_packet(situation, command._replace(args=args), comment)


def _state(situation: Situation, args: StateChange, packet: WorkPacket) -> Outcome:
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is complete; its state is final")
    if packet.state == args.state:
        return Refused(f"`{packet.id}` is already `{args.state}`")
    if args.state not in DECIDED_STATES and packet.state not in DECIDED_STATES:
        return Refused(
            f"`{args.state}` is derived from evidence (dependencies, leases, assignment); a person decides "
            "only `capacity-hold` and `waiting-evidence`, and can lift them with `ready`"
        )
    reason = f" (reason: {code_span(args.reason)})" if args.reason else ""
    changed = _with_packet(situation.snapshot, packet.model_copy(update={"state": args.state}))
    return Applied(changed, f"`{packet.id}`: `{packet.state}` → `{args.state}`{reason}")


state = _on_packet(StateChange, _state)


def _block(situation: Situation, args: Blocking, packet: WorkPacket) -> Outcome:
    if packet.state == "complete":
        return Refused(f"`{packet.id}` is complete; nothing can block it")
    changed = _with_packet(situation.snapshot, packet.model_copy(update={"blocked_by_condition": args.condition}))
    return Applied(changed, f"`{packet.id}` blocked: {code_span(args.condition)}")


block = _on_packet(Blocking, _block)


def _unblock(situation: Situation, args: Targeted, packet: WorkPacket) -> Outcome:
    if not packet.blocked_by_condition:
        return Refused(f"`{packet.id}` has no blocking condition")
    changed = _with_packet(situation.snapshot, packet.model_copy(update={"blocked_by_condition": ""}))
    return Applied(changed, f"`{packet.id}` unblocked")


unblock = _on_packet(Targeted, _unblock)


def _review(situation: Situation, args: Review, comment: Comment, constraint: Constraint) -> Outcome:
    today = comment.created_at.astimezone(dt.UTC).date()
    try:
        by = args.by or today + dt.timedelta(days=situation.config.commands.review_days)
    except OverflowError:
        return Refused(f"no review date can follow {today}")
    if by <= today:
        return Refused(f"review date {by} is not after the comment's date {today}")
    note = f" (note: {code_span(args.note)})" if args.note else ""
    return Applied(
        _with_constraint(situation.snapshot, constraint.id, {"observed_at": today, "review_by": by}),
        f"`{constraint.id}` re-observed {today}; review by {by}{note}",
    )


review = _on_constraint(Review, _review)


def _evidence(situation: Situation, args: Evidence, comment: Comment, constraint: Constraint) -> Outcome:
    ref = ref_seen_from(args.ref, comment.issue)
    item = EvidenceRef(class_=args.evidence_class, summary=args.summary, ref=ref)
    return Applied(
        _with_constraint(situation.snapshot, constraint.id, {"evidence": (*constraint.evidence, item)}),
        f"evidence [{args.evidence_class}] added to `{constraint.id}`",
    )


evidence = _on_constraint(Evidence, _evidence)


def _exit_met(situation: Situation, args: ExitMet, comment: Comment, constraint: Constraint) -> Outcome:
    snapshot = situation.snapshot
    users = [
        *(f"program `{p.id}`" for p in snapshot.programs if constraint.id in p.constraint_ids),
        *(f"packet `{w.id}`" for w in snapshot.work_packets if constraint.id in w.constraint_ids),
        *(f"route `{r.source}`" for r in snapshot.oss_routes if constraint.id in r.proposed_constraint_ids),
    ]
    if users:
        more = f" and {len(users) - 5} more" if len(users) > 5 else ""
        return Refused(f"`{constraint.id}` is still referenced by {', '.join(users[:5])}{more}")
    retired = RetiredConstraint(
        id=constraint.id,
        name=constraint.name,
        retired_on=comment.created_at.astimezone(dt.UTC).date(),
        ref=ref_seen_from(args.ref, comment.issue),
    )
    return Applied(
        snapshot.model_copy(
            update={
                "constraints": tuple(c for c in snapshot.constraints if c.id != constraint.id),
                "retired_constraints": (*snapshot.retired_constraints, retired),
            }
        ),
        f"retired `{constraint.id}` (exit met: {code_span(args.ref)})",
    )


exit_met = _on_constraint(ExitMet, _exit_met)


# Letters and signs of other scripts that readers take for ASCII ones (Cyrillic, Greek, Latin
# variants); what NFKC already maps (full-width forms, `ℓ`, `ﬁ`) is not repeated here.
LOOKALIKE = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
        "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W",
        "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "ϲ": "c", "ϳ": "j",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
        "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "ı": "i", "ȷ": "j", "ɡ": "g", "ɑ": "a", "ɩ": "i", "ʏ": "y",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "⁃": "-",
        "․": ".", "·": ".", "∙": ".", "⁄": "/", "∕": "/", "⧸": "/",
    }
)  # fmt: skip


def skeleton(text: str) -> str:
    """What `text` looks like: compatibility-normalised, look-alikes taken as ASCII, marks dropped."""
    folded = unicodedata.normalize("NFKC", text).translate(LOOKALIKE)
    return "".join(char for char in unicodedata.normalize("NFD", folded) if not unicodedata.combining(char))


def lookalike(given: str, known: Iterable[str]) -> str | None:
    """The known id that `given` looks like without being it, if there is one."""
    looks = skeleton(given)
    return next((id_ for id_ in known if id_ != given and skeleton(id_) == looks), None)


def _assignment(add: bool) -> Effect:
    """Assign (`add`) or unassign the commenter on the issue of the packet the command names."""

    def run(situation: Situation, command: Command, comment: Comment) -> Outcome:
        packet = find_packet(situation, command.target)
        if isinstance(packet, Refused):
            return packet
        if packet.issue not in situation.assignees:
            return Refused(f"issue {issue_text(packet.issue)} was not observed")
        if (comment.user in situation.assignees[packet.issue]) == add:
            change = "is already assigned to" if add else "is not assigned to"
        else:
            change = "will be assigned to" if add else "will be unassigned from"
        assignment = AssignAction(issue=packet.issue, login=comment.user, add=add)
        return Answered(f"{comment.user} {change} {issue_text(packet.issue)} (`{packet.id}`)", assignment)

    return run


claim = _assignment(add=True)
unclaim = _assignment(add=False)


def why(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """Why the packet is in its state and what would make it ready, from this run's evidence."""
    packet = find_packet(situation, command.target)
    if isinstance(packet, Refused):
        return packet
    if situation.explain is None:
        return Refused("this run has no evidence to explain from")
    # `pipeline` answers it again from the snapshot the run ends on, as every `why` of the run.
    return Answered(situation.explain(situation.snapshot, packet.id, situation.assignees))


# A drop's answer names at most this many commands, then says how many more it dropped.
NAMED_DROPS = 50


def drop(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """Which accepted, unmerged commands this comment's `drop` removed (chosen by `replay.dropped`)."""
    mine = sorted(key for key, by in situation.dropped.items() if by == comment.id and key in situation.accepted)
    if not mine:
        return Answered("no pending commands to drop")
    named = ", ".join(f"comment {cid} line {line}" for cid, line in mine[:NAMED_DROPS])
    more = f" and {len(mine) - NAMED_DROPS} more" if len(mine) > NAMED_DROPS else ""
    return Answered(f"dropped pending commands: {named}{more}")
