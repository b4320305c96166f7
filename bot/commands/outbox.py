"""Outbox: what the bot says about each handled comment — reactions, replies, notices, reports.

Quiet by default (`commands.replies: errors`), as Prow and triagebot are: a comment whose commands
were all accepted gets its assignments, then one 🚀, and no reply; the records of its changes go
in the regeneration PR's body (`pipeline`), which is written before the 🚀. A comment with
something to read — a refusal and its fix, a malformed line, a `why` or `help` answer, a `drop`'s
list — gets one reply that records the decision on each line (see `records`), then any
assignment, then 🚀 (something accepted that acts) and/or 😕 (something refused). The reply
@-mentions its author only when something was refused or not understood. With `replies: all`,
every command comment gets 👀 first and a reply, as before; quiet answers use no 👀 (a comment
the per-person cap leaves waiting is not marked either: a flood would cost a write per comment).
Side effects come after the record of the decision, so a run that stops in between is finished
by the next run's replay, not decided a second time. A replayed comment still there gets the
reactions it lacks, and each command of it that lapsed gets one lapsed notice.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from bot.bodies import capped, fitted
from bot.commands.grammar import Command
from bot.commands.records import (
    DECISION_TOPIC,
    LAPSED_TOPIC,
    REPLY_TOPIC,
    TEXT_TOPIC,
    Decision,
    Record,
    lapsed_key,
    text_digest,
)
from bot.commands.registry import ANSWERS_ONLY, READ_REPLIES, changes_snapshot
from bot.commands.replay import Handled, Line
from bot.config import CommandSettings
from bot.github.actions import TOPICS, Action, CommentAction, EditCommentAction, ReactAction, ReactionContent
from bot.github.markers import header
from bot.github.observed import Comment
from bot.issue_refs import issue_json
from bot.render import Renderer


class CommandReport(dict[str, object]):
    """One command's line in the plan JSON (comment id, parsed form, decision, reason)."""


class Voice(NamedTuple):
    """What the outbox needs to speak: templates, the prefix, the reactions the bot already made."""

    renderer: Renderer
    prefix: str
    # (comment id, content) of each reaction the bot has made.
    reacted: AbstractSet[tuple[int, str]]
    # Comments still there (a deleted one cannot be reacted to).
    present: AbstractSet[int]
    # Every reply and notice stays under this many characters (`bodies`).
    limit: int = CommandSettings().max_body_chars
    # The open regeneration PR's number, which an accepted change is pending in (None: not open yet).
    pull: int | None = None
    # `commands.replies`: "errors" answers accepted comments with 🚀 alone; "all" replies to every one.
    replies: str = "errors"
    # Whether this run's regeneration PR can carry the records of quiet answers (`Processed.answers`).
    carrier: bool = True
    # Comments decided again after their author edited them, each with the reply that is edited in
    # place to the new decision (one reply per comment: its records are the decision).
    earlier: Mapping[int, Comment] = {}
    # `commands.edit_days`: how long a comment's author may edit a refusal for it to be decided again.
    edit_days: int = CommandSettings().edit_days


def finished(reacted: AbstractSet[tuple[int, str]]) -> frozenset[int]:
    """Comments the bot finished answering: 🚀 or 😕 is the last thing it does for a new comment."""
    return frozenset(comment_id for comment_id, content in reacted if content in ("rocket", "confused"))


def actions(done: Handled, voice: Voice, quiet: bool = False) -> list[Action]:
    """A new comment's answer (`quiet`: 🚀 alone, its records in the PR body), or a replayed one's."""
    if not done.fresh:
        return _follow_up(done, voice)
    return _quiet(done, voice) if quiet else _answer(done, voice)


def quiet(done: Handled, voice: Voice) -> bool:
    """Whether a new comment has nothing to read: every line accepted, none an answer to read,
    and its changes recordable in the PR body."""
    if voice.replies != "errors" or done.errors or done.whole or not done.lines or done.comment.id in voice.earlier:
        return False
    verbs = [line.command.verb for line in done.lines if line.command is not None]
    if len(verbs) != len(done.lines) or any(line.verdict != "accepted" for line in done.lines):
        return False
    if any(verb in ANSWERS_ONLY or verb in READ_REPLIES for verb in verbs):
        return False
    changes = any(changes_snapshot(verb) for verb in verbs)
    # A change beside an assignment is recorded in a reply, before either is made: its record in the
    # PR could be out of sight (a lagging list, a closed PR) once the assignment has changed who
    # may use the change, and the comment would be decided again and refused.
    if changes and any(line.assignment is not None for line in done.lines):
        return False
    return voice.carrier or not changes


def pull_records(done: Handled) -> list[Record]:
    """The records a quiet answer leaves in the PR body: every accepted line of a comment that
    changes the snapshot (its claims too, which replay finishes); none for a comment of claims
    alone, which a later run decides again to the same end (`_quiet`)."""
    accepted = [line for line in done.lines if line.verdict == "accepted" and line.command is not None]
    if not any(line.command is not None and changes_snapshot(line.command.verb) for line in accepted):
        return []
    return [Record(done.comment, line.line, "accepted", line.text) for line in accepted]


def _quiet(done: Handled, voice: Voice) -> list[Action]:
    """Assignments, then 🚀 (the schedule puts both after the PR that records the comment)."""
    out: list[Action] = [line.assignment for line in done.lines if line.assignment is not None]
    comment = done.comment
    # A 👀 says the answer is still to come; answered with 🚀 alone, the 👀 goes with it.
    eyes = [ReactAction(issue=comment.issue, comment_id=comment.id, content="eyes", remove=True)]
    return [*out, *_react(comment, "rocket", voice), *(eyes if (comment.id, "eyes") in voice.reacted else [])]


def _answer(done: Handled, voice: Voice) -> list[Action]:
    comment = done.comment
    out: list[Action] = [*_react(comment, "eyes", voice)] if voice.replies == "all" else []
    out.append(_reply(done, voice))
    out += [line.assignment for line in done.lines if line.assignment is not None]
    if any(_acted(line) for line in done.lines):
        out += _react(comment, "rocket", voice)
    if any(line.verdict == "refused" for line in done.lines) or done.errors or done.whole:
        out += _react(comment, "confused", voice)
    return out


def _follow_up(done: Handled, voice: Voice) -> list[Action]:
    comment = done.comment
    present = comment.id in voice.present
    # 👀 only on a comment not answered yet: a 🚀'd quiet answer is not deferred.
    finished_now = (comment.id, "rocket") in voice.reacted or (comment.id, "confused") in voice.reacted
    eyes = present and voice.replies == "all" and not finished_now
    out: list[Action] = [*_react(comment, "eyes", voice)] if eyes else []
    for line in done.lines:
        if line.assignment is not None:
            out.append(line.assignment)
        if line.notice:
            out.append(_lapsed_notice(comment, line, voice))
    if present:
        if any(_acted(line) for line in done.lines):
            out += _react(comment, "rocket", voice)
        if any(line.verdict == "refused" for line in done.lines):
            out += _react(comment, "confused", voice)
    return out


def _acted(line: Line) -> bool:
    """An accepted line that does something (🚀): a pure answer (`why`, `help`) has its reply."""
    return line.verdict == "accepted" and not (line.command is not None and line.command.verb in ANSWERS_ONLY)


def _pending(line: Line) -> bool:
    command = line.command
    return line.decision == "accepted" and command is not None and changes_snapshot(command.verb)


def _react(comment: Comment, content: ReactionContent, voice: Voice) -> list[Action]:
    if (comment.id, content) in voice.reacted:
        return []
    return [ReactAction(issue=comment.issue, comment_id=comment.id, content=content)]


def _reply(done: Handled, voice: Voice) -> CommentAction | EditCommentAction:
    """The reply to a new command comment; its header records the decision on every line and the
    text decided on. A comment decided again after an edit has its earlier reply edited in place."""
    comment = done.comment
    errors = [(e.line, e.text, e.message) for e in done.errors]
    records = [Record(comment, line.line, line.verdict, line.text) for line in done.lines]
    records += [Record(comment, number, "refused", text) for number, text, _ in errors]
    markers = [
        (REPLY_TOPIC, str(comment.id)),
        (TEXT_TOPIC, f"{comment.id}:{text_digest(comment.body)}"),
        *((DECISION_TOPIC, r.encode()) for r in records),
    ]
    refused = bool(errors or done.whole or any(line.verdict == "refused" for line in done.lines))
    # What an edit can put right: a line not read, a comment too big, a refusal other than the
    # author's permission; and an edit is decided again only while nothing in the comment was accepted.
    mendable = bool(
        errors or done.whole or any(line.verdict == "refused" and not line.unpermitted for line in done.lines)
    )
    editable = mendable and not any(line.verdict == "accepted" for line in done.lines)

    def render(shown: int, renderer: Renderer = voice.renderer) -> str:
        """The reply showing its first `shown` lines (answers, then malformed lines); all are recorded."""
        return renderer.render(
            TOPICS["command-reply"].template,
            header=header(*markers),
            author=comment.user,
            answers=done.lines[:shown],
            errors=errors[: max(0, shown - len(done.lines))],
            omitted=len(done.lines) + len(errors) - shown,
            whole=done.whole,
            prefix=voice.prefix,
            # The author is @-mentioned only when there is something to fix.
            mention=refused,
            editable=voice.edit_days if editable else 0,
            again=comment.id in voice.earlier,
            # Accepted changes of the snapshot wait in the regeneration PR: said as pending, not applied.
            pending={line.line for line in done.lines if _pending(line)},
            pull=voice.pull,
        )

    total = len(done.lines) + len(errors)
    body = fitted(render, total, voice.limit, voice.renderer)
    earlier = voice.earlier.get(comment.id)
    if earlier is not None:
        return EditCommentAction(issue=earlier.issue, comment_id=earlier.id, topic="command-reply", body=body)
    return CommentAction(issue=comment.issue, topic="command-reply", body=body)


def _lapsed_notice(comment: Comment, line: Line, voice: Voice) -> CommentAction:
    return CommentAction(
        issue=comment.issue,
        topic="command-lapsed",
        body=capped(
            voice.renderer.render(
                TOPICS["command-lapsed"].template,
                header=header((LAPSED_TOPIC, lapsed_key((comment.id, line.line)))),
                author=comment.user,
                command=line.command,
                reason=line.reason,
                # A snapshot command is left out of the update; an answer's assignment is not made.
                snapshot_command=line.command is not None and changes_snapshot(line.command.verb),
                unpermitted=line.unpermitted,
            ),
            voice.limit,
            voice.renderer,
        ),
    )


def reports(done: Handled) -> list[CommandReport]:
    """The plan JSON's lines for a comment: each command, then each malformed line, then a whole refusal."""
    comment = done.comment
    out = [_report(comment, line.line, line.text, line.command, line.decision, line.reason) for line in done.lines]
    out += [_report(comment, e.line, e.text, None, "refused", e.message) for e in done.errors]
    if done.whole:
        out.append(_report(comment, 0, "", None, "refused", done.whole))
    return out


def _report(
    comment: Comment, number: int, text: str, command: Command | None, decision: Decision, reason: str
) -> CommandReport:
    return CommandReport(
        comment_id=comment.id,
        issue=issue_json(comment.issue),
        author=comment.user,
        line=number,
        text=text[:300],
        parsed=command.parsed() if command else None,
        decision=decision,
        reason=reason,
    )
