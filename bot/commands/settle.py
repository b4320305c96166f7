"""Settle: how far the ledger can be compacted (`commands_settled_through`).

A comment is *settled* when every command in it was answered and each accepted change it made
is merged into the default branch (in its ledger), dropped, or lapsed. The bound is the highest
comment id up to which every comment is settled; ledger entries up to it can be compacted away.
This run's own decisions count as recorded, so the bound (and with it the snapshot) is the same
whether or not this run's replies have been written yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from bot.commands.records import Key
from bot.commands.registry import changes_snapshot
from bot.commands.replay import Handled, Line


def settled_through(
    floor: int,
    handled: Sequence[Handled],
    waiting: AbstractSet[int],
    ledger: AbstractSet[Key],
    dropped: Mapping[Key, int],
) -> int:
    """The compaction bound after this run: at least `floor`, the bound the snapshot already has.

    `handled` is every comment this run decided or replayed; a comment left `waiting` for a
    later run (per-person cap) stops the bound before any later comment.
    """
    settled = floor
    for done in sorted(handled, key=lambda h: h.comment.id):
        if any(later < done.comment.id for later in waiting):
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
