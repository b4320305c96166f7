"""Timestamps: reading ISO-8601 from people and files, and writing the one UTC form perfbot uses."""

from __future__ import annotations

import datetime as dt


def parse_timestamp(text: str) -> dt.datetime | None:
    """An aware datetime from ISO-8601 text (a `Z` suffix or no offset means UTC); None if it is not
    one, or if it lies outside what can be compared (see `comparable`)."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
        return comparable(moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC))
    except ValueError:
        return None


def plausible_now(moment: dt.datetime) -> bool:
    """Whether `moment` can stand for the current time: the far ends would overflow date arithmetic."""
    return 1970 <= moment.year <= 9000


def comparable(moment: dt.datetime) -> dt.datetime:
    """`moment` itself, if it can be compared with other times; else ValueError.

    Aware times are compared in UTC, and `0001-01-01T00:00:00+14:00` or `9999-12-31T23:59:59-12:00`
    fall outside the years 1 to 9999 there, so comparing them raises OverflowError.
    """
    try:
        moment.astimezone(dt.UTC)
    except OverflowError:
        raise ValueError("a time that falls outside the years 1 to 9999 in UTC") from None
    return moment


def duration(minutes: int) -> str:
    """`45 min`, `1 h 35 min`, `2 d 3 h`: a length of time as people read it (negative reads as 0)."""
    days, rest = divmod(max(minutes, 0), 24 * 60)
    hours, rest = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    return f"{hours} h {rest} min" if hours else f"{rest} min"


def utc_stamp(moment: dt.datetime) -> str:
    """`2026-08-27T10:00:00Z`: the form GitHub uses, written into comments, the ledger and the state file."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
