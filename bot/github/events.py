"""The event that started a run (Actions' GITHUB_EVENT_NAME / GITHUB_EVENT_PATH), as a trigger.

Every run is a full recompute, so the trigger does not narrow what is decided: a cancelled or
skipped run loses nothing. It names the cause of the run in the plan.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.files import parse_object
from bot.github.observed import is_bot


class Trigger(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    event: str
    action: str = ""
    issue: int | None = None
    comment_id: int | None = None
    sender: str = ""
    sender_is_bot: bool = False


def parse_event(name: str, text: str, file: str) -> Trigger:
    payload = parse_object(text, file, "the event payload")
    issue = _get(payload, "issue", "number")
    comment = _get(payload, "comment", "id")
    sender = _get(payload, "comment", "user", "login") or _get(payload, "sender", "login") or ""
    kind = _get(payload, "comment", "user", "type") or _get(payload, "sender", "type") or ""
    return Trigger(
        event=name,
        action=str(payload.get("action") or ""),
        issue=issue if isinstance(issue, int) else None,
        comment_id=comment if isinstance(comment, int) else None,
        sender=str(sender),
        sender_is_bot=is_bot(str(sender), str(kind)),
    )


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
