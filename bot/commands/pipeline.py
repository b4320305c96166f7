"""Commands from issue comments: the working snapshot, and every answer, in one pure step.

Exactly once, nothing lost: the bot's reply to a comment records its decision on every command
line (`records`), and the snapshot's ledger records every applied command. Each run rebuilds the
working snapshot as the default branch's snapshot plus every accepted command not in that
ledger, in comment order. The steps: `selection` (which comments), `policy` (who may, what a drop
removes), `replay` (decide new commands, replay recorded ones), `settle` (how far the ledger can
be compacted) and `outbox` (reactions, replies, notices, reports).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from bot.commands import outbox, policy, replay, selection, settle
from bot.commands.effects import Explainer
from bot.commands.grammar import Targeted
from bot.commands.outbox import CommandReport
from bot.commands.records import lapsed_said, recorded_decisions
from bot.commands.replay import Handled, Line
from bot.config import BotConfig
from bot.github.actions import Action
from bot.github.observed import Comment, Observed
from bot.render import Renderer
from bot.snapshot.model import Snapshot


class Processed(NamedTuple):
    """The outcome of reading every command: the working snapshot and what to answer."""

    snapshot: Snapshot
    actions: list[Action]
    reports: list[CommandReport]
    assignees: dict[int, tuple[str, ...]]
    applied: list[tuple[Comment, str]]
    # Highest comment id up to which every command is settled against the default branch.
    settled_through: int


def process(
    base: Snapshot, observed: Observed, config: BotConfig, renderer: Renderer, explain: Explainer | None = None
) -> Processed:
    """Replay decided commands and decide new ones, in comment order, on top of `base`."""
    mine = observed.bot_comments()
    records = recorded_decisions(mine)
    floor = base.commands_settled_through
    work = selection.take(observed.comments, records, floor, observed.bot_login, config.commands)
    ledger = frozenset(entry.key for entry in base.ledger)
    assignees = {issue.number: issue.assignees for issue in observed.issues}
    dropped = policy.dropped(work.queue, observed.permissions, base, assignees, ledger)
    bot = observed.bot_login
    reacted = frozenset((r.comment_id, r.content) for r in observed.reactions if r.user == bot)
    present = frozenset(c.id for c in observed.comments)
    context = replay.Context(
        config=config,
        renderer=renderer,
        permissions=observed.permissions,
        ledger=ledger,
        dropped=dropped,
        lapsed_said=lapsed_said(mine),
        finished=outbox.finished(reacted),
        present=present,
        explain=explain,
    )
    accepted = frozenset(r.key() for found in records.values() for r in found if r.verdict == "accepted")
    final, handled = replay.fold(replay.Working(base, assignees, accepted), work.queue, context)
    handled = _answered_at_end(handled, final, explain)
    pull = observed.open_pull(config.pull_request.branch)
    limit = config.commands.max_body_chars
    voice = outbox.Voice(renderer, config.commands.prefix, reacted, present, limit, pull.number if pull else None)
    return Processed(
        snapshot=final.snapshot,
        actions=[action for done in handled for action in outbox.actions(done, voice)],
        reports=[report for done in handled for report in outbox.reports(done)],
        assignees=dict(final.assignees),
        applied=list(final.applied),
        settled_through=settle.settled_through(floor, handled, work.waiting, ledger, dropped),
    )


def _answered_at_end(handled: list[Handled], final: replay.Working, explain: Explainer | None) -> list[Handled]:
    """Every `why` of the run answered from the state the run ends on: a `why` before a
    `complete` in the same run says what the one after it says."""
    if explain is None:
        return handled
    snapshot = final.snapshot

    def answered(line: Line) -> Line:
        command = line.command
        if command is None or command.verb != "why" or line.decision != "accepted":
            return line
        target = command.args.target if isinstance(command.args, Targeted) else ""
        if snapshot.packet(target) is None:  # a later command of the run renamed it away
            return line
        return dataclasses.replace(line, reason=explain(snapshot, target, final.assignees))

    return [
        done._replace(lines=tuple(answered(line) for line in done.lines)) if done.fresh else done for done in handled
    ]


def unanswered(observed: Observed, floor: int, config: BotConfig) -> list[Comment]:
    """The comments this run answers for the first time, in the order it answers them.

    Their authors are the only people whose permission a run needs to know."""
    records = recorded_decisions(observed.bot_comments())
    work = selection.take(observed.comments, records, floor, observed.bot_login, config.commands)
    return [item.comment for item in work.queue if isinstance(item, selection.Fresh)]
