"""Commands from issue comments: the working snapshot, and every answer, in pure steps.

Exactly once, nothing lost: every decision is recorded (`records`) before anything acts on it,
and the snapshot's ledger records every applied command. A comment that needs words (a refusal,
an answer) gets a reply whose header records each line; a comment whose commands were all
accepted gets only 🚀, and the records of its changes go in the header of the regeneration PR's
body, which is written before the 🚀 and carries them from run to run until they merge, and in
the trailers of perfbot's commit on its branch, which keep them when a person rewrites the body or
closes the PR. The commit keeps the records of every pending change a reply answered too: a person
can delete a reply, never the commit. A 🚀'd comment whose records are nowhere (its branch deleted
as well) is read again from its text while it is unedited, which is the text its records held.

Each run rebuilds the working snapshot as the default branch's snapshot plus every accepted
command not in that ledger, in comment order. The steps: `selection` (which comments), `replay`
(who may, what a drop removes; decide new commands, replay recorded ones), `settled_through`
(how far the ledger can be compacted) and `outbox` (reactions, replies, notices, reports), which
runs once the planner knows whether the PR can carry records (`Processed.answers`).

**Settle** (`settled_through`): how far the ledger can be compacted (`commands_settled_through`).
A comment is *settled* when every command in it was answered and each accepted change it made
is merged into the default branch (in its ledger), dropped, or lapsed. The bound is the highest
comment id up to which every comment is settled; ledger entries up to it can be compacted away.
This run's own decisions count as recorded, so the bound (and with it the snapshot) is the same
whether or not this run's replies have been written yet.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Literal, NamedTuple

from bot.commands import outbox, replay, selection
from bot.commands.effects import Explainer
from bot.commands.grammar import Targeted
from bot.commands.outbox import CommandReport
from bot.commands.records import (
    Key,
    Record,
    decided_text,
    first_replies,
    lapsed_said,
    recorded_decisions,
    records_above_pull,
    records_in_commit,
    records_in_pull,
    text_digest,
)
from bot.commands.registry import ANSWERS_ONLY, READ_REPLIES, changes_snapshot
from bot.commands.replay import Handled, Line
from bot.config import BotConfig
from bot.github import pull_body
from bot.github.actions import Action, IgnoredRecord
from bot.github.observed import Comment, Observed, PullRequest, is_bot
from bot.github.port import Author
from bot.issue_refs import ForeignIssue, IssueKey, issue_text
from bot.render import Renderer
from bot.snapshot.model import Snapshot


class Answers(NamedTuple):
    """What the outbox says, the records the regeneration PR's body carries for quiet comments, and
    those perfbot's commit carries: every pending accepted change's, answered quietly or with a
    reply (a person can delete a reply, never perfbot's commit)."""

    actions: list[Action]
    pull_records: list[Record]
    commit_records: Sequence[Record] = ()


class Processed(NamedTuple):
    """The outcome of reading every command: the working snapshot and what to answer."""

    snapshot: Snapshot
    reports: list[CommandReport]
    assignees: dict[IssueKey, tuple[str, ...]]
    applied: list[tuple[Comment, str]]
    # Highest comment id up to which every command is settled against the default branch.
    settled_through: int
    handled: list[Handled]
    voice: outbox.Voice
    # Comments answered quietly by an earlier run: their records live in the PR body, not a reply.
    quiet: frozenset[int]
    # The PR body's records not counted, and why.
    ignored: tuple[IgnoredRecord, ...] = ()
    # Comments read this run and found to hold no command (a live run's cache remembers them).
    commandless: frozenset[int] = frozenset()

    def this_run(self) -> tuple[tuple[int, int], ...]:
        """(comment id, line) of each report this run decided or acted on: every line of a comment
        decided now, and a replayed line only when it is told or assigned now (a lapsed notice, an
        assignment finished); the rest were reported by the run that decided them."""
        found: list[tuple[int, int]] = []
        for done in self.handled:
            cid = done.comment.id
            if done.fresh:
                found += [(cid, line.line) for line in done.lines] + [(cid, e.line) for e in done.errors]
                found += [(cid, 0)] if done.whole else []
            else:
                found += [(cid, line.line) for line in done.lines if line.notice or line.assignment is not None]
        return tuple(found)

    def answers(self, carrier: bool) -> Answers:
        """The outbox's actions, given whether this run's regeneration PR can carry records (it
        cannot when it is refused or has commits perfbot did not make): when it cannot, every
        comment is answered with a reply that records it."""
        voice = self.voice._replace(carrier=carrier)
        room = voice.limit // 2
        carried = [r for done in self.handled if done.comment.id in self.quiet for r in outbox.pull_records(done)]
        room -= sum(len(r.marker()) for r in carried)
        actions: list[Action] = []
        fresh: list[Record] = []
        for done in self.handled:
            mine = outbox.pull_records(done) if done.fresh else []
            size = sum(len(r.marker()) for r in mine)
            quiet = done.fresh and outbox.quiet(done, voice) and size <= room
            if quiet:
                room -= size
                fresh += mine
            actions += outbox.actions(done, voice, quiet=quiet)
        records = [r for r in (*carried, *fresh) if r.comment.id > self.settled_through]
        pending = [done for done in self.handled if done.comment.id > self.settled_through]
        every = {r.key(): r for done in pending for r in outbox.pull_records(done)}
        return Answers(actions, sorted(records, key=Record.key), [every[key] for key in sorted(every)])


class Recall(NamedTuple):
    """Every recorded decision this run knows, and which comments were answered quietly."""

    records: dict[int, list[Record]]
    quiet: frozenset[int]
    finished: frozenset[int]
    # The PR body's records not counted, and why (someone else wrote them, or they do not match).
    ignored: tuple[IgnoredRecord, ...] = ()
    # Comments to decide again (edited after a decision that accepted none of them), each with the
    # reply to edit in place.
    again: Mapping[int, Comment] = {}


def recall(observed: Observed, floor: int, config: BotConfig, now: dt.datetime | None = None) -> Recall:
    """Records from the bot's replies, then the PR body's, then the text of quiet comments; and
    the comments edited since a decision that accepted none of them, to decide again."""
    replied = recorded_decisions(observed.bot_comments())
    bot = observed.bot_login
    reacted = frozenset((r.comment_id, r.content) for r in observed.reactions if r.user == bot)
    # Only a quiet answer is a 🚀 without a reply, and it never has a 😕 (a refusal is replied to).
    rocketed = {cid for cid, content in reacted if content == "rocket"}
    rocketed -= {cid for cid, content in reacted if content == "confused"}
    carried, ignored = _in_pull(observed, config, replied, rocketed)
    known = set(replied) | set(carried)
    read_again = {
        c.id: found
        for c in observed.comments
        if c.id > floor
        and c.id in rocketed
        and c.id not in known
        and not c.edited
        and not is_bot(c.user, c.user_type, bot)
        and (found := [Record(c, cmd.line, "accepted", cmd.text) for cmd in selection.reread(c, config.commands)])
    }
    quiet = frozenset(carried) | frozenset(read_again)
    again = _edited_since(observed, floor, replied, config.commands.edit_days, now)
    finished = outbox.finished(reacted) - _rocket_due(replied, reacted, config)
    return Recall({**carried, **read_again, **replied}, quiet, finished, ignored, again)


def _rocket_due(
    replied: Mapping[int, list[Record]], reacted: AbstractSet[tuple[int, str]], config: BotConfig
) -> frozenset[int]:
    """Replied comments with an accepted line that acts, and no 🚀 yet: not finished, whatever 😕
    they carry. A first decision writes its 🚀 before its 😕; a 😕 without the 🚀 is an earlier
    decision's, on a comment decided again after an edit, whose assignments are still to finish."""
    due = set()
    for cid, records in replied.items():
        if (cid, "rocket") in reacted:
            continue
        commands = (selection.recalled_command(r, config.commands) for r in records if r.verdict == "accepted")
        if any(command is not None and command.verb not in ANSWERS_ONLY for command in commands):
            due.add(cid)
    return frozenset(due)


def _edited_since(
    observed: Observed, floor: int, replied: Mapping[int, list[Record]], days: int, now: dt.datetime | None
) -> dict[int, Comment]:
    """Each comment its author edited since perfbot's reply decided it, when that decision accepted
    none of it and the comment is within `days` of its posting, with that reply.

    The reply records the digest of the text it decided on: a comment whose text is that text
    (edited back, or edited before the decision) is not decided again. A reply without one, written
    before it was recorded, is left as it was decided."""
    replies = first_replies(observed.bot_comments())
    found: dict[int, Comment] = {}
    for c in observed.comments:
        reply = replies.get(c.id)
        if reply is None or c.id <= floor or not c.edited or is_bot(c.user, c.user_type, observed.bot_login):
            continue
        if any(r.verdict == "accepted" for r in replied.get(c.id, ())) or not _within(c, days, now):
            continue  # without a clock (`now` None: whose permission to read), any edit counts
        digest = decided_text(reply, c.id)
        if digest and digest != text_digest(c.body):
            found[c.id] = reply
    return found


def _within(comment: Comment, days: int, now: dt.datetime | None) -> bool:
    """Whether `comment` was posted less than `days` before `now`: an edit of it is still read."""
    return now is None or now - comment.created_at < dt.timedelta(days=days)


def editable(
    handled: Sequence[Handled],
    replied: Mapping[int, list[Record]],
    comments: Sequence[Comment],
    days: int,
    now: dt.datetime | None,
) -> frozenset[int]:
    """The comments whose author may still edit them to be decided again: posted within `days`,
    decided without accepting anything (this run or earlier). The compaction bound stops before
    each, so an accepted command of its edit lands above the bound."""
    if now is None:
        return frozenset()
    present = {c.id: c for c in comments}
    decided = {done.comment.id: not any(line.verdict == "accepted" for line in done.lines) for done in handled}
    decided |= {cid: True for cid, records in replied.items() if not records and cid not in decided}
    return frozenset(
        cid for cid, nothing in decided.items() if nothing and cid in present and _within(present[cid], days, now)
    )


def _in_pull(
    observed: Observed, config: BotConfig, replied: Mapping[int, object], rocketed: AbstractSet[int]
) -> tuple[dict[int, list[Record]], tuple[IgnoredRecord, ...]]:
    """The records of quiet answers perfbot left where no reply holds them, and those not counted:
    the regeneration PR's body, then the message of perfbot's newest commit on its branch.

    The body counts only as perfbot left it: a PR opened by perfbot whose body nobody else edited
    since (GitHub's `author` and `editor`, which no one can set to perfbot's login). Anyone with
    write access can edit the body, and text can copy any record perfbot ever wrote, so what the
    body says is not evidence of its author; GitHub's edit metadata is. The commit is perfbot's only
    when GitHub signed it for perfbot's login, and a commit's message cannot be edited: its records
    stand when a person rewrote the body, closed the PR, or a run that read GitHub earlier wrote
    the body last. A record still names a comment as it stands, or one gone since: one that names
    another author or issue than the comment, or a line the unedited comment does not hold, is not
    counted, and the comment is decided again from its text."""
    branch = config.pull_request.branch
    pull = observed.open_pull(branch)
    in_body, ignored = _from_body(observed, pull) if pull is not None else ({}, [])
    own = observed.own_commit_on(branch)
    in_commit = records_in_commit(own.message) if own is not None else {}
    for commit in observed.others_commits:
        why = f"it is in commit {commit.oid[:12]} on {branch}, which perfbot did not make"
        ignored += [
            IgnoredRecord(where="commit", comment_id=cid, reason=why) for cid in records_in_commit(commit.message)
        ]
    carried: dict[int, list[Record]] = {}
    sources: tuple[tuple[Literal["pull-body", "commit"], dict[int, list[Record]]], ...] = (
        ("pull-body", in_body),
        ("commit", in_commit),
    )
    for where, found in sources:
        kept, unlike = _counted(found, observed, config, replied, rocketed)
        ignored += [IgnoredRecord(where=where, comment_id=cid, reason=why) for cid, why in unlike if cid not in carried]
        carried = {**kept, **carried}
    return carried, tuple(ignored)


def _from_body(observed: Observed, pull: PullRequest) -> tuple[dict[int, list[Record]], list[IgnoredRecord]]:
    """The records in perfbot's part of `pull`'s body that may be perfbot's, and those not counted:
    all of them when the body may not be as perfbot wrote it, and any in people's text above it."""
    above = f"it is in text above perfbot's part of PR #{pull.number}'s body, which people write"
    ignored = [IgnoredRecord(where="pull-body", comment_id=cid, reason=above) for cid in records_above_pull(pull.body)]
    in_body = records_in_pull(pull.body)
    why = _body_stranger(observed, pull) if in_body else ""
    if why:
        ignored += [IgnoredRecord(where="pull-body", comment_id=cid, reason=why) for cid in in_body]
        return {}, ignored
    return in_body, ignored


def _body_stranger(observed: Observed, pull: PullRequest) -> str:
    """Why the records in `pull`'s body may not be perfbot's ("" when they are): someone else opened
    the PR or last edited its body, or perfbot's part is not as perfbot wrote it (its digest)."""
    stranger = observed.pull_body_stranger(pull)
    if stranger:
        return f"PR #{pull.number}'s body was opened or last edited by {stranger}, not perfbot"
    if pull_body.parts(pull.body).edited:
        return f"perfbot's part of PR #{pull.number}'s body was edited since perfbot wrote it"
    return ""


def _counted(
    found: Mapping[int, list[Record]],
    observed: Observed,
    config: BotConfig,
    replied: Mapping[int, object],
    rocketed: AbstractSet[int],
) -> tuple[dict[int, list[Record]], list[tuple[int, str]]]:
    """The records that count, and why the others do not.

    One counts for a comment perfbot finished (🚀) or one no longer as it was decided (edited or
    deleted); a comment still as posted and without its 🚀 is decided again, as when the record is
    out of sight (a crash before the 🚀, a lagging list)."""
    comments = {c.id: c for c in observed.comments}
    carried: dict[int, list[Record]] = {}
    unlike: list[tuple[int, str]] = []
    for cid, records in found.items():
        if cid in replied:
            continue
        comment = comments.get(cid)
        why = _unlike(records, comment, config) if comment is not None else ""
        if why:
            unlike.append((cid, why))
            continue
        kept = [r for r in records if _quiet_kind(r, config)]
        if kept and (cid in rocketed or comment is None or comment.edited):
            carried[cid] = kept
    return carried, unlike


def _unlike(records: list[Record], comment: Comment, config: BotConfig) -> str:
    """Why records do not record `comment` as it stands ("" when they do)."""
    if any(r.comment.user != comment.user or r.comment.issue != comment.issue for r in records):
        on = issue_text(comment.issue)
        return f"it names another author or issue than comment {comment.id} (by {comment.user} on {on})"
    if comment.edited:
        return ""  # its text is gone: the record, written by perfbot, is what was decided
    lines = {(c.line, c.text) for c in selection.reread(comment, config.commands)}
    if any((r.line, r.text) not in lines for r in records):
        return f"it records a command comment {comment.id} does not hold"
    return ""


def _quiet_kind(record: Record, config: BotConfig) -> bool:
    """A record a quiet answer can have left in the PR body: an answer to read (`why`, `drop`)
    always has a reply, so one found in the body was put there by someone else."""
    command = selection.recalled_command(record, config.commands)
    return command is not None and command.verb not in ANSWERS_ONLY | READ_REPLIES


def process(
    base: Snapshot,
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
    explain: Explainer | None = None,
    now: dt.datetime | None = None,
) -> Processed:
    """Replay decided commands and decide new ones, in comment order, on top of `base`; `now`
    (the run's clock) says which refused comments their authors may still edit."""
    mine = observed.bot_comments()
    floor = base.commands_settled_through
    recalled = recall(observed, floor, config, now)
    records = recalled.records
    work = _intake(observed, recalled, floor, config)
    ledger = frozenset(entry.key for entry in base.ledger)
    assignees = {issue.key: issue.assignees for issue in observed.issues}
    asked = _Asked(explain) if explain is not None else None
    dropped = replay.dropped(work.queue, observed.permissions, base, assignees, ledger, observed.elsewhere())
    present = frozenset(c.id for c in observed.comments)
    context = replay.Context(
        config=config,
        renderer=renderer,
        permissions=observed.permissions,
        ledger=ledger,
        dropped=dropped,
        lapsed_said=lapsed_said(mine),
        finished=recalled.finished,
        present=present,
        explain=asked.ask if asked is not None else None,
        elsewhere=observed.elsewhere(),
        unassigned={issue.key: issue.unassigned for issue in observed.issues if issue.unassigned},
        bot_login=observed.bot_login,
        repository=observed.repository,
    )
    accepted = frozenset(r.key() for found in records.values() for r in found if r.verdict == "accepted")
    final, handled = replay.fold(replay.Working(base, assignees, accepted), work.queue, context)
    handled = _answered_at_end(handled, final, asked)
    voice = _voice(observed, config, renderer, recalled.again)
    stops = work.waiting | editable(handled, records, observed.comments, config.commands.edit_days, now)
    return Processed(
        snapshot=final.snapshot,
        reports=[report for done in handled for report in outbox.reports(done)],
        assignees=dict(final.assignees),
        applied=list(final.applied),
        settled_through=settled_through(floor, handled, stops, ledger, dropped),
        handled=handled,
        voice=voice,
        quiet=recalled.quiet,
        ignored=recalled.ignored,
        commandless=work.empty,
    )


class _Asked:
    """The `why`s the fold decides, each answered once the fold is done (`_answered_at_end`).

    Every `why` of a run is answered from the snapshot the run ends on, so an answer worked out
    from the working snapshot of its moment would be thrown away (with 10,000 comments, about a
    thirtieth of the run). While folding, a question is kept, not answered: its reason holds its
    place among the questions, which `_answered_at_end` replaces."""

    def __init__(self, explain: Explainer) -> None:
        self.explain = explain
        self.questions: list[tuple[Snapshot, str, Mapping[IssueKey, tuple[str, ...]]]] = []

    def ask(self, working: Snapshot, packet_id: str, assignees: Mapping[IssueKey, tuple[str, ...]]) -> str:
        self.questions.append((working, packet_id, assignees))
        return str(len(self.questions) - 1)

    def answer_as_asked(self, place: str) -> str:
        """The answer from the working snapshot the question was asked on."""
        return self.explain(*self.questions[int(place)])


def _answered_at_end(handled: list[Handled], final: replay.Working, asked: _Asked | None) -> list[Handled]:
    """Every `why` of the run answered from the state the run ends on: a `why` before a
    `complete` in the same run says what the one after it says."""
    if asked is None:
        return handled
    snapshot = final.snapshot

    def answered(line: Line) -> Line:
        command = line.command
        if command is None or command.verb != "why" or line.decision != "accepted":
            return line
        target = command.args.target if isinstance(command.args, Targeted) else ""
        if snapshot.packet(target) is None:  # a later command of the run renamed it away
            return dataclasses.replace(line, reason=asked.answer_as_asked(line.reason))
        return dataclasses.replace(line, reason=asked.explain(snapshot, target, final.assignees))

    return [
        done._replace(lines=tuple(answered(line) for line in done.lines)) if done.fresh else done for done in handled
    ]


def unanswered(observed: Observed, floor: int, config: BotConfig) -> list[Comment]:
    """The comments this run answers for the first time, in the order it answers them."""
    work = _intake(observed, recall(observed, floor, config), floor, config)
    return [item.comment for item in work.queue if isinstance(item, selection.Fresh)]


def _intake(observed: Observed, recalled: Recall, floor: int, config: BotConfig) -> selection.Intake:
    return selection.take(
        observed.comments,
        recalled.records,
        floor,
        observed.bot_login,
        config.commands,
        recalled.finished,
        frozenset(observed.commandless),
        frozenset(recalled.again),
    )


def _voice(observed: Observed, config: BotConfig, renderer: Renderer, again: Mapping[int, Comment]) -> outbox.Voice:
    """What the outbox speaks with: the bot's reactions so far, the comments still there, the PR."""
    bot = observed.bot_login
    pull = observed.open_pull(config.pull_request.branch)
    return outbox.Voice(
        renderer,
        config.commands.prefix,
        frozenset((r.comment_id, r.content) for r in observed.reactions if r.user == bot),
        frozenset(c.id for c in observed.comments),
        config.commands.max_body_chars,
        pull.number if pull else None,
        replies=config.commands.replies,
        earlier=again,
        edit_days=config.commands.edit_days,
    )


def authors_to_check(observed: Observed, floor: int, config: BotConfig) -> frozenset[Author]:
    """Whose permission a run needs to know, and in which repository (that of the issue the command
    is on): the authors of the comments it answers for the first time, and those of the recorded
    changes it replays (checked again: `replay.permission_lost`), their comments there or not."""
    recalled = recall(observed, floor, config)
    replayed = {
        _author(r.comment)
        for cid, found in recalled.records.items()
        if cid > floor
        for r in found
        if r.verdict == "accepted" and _changes(r, config)
    }
    work = _intake(observed, recalled, floor, config)
    fresh = {_author(item.comment) for item in work.queue if isinstance(item, selection.Fresh)}
    return frozenset(fresh | replayed)


def _author(comment: Comment) -> Author:
    where = comment.issue.key if isinstance(comment.issue, ForeignIssue) else None
    return Author(where, comment.user)


def _changes(record: Record, config: BotConfig) -> bool:
    command = selection.recalled_command(record, config.commands)
    return command is not None and changes_snapshot(command.verb)


def settled_through(
    floor: int,
    handled: Sequence[Handled],
    waiting: AbstractSet[int],
    ledger: AbstractSet[Key],
    dropped: Mapping[Key, int],
) -> int:
    """The compaction bound after this run: at least `floor`, the bound the snapshot already has.

    `handled` is every comment this run decided or replayed; a comment left `waiting` for a
    later run (per-person cap), or one its author may still edit to be decided again, stops the
    bound before it.
    """
    settled = floor
    for done in sorted(handled, key=lambda h: h.comment.id):
        if any(later <= done.comment.id for later in waiting):
            break
        if any(_pending(done.comment.id, line, ledger, dropped) for line in done.lines):
            break
        settled = done.comment.id
    return settled


def _pending(comment_id: int, line: Line, ledger: AbstractSet[Key], dropped: Mapping[Key, int]) -> bool:
    """An accepted change that is still waiting to be merged."""
    key = (comment_id, line.line)
    return (
        line.command is not None
        and line.verdict == "accepted"
        and changes_snapshot(line.command.verb)
        and key not in ledger
        and key not in dropped
        and line.decision != "lapsed"
    )
