"""The event that started a run (Actions' GITHUB_EVENT_NAME / GITHUB_EVENT_PATH), as a trigger.

Every run is a full recompute, so the trigger does not narrow what is decided: a cancelled or
skipped run loses nothing. It names the cause of the run in the plan. The payload is read
tolerantly (GitHub adds fields), but the few fields perfbot reads must have GitHub's types.
"""

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from bot.errors import InputError, validation_problems
from bot.github.observed import Tolerant, is_bot
from bot.json_input import parse_object


class Trigger(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

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


class _Payload(Tolerant):
    action: StrictStr = ""
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
