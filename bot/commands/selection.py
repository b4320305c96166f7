"""Intake: which comments this run handles, in what order, and which wait for a later run.

Two kinds of work, after the settled floor (`commands_settled_through`):

- `Fresh`: a comment with command lines that the bot has not answered yet, by a person (not a
  bot), not edited; or one its author edited after a decision that accepted none of it (decided
  again from its new text). At most `max_comments_per_user` per person per run; the rest *wait*.
- `Recalled`: a comment the bot answered earlier; its replayed lines come from the decision
  records in the bot's reply, never from the comment, which may be edited or deleted since.

All of it in comment order: creation time, then id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from bot.commands.grammar import Command
from bot.commands.reading import Parsed, parse
from bot.commands.records import DECISION_TOPIC, Record
from bot.config import CommandSettings
from bot.github.markers import marker
from bot.github.observed import Comment, is_bot


class Fresh(NamedTuple):
    """A new comment to decide on."""

    comment: Comment
    parsed: Parsed
    # Why none of its commands are read one by one (too long, too many, too big to record), or "".
    whole: str = ""


class Recalled(NamedTuple):
    """A comment decided earlier: its records, each with the command read back from it."""

    comment: Comment
    lines: tuple[tuple[Record, Command | None], ...]


Work = Fresh | Recalled


class Intake(NamedTuple):
    queue: tuple[Work, ...]
    # Ids of new comments left for a later run by the per-person cap.
    waiting: frozenset[int]
    # Ids of the comments read this run and found to hold no command line GitHub shows.
    empty: frozenset[int] = frozenset()


def take(
    comments: Sequence[Comment],
    records: Mapping[int, Sequence[Record]],
    floor: int,
    bot_login: str,
    limits: CommandSettings,
    finished: AbstractSet[int] = frozenset(),
    commandless: AbstractSet[int] = frozenset(),
    again: AbstractSet[int] = frozenset(),
) -> Intake:
    """The work of this run, in comment order, and the comments that wait.

    A comment the bot `finished` (🚀 or 😕) is never decided again: its records, wherever they
    are, say what was decided, and without them it is settled or lost to a person's hand. A
    comment an earlier run read and found `commandless`, unedited since, is not read again. A
    comment decided `again` (its author edited it after a decision that accepted nothing) is read
    from its text as it stands, whatever its reactions and earlier records say."""
    unread = [
        c
        for c in comments
        if c.id > floor
        and not is_bot(c.user, c.user_type, bot_login)
        and (
            c.id in again or (c.id not in records and c.id not in finished and c.id not in commandless and not c.edited)
        )
    ]
    # Most comments hold no prefix, so no command line: told in one test each, as `reading.parse` tells them.
    prefix = limits.prefix
    read = [(c, _parse(c.body, limits)) for c in unread if prefix in c.body]
    empty = frozenset(c.id for c in unread if prefix not in c.body) | {c.id for c, p in read if p.empty}
    fresh = sorted(((c, p) for c, p in read if not p.empty), key=lambda item: _order(item[0]))
    taken, waiting = _per_person(fresh, limits.max_comments_per_user)
    recalled = [
        Recalled(found[0].comment, tuple((r, recalled_command(r, limits)) for r in found))
        for cid, found in records.items()
        if cid > floor and found and cid not in again
    ]
    queue: list[Work] = [_fresh(c, p, limits) for c, p in taken]
    queue += recalled
    queue.sort(key=lambda work: _order(work.comment))
    return Intake(tuple(queue), frozenset(waiting), empty)


def reread(comment: Comment, limits: CommandSettings) -> tuple[Command, ...]:
    """The commands of a comment answered quietly whose records were lost with the PR body."""
    return _parse(comment.body, limits).commands


def recalled_command(record: Record, limits: CommandSettings) -> Command | None:
    """The command a record holds, at the record's line (None for a refused line: it keeps no text)."""
    parsed = _parse(record.text, limits)
    return parsed.commands[0]._replace(line=record.line) if parsed.commands else None


def _parse(body: str, limits: CommandSettings) -> Parsed:
    return parse(body, limits.prefix, limits.max_comment_chars, limits.max_argument_chars)


def _order(comment: Comment) -> tuple[object, int]:
    return (comment.created_at, comment.id)


def _per_person(fresh: list[tuple[Comment, Parsed]], cap: int) -> tuple[list[tuple[Comment, Parsed]], list[int]]:
    """The first `cap` comments of each person, and the ids of the rest."""
    seen: dict[str, int] = {}
    taken: list[tuple[Comment, Parsed]] = []
    waiting: list[int] = []
    for comment, parsed in fresh:
        seen[comment.user] = seen.get(comment.user, 0) + 1
        if seen[comment.user] <= cap:
            taken.append((comment, parsed))
        else:
            waiting.append(comment.id)
    return taken, waiting


def _fresh(comment: Comment, parsed: Parsed, limits: CommandSettings) -> Fresh:
    """A new comment; one too big to answer line by line is refused whole, so none of it counts."""
    whole = _too_big(comment, parsed, limits)
    return Fresh(comment, Parsed(too_long=True), whole) if whole else Fresh(comment, parsed)


def _too_big(comment: Comment, parsed: Parsed, limits: CommandSettings) -> str:
    """Why a comment's commands cannot be answered one by one (an empty string when they can)."""
    if parsed.too_long:
        return f"this comment is longer than {limits.max_comment_chars} characters"
    if parsed.too_intricate:
        return "this comment holds more HTML, or HTML nested deeper, before its last command line than perfbot reads"
    if len(parsed.commands) + len(parsed.errors) > limits.max_commands_per_comment:
        return f"this comment has more than {limits.max_commands_per_comment} commands"
    # Every line is recorded, a malformed one as refused: all of them must leave the reply room to speak.
    records = [Record(comment, c.line, "accepted", c.text).encode() for c in parsed.commands]
    records += [Record(comment, e.line, "refused", e.text).encode() for e in parsed.errors]
    room = limits.max_body_chars // 2
    # A marker is its key percent-encoded (at most 3 characters a byte) in a fixed frame: when
    # even that bound fits, the markers themselves need not be written to know they fit.
    frame = len(marker(DECISION_TOPIC, ""))
    if sum(frame + 3 * len(r.encode("utf-8")) for r in records) <= room:
        return ""
    if sum(len(marker(DECISION_TOPIC, r)) for r in records) > room:
        return "this comment's commands are too long to answer and record in one reply"
    return ""
