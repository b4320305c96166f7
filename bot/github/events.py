"""The event that started a run (Actions' GITHUB_EVENT_NAME / GITHUB_EVENT_PATH), as a trigger.

Every run is a full recompute, so the trigger does not narrow what is decided: a cancelled or
skipped run loses nothing. It names the cause of the run in the plan. The payload is read
tolerantly (GitHub adds fields), but the few fields perfbot reads must have GitHub's types.
"""

import datetime as dt
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from bot.errors import InputError, validation_problems
from bot.github.observed import Tolerant, is_bot
from bot.json_input import parse_object
from bot.timestamps import parse_timestamp

# The `repository_dispatch` type of a follow-up run (`bot/reconcile/executor.py`).
FOLLOW_UP = "perfbot-follow-up"


class Trigger(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    event: str
    action: str = ""
    issue: int | None = None
    comment_id: int | None = None
    sender: str = ""
    sender_is_bot: bool = False


class _User(Tolerant):
    login: StrictStr = ""
    type: StrictStr = ""


class _Issue(Tolerant):
    number: StrictInt | None = Field(default=None, gt=0)


class _Comment(Tolerant):
    id: StrictInt | None = Field(default=None, gt=0)
    user: _User | None = None


class FollowUp(NamedTuple):
    """What a follow-up's dispatch carries: the writes the run before it left, which run of its
    chain this is and the most runs the chain may take (`bot/reconcile/executor.py`), the times of
    the content-creating requests of the last hour, and when the next may go."""

    writes_left: int
    sent: tuple[dt.datetime, ...] = ()
    next_at: dt.datetime | None = None
    run: int = 1
    runs_most: int | None = None


class _Carried(Tolerant):
    writes_left: StrictStr = ""
    run: StrictStr = ""
    runs_most: StrictStr = ""
    sent: StrictStr = ""
    next_at: StrictStr = ""


class _Payload(Tolerant):
    action: StrictStr = ""
    client_payload: _Carried | None = None
    issue: _Issue | None = None
    comment: _Comment | None = None
    sender: _User | None = None


def parse_event(name: str, text: str, file: str) -> Trigger:
    try:
        payload = _Payload.model_validate(parse_object(text, file, "the event payload"))
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file, prefix="the event payload: ")) from exc
    comment = payload.comment or _Comment()
    author, sender = comment.user or _User(), payload.sender or _User()
    login, kind = author.login or sender.login, author.type or sender.type
    return Trigger(
        event=name,
        action=payload.action,
        issue=payload.issue.number if payload.issue else None,
        comment_id=comment.id,
        sender=login,
        sender_is_bot=is_bot(login, kind),
    )


def follow_up(name: str, text: str, file: str) -> FollowUp | None:
    """The follow-up a `repository_dispatch` of type `perfbot-follow-up` carries; None for any
    other event, or when what it carries is not a count. `sent` is Unix times in whole seconds,
    comma-separated; what is not one is left out, as is a `next_at` that is not a time. A missing
    or malformed `run` counts as the chain's first follow-up, a missing or malformed `runs_most`
    as none carried: the run derives its own from what it leaves."""
    if name != "repository_dispatch":
        return None
    try:
        payload = _Payload.model_validate(parse_object(text, file, "the event payload"))
    except ValidationError:
        return None
    carried = payload.client_payload
    count = carried.writes_left if carried is not None else ""
    if payload.action != FOLLOW_UP or carried is None or not (count.isascii() and count.isdecimal()):
        return None
    sent = tuple(
        dt.datetime.fromtimestamp(int(part), dt.UTC)
        for part in carried.sent.split(",")
        if part.isascii() and part.isdecimal() and len(part) <= 11
    )
    run, most = _count(carried.run), _count(carried.runs_most)
    return FollowUp(int(count), sent, parse_timestamp(carried.next_at), max(run or 1, 1), most)


def _count(text: str) -> int | None:
    """A carried count: ASCII digits, at most nine of them (a chain is never that long)."""
    return int(text) if text.isascii() and text.isdecimal() and len(text) <= 9 else None
