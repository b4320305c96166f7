"""The early exit: an `issue_comment` event whose comment holds no command line at all.

Such a run would change nothing: perfbot reads comments only for their commands, nothing else
it reads (snapshot, leases, issues, the bot's own comments) changes with a plain comment, and
every run recomputes everything, so the next event or the schedule sees the same world. The
check reads only the event file and the command prefix (`bot.config_prefix`, no YAML library),
and is a superset of the real parser's command lines (`bot/commands/reading.py`), which all
contain the prefix: a comment is skipped only when its body does not contain the prefix at all.
Whatever it cannot read plainly (a payload that is not JSON, no body, an unknown prefix) means
"not quiet": a full run, which reports any problem the usual way.
"""

from __future__ import annotations

import json
import os

from bot.config_prefix import plain_prefix

# This module runs before anything else a run imports: pathlib and typing stay unimported.
PathText = str | os.PathLike[str]

EVENT = "issue_comment"
MAX_EVENT_BYTES = 10_000_000  # GitHub's webhook payload cap is 25 MB; a comment is at most 65,536 characters


def _text(path: PathText, limit: int) -> str | None:
    try:
        with open(path, "rb") as file:  # noqa: PTH123 (a path as the command line or environment gives it)
            data = file.read(limit + 1)
        return data.decode("utf-8") if len(data) <= limit else None
    except (OSError, UnicodeDecodeError):
        return None


def comment_body(event_text: str) -> str | None:
    """The comment's body from an `issue_comment` payload, or None if it is not plainly there."""
    try:
        payload = json.loads(event_text)
    except (ValueError, RecursionError):
        return None
    comment = payload.get("comment") if isinstance(payload, dict) else None
    body = comment.get("body") if isinstance(comment, dict) else None
    return body if isinstance(body, str) else None


def quiet_comment(event_name: str | None, event_path: PathText | None, config_path: PathText) -> bool:
    """True when the event is a comment with no command line: the run can stop before gathering."""
    if event_name != EVENT or event_path is None:
        return False
    config, event = _text(config_path, 1_000_000), _text(event_path, MAX_EVENT_BYTES)
    prefix = plain_prefix(config) if config is not None else None
    body = comment_body(event) if event is not None else None
    return prefix is not None and body is not None and prefix not in body
