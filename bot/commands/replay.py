"""Decide and replay: a fold over the run's work, in comment order, on a small working state.

The working snapshot starts as the default branch's and takes every accepted command that is
not in its ledger yet: new commands are decided (authorised, then applied or refused) and
recorded ones are replayed from their records, so a replay needs no second permission check.
A replayed command that no longer applies *lapses*: it is reported once (a lapsed notice) and
is settled from then on. Each comment's outcome is a `Handled`; `outbox` turns it into words.

**Policy** (`authorise`, `dropped`): who may use a command, and which pending commands an
accepted `drop` removes. A command is *pending* while it was accepted, changes the snapshot, and is not in the default
branch's ledger yet: it lives only in the regeneration PR. A `drop` by a maintainer removes the
pending commands of the comments it names (or of all earlier comments) from that PR.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import NamedTuple

from bot.commands.effects import Answered, Applied, Explainer, Refused, Situation, enact
from bot.commands.grammar import Command, Drop
from bot.commands.reading import CommandLine, ParseError
from bot.commands.records import Decision, Key, Record, Verdict, lapsed_key
from bot.commands.registry import ANSWERS_ONLY, changes_snapshot, spec
from bot.commands.selection import Fresh, Recalled, Work
from bot.config import BotConfig
from bot.github.actions import AssignAction
from bot.github.observed import Comment, Permission, Unassignment
from bot.issue_refs import IssueKey, issue_text
from bot.render import Renderer
from bot.snapshot.model import Snapshot


class Working(NamedTuple):
    """What the fold carries from one comment to the next."""

    snapshot: Snapshot
    assignees: Mapping[IssueKey, tuple[str, ...]]
    # Commands accepted so far: every recorded one, and this run's as they are decided.
    accepted: frozenset[Key]
    # (comment, effect) of each command applied to the working snapshot, for the PR body.
    applied: tuple[tuple[Comment, str], ...] = ()
    # The unassignments by perfbot that an `unclaim` of this run was found to have carried out.
    consumed: frozenset[tuple[IssueKey, str, str]] = frozenset()


class Context(NamedTuple):
    """What the fold reads and never changes."""

    config: BotConfig
    renderer: Renderer
    permissions: Mapping[str, Permission]
    ledger: AbstractSet[Key]
    dropped: Mapping[Key, int]
    # Keys of the lapsed notices the bot has posted.
    lapsed_said: AbstractSet[str]
    # Comments the bot finished answering (it reacted 🚀 or 😕), and the comments still there.
    finished: AbstractSet[int]
    present: AbstractSet[int]
    explain: Explainer | None = None
    # Each other repository's permissions (its name case folded, then login): a command on an issue
    # there is decided by its author's permission there.
    elsewhere: Mapping[str, Mapping[str, Permission]] = {}
    # Each issue's latest unassignments (GitHub's timeline), and the bot's login that made its own.
    unassigned: Mapping[IssueKey, tuple[Unassignment, ...]] = {}
    bot_login: str = ""
    # The bot's own repository (`owner/name`): an issue a command names there is its plain number.
    repository: str = ""


@dataclass(frozen=True)
class Line(CommandLine):
    """The outcome of one command line."""

    command: Command | None
    verdict: Verdict
    decision: Decision
    reason: str
    assignment: AssignAction | None = None
    # A lapsed notice is due for this line (a replayed command that no longer applies).
    notice: bool = False
    # Refused because its author lacks the permission it needs (or, replayed, lapsed because they no
    # longer have it): no edit of the comment can change that.
    unpermitted: bool = False


class Handled(NamedTuple):
    """One comment's outcome, line by line.

    `fresh` when this run decided it (then `errors` and `whole` say what could not be read),
    else it was replayed from its records.
    """

    comment: Comment
    fresh: bool
    lines: tuple[Line, ...]
    errors: tuple[ParseError, ...] = ()
    whole: str = ""


def fold(start: Working, queue: Sequence[Work], context: Context) -> tuple[Working, list[Handled]]:
    state = start
    handled: list[Handled] = []
    for work in queue:
        state, done = decide(state, work, context) if isinstance(work, Fresh) else replay(state, work, context)
        handled.append(done)
    return state, handled


def decide(state: Working, work: Fresh, context: Context) -> tuple[Working, Handled]:
    lines: list[Line] = []
    for command in work.parsed.commands:
        state, line = _decide_line(state, work.comment, command, context)
        lines.append(line)
    accepted = {(work.comment.id, line.line) for line in lines if line.verdict == "accepted"}
    state = state._replace(accepted=state.accepted | accepted)
    return state, Handled(work.comment, True, tuple(lines), work.parsed.errors, work.whole)


def _decide_line(state: Working, comment: Comment, command: Command, context: Context) -> tuple[Working, Line]:
    permission = permission_of(comment, context.permissions, context.elsewhere)
    why_not = authorise(command, comment, permission, state.snapshot, state.assignees)
    if why_not is not None:
        return state, dataclasses.replace(_line(command, "refused", "refused", why_not), unpermitted=True)
    verb = spec(command.verb)
    key = (comment.id, command.line)
    if verb.changes_snapshot and key in context.ledger:
        # Merged already (its reply was lost or never written): answer it, never apply twice.
        return state, _line(command, "accepted", "merged", "applied and merged earlier")
    outcome = enact(verb.effect, _situation(state, context), command, comment)
    if isinstance(outcome, Refused):
        return state, _line(command, "refused", "refused", outcome.reason)
    if isinstance(outcome, Applied):
        if key in context.dropped:
            # The reply says only what this comment did: it is written before the dropping
            # comment's reply, and must stay true if that one is never written (deleted first).
            return state, _line(command, "accepted", "dropped", outcome.effect)
        return _applied(state, comment, outcome), _line(command, "accepted", "accepted", outcome.effect)
    state, assignment = _assign(state, outcome.assignment)
    wanted = outcome.assignment
    if assignment is None and wanted is not None and not wanted.add:
        # Nothing to take back now: refused, unless perfbot itself took it back for this comment
        # in a run that stopped before its 🚀 (GitHub's timeline says so), which is answered as then.
        done = _carried_out(state, context, comment, wanted)
        if done is None:
            return state, _line(command, "refused", "refused", f"{outcome.text}: nothing to unclaim")
        state = state._replace(consumed=state.consumed | {done})
    return state, _line(command, "accepted", "accepted", outcome.text, assignment)


def _carried_out(
    state: Working, context: Context, comment: Comment, wanted: AssignAction
) -> tuple[IssueKey, str, str] | None:
    """The first unassignment of `wanted.login` from `wanted.issue` that perfbot made after
    `comment` was posted and no earlier `unclaim` of this run accounts for (None: there is none)."""
    for event in context.unassigned.get(wanted.issue, ()):
        key = (wanted.issue, event.login, event.created_at.isoformat())
        made = event.actor == context.bot_login and event.login == wanted.login
        if made and event.created_at >= comment.created_at and key not in state.consumed:
            return key
    return None


def replay(state: Working, work: Recalled, context: Context) -> tuple[Working, Handled]:
    lines: list[Line] = []
    for record, command in work.lines:
        state, line = _replay_line(state, work.comment, record, command, context)
        lines.append(line)
    return state, Handled(work.comment, False, tuple(lines))


def _replay_line(
    state: Working, comment: Comment, record: Record, command: Command | None, context: Context
) -> tuple[Working, Line]:
    def said(decision: Decision, reason: str, assignment: AssignAction | None = None, notice: bool = False) -> Line:
        return Line(record.line, record.text, command, record.verdict, decision, reason, assignment, notice)

    if command is None or record.verdict != "accepted":
        return state, said("refused", "refused earlier")
    verb = spec(command.verb)
    if not verb.changes_snapshot:
        return _finish_answer(state, comment, record, command, context)
    key = record.key()
    if key in context.ledger:
        return state, said("merged", "in the default branch's ledger")
    if key in context.dropped:
        return state, said("dropped", f"dropped by comment {context.dropped[key]}")
    if lapsed_key(key) in context.lapsed_said:
        return state, said("lapsed", "no longer applied (reported)")
    lost = permission_lost(command, comment, permission_of(comment, context.permissions, context.elsewhere))
    if lost is not None:
        line = said("lapsed", lost, notice=True)
        return state, dataclasses.replace(line, unpermitted=True)
    outcome = enact(verb.effect, _situation(state, context), command, comment)
    if isinstance(outcome, Applied):
        return _applied(state, comment, outcome), said("replayed", outcome.effect)
    reason = outcome.reason if isinstance(outcome, Refused) else outcome.text
    return state, said("lapsed", reason, notice=True)


def _finish_answer(
    state: Working, comment: Comment, record: Record, command: Command, context: Context
) -> tuple[Working, Line]:
    """A recorded answer: finish its assignment, or correct the reply once (see `effects.claim`).

    It is done once the bot gave its verdict on the comment (🚀/😕 follow the assignment) or
    posted the correcting notice; a comment that is gone can carry no verdict.
    """

    def said(decision: Decision, reason: str, assignment: AssignAction | None = None, notice: bool = False) -> Line:
        return Line(record.line, record.text, command, record.verdict, decision, reason, assignment, notice)

    if command.verb in ANSWERS_ONLY:  # its reply was all of it
        return state, said("answered", "answered earlier")
    if comment.id in context.finished or lapsed_key(record.key()) in context.lapsed_said:
        return state, said("answered", "answered earlier")
    outcome = spec(command.verb).effect(_situation(state, context), command, comment)
    if isinstance(outcome, Refused):
        return state, said("lapsed", outcome.reason, notice=True)
    wanted = outcome.assignment if isinstance(outcome, Answered) else None
    if wanted is None:
        return state, said("answered", "answered earlier")
    if comment.id in context.present:
        state, assignment = _assign(state, wanted)
        return state, said("answered", "answered earlier", assignment)
    if (wanted.login in state.assignees.get(wanted.issue, ())) == wanted.add:
        return state, said("answered", "answered earlier")
    now = "is not assigned to" if wanted.add else "is still assigned to"
    return state, said(
        "lapsed",
        f"its comment was deleted, so perfbot does not act on it; {wanted.login} {now} {issue_text(wanted.issue)}",
        notice=True,
    )


def _line(
    command: Command, verdict: Verdict, decision: Decision, reason: str, assignment: AssignAction | None = None
) -> Line:
    return Line(command.line, command.text, command, verdict, decision, reason, assignment)


def _situation(state: Working, context: Context) -> Situation:
    return Situation(
        snapshot=state.snapshot,
        config=context.config,
        renderer=context.renderer,
        assignees=state.assignees,
        dropped=context.dropped,
        accepted=state.accepted,
        explain=context.explain,
        repository=context.repository,
    )


def _applied(state: Working, comment: Comment, outcome: Applied) -> Working:
    return state._replace(snapshot=outcome.snapshot, applied=(*state.applied, (comment, outcome.effect)))


def _assign(state: Working, wanted: AssignAction | None) -> tuple[Working, AssignAction | None]:
    """The assignment, when it changes who is assigned; the working assignees follow it."""
    if wanted is None:
        return state, None
    current = state.assignees.get(wanted.issue, ())
    if (wanted.login in current) == wanted.add:
        return state, None
    others = tuple(u for u in current if u != wanted.login)
    assignees = {**state.assignees, wanted.issue: (*others, wanted.login) if wanted.add else others}
    return state._replace(assignees=assignees), wanted


WRITERS: frozenset[Permission] = frozenset({"write", "maintain", "admin"})
MAINTAINERS: frozenset[Permission] = frozenset({"maintain", "admin"})


def authorise(
    command: Command,
    comment: Comment,
    permission: Permission,
    snapshot: Snapshot,
    assignees: Mapping[IssueKey, tuple[str, ...]],
) -> str | None:
    """None when the comment's author may use the command, else why not."""
    audience = spec(command.verb).audience
    user = comment.user
    if audience == "anyone":
        return None
    if audience == "maintain":
        return (
            None
            if permission in MAINTAINERS
            else f"`{command.verb}` needs maintain permission; {user} has {permission}"
        )
    if permission in WRITERS:
        return None
    if audience == "assignee":
        packet = snapshot.packet(command.target)
        if packet is not None and user in assignees.get(packet.issue, ()):
            return None
        return f"{user} has {permission} permission and is not assigned to the packet's issue"
    return f"`{command.verb}` needs write permission; {user} has {permission}"


def permission_of(
    comment: Comment, permissions: Mapping[str, Permission], elsewhere: Mapping[str, Mapping[str, Permission]]
) -> Permission:
    """The comment author's permission in the repository of the issue the comment is on."""
    if isinstance(comment.issue, int):
        return permissions.get(comment.user, "none")
    return elsewhere.get(comment.issue.key, {}).get(comment.user, "none")


def permission_lost(command: Command, comment: Comment, permission: Permission) -> str | None:
    """Why a recorded change is no longer its author's to make, or None.

    Replayed until it merges, a change is checked against its author's permission now: someone
    whose access was lowered since (to read, or removed) does not keep changing the snapshot on the
    strength of a record. A change a reader made as the packet's assignee is not checked again: the
    assignment it rested on is one the same person may have given up since, on purpose."""
    audience = spec(command.verb).audience
    needed = MAINTAINERS if audience == "maintain" else WRITERS if audience == "write" else None
    if needed is None or permission in needed:
        return None
    level = "maintain" if audience == "maintain" else "write"
    return f"{comment.user} now has {permission} permission, and `{command.verb}` needs {level}"


def dropped(
    queue: Sequence[Work],
    permissions: Mapping[str, Permission],
    snapshot: Snapshot,
    assignees: Mapping[IssueKey, tuple[str, ...]],
    ledger: AbstractSet[Key],
    elsewhere: Mapping[str, Mapping[str, Permission]] = {},
) -> dict[Key, int]:
    """Pending commands dropped by an accepted `drop`, each mapped to the dropping comment's id.

    A new `drop` counts when its author may use it (on the default branch's snapshot); a
    recorded one when it was accepted.
    """
    pending: list[Key] = []
    drops: list[tuple[int, Drop]] = []
    for work in queue:
        for command, accepted in _verdicts(work, permissions, elsewhere, snapshot, assignees):
            key = (work.comment.id, command.line)
            if isinstance(command.args, Drop) and accepted:
                drops.append((work.comment.id, command.args))
            elif changes_snapshot(command.verb) and key not in ledger:
                pending.append(key)
    removed: dict[Key, int] = {}
    for by, drop in drops:
        for key in pending:
            if key[0] < by and (drop.drop_all or key[0] in drop.drop_ids):
                removed.setdefault(key, by)
    return removed


def _verdicts(
    work: Work,
    permissions: Mapping[str, Permission],
    elsewhere: Mapping[str, Mapping[str, Permission]],
    snapshot: Snapshot,
    assignees: Mapping[IssueKey, tuple[str, ...]],
) -> list[tuple[Command, bool]]:
    """Each command of the work, with whether it is (or would be) accepted as far as drops go."""
    if isinstance(work, Fresh):
        permission = permission_of(work.comment, permissions, elsewhere)
        return [(c, authorise(c, work.comment, permission, snapshot, assignees) is None) for c in work.parsed.commands]
    return [(c, r.verdict == "accepted") for r, c in work.lines if c is not None]
