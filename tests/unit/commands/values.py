"""In-memory values for the command steps' unit tests: comments, records, parsed work."""

from __future__ import annotations

import datetime as dt

from bot.commands.reading import parse
from bot.commands.records import Record, Verdict
from bot.commands.selection import Fresh, Recalled
from bot.config import CommandSettings
from bot.github.observed import Comment

LIMITS = CommandSettings()
M1 = "mac.m1-streamed-q4k-no-copy"  # issue 8325; two packets depend on it
CUDA = "profile.real-cuda"  # issue 9497
REVIEWED = "metal-resident-decode"  # a constraint


def comment(cid: int, user: str, body: str, issue: int = 8325, minute: int | None = None, **extra: object) -> Comment:
    """A comment made `minute` minutes after 10:00 on the seed day (by default, its id's order)."""
    at = dt.datetime(2026, 8, 27, 10, tzinfo=dt.UTC) + dt.timedelta(minutes=cid % 60 if minute is None else minute)
    return Comment.model_validate({"id": cid, "issue": issue, "user": user, "created_at": at, "body": body, **extra})


def fresh(cid: int, user: str, body: str, issue: int = 8325) -> Fresh:
    c = comment(cid, user, body, issue)
    return Fresh(c, parse(body, LIMITS.prefix, LIMITS.max_comment_chars, LIMITS.max_argument_chars))


def recalled(cid: int, user: str, body: str, verdict: Verdict = "accepted", issue: int = 8325) -> Recalled:
    """A comment answered earlier, one record per command line of `body`."""
    c = comment(cid, user, body, issue)
    parsed = parse(body, LIMITS.prefix, LIMITS.max_comment_chars, LIMITS.max_argument_chars)
    if verdict == "refused":  # a refused line's record keeps no text, so no command comes back from it
        return Recalled(c, tuple((Record(c, cmd.line, verdict, ""), None) for cmd in parsed.commands))
    return Recalled(c, tuple((Record(c, cmd.line, verdict, cmd.text), cmd) for cmd in parsed.commands))
