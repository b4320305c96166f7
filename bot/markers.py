"""Hidden markers on the bot's own comments: how a run knows what an earlier run already said.

A marker counts only on a comment authored by the bot's login: anyone can paste one.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from bot.observed import Comment

_MARKER = re.compile(r"<!-- perfbot:([a-z-]+) ([^\s>]*) -->")


def marker(topic: str, key: str) -> str:
    """`<!-- perfbot:topic key -->`; the key is percent-encoded so it can never close the comment."""
    return f"<!-- perfbot:{topic} {quote(key, safe='._:/#=@+-')} -->"


def markers_in(body: str) -> set[tuple[str, str]]:
    return {(m.group(1), unquote(m.group(2))) for m in _MARKER.finditer(body)}


def said(comments: list[Comment], topic: str, key: str) -> bool:
    """Whether one of `comments` (already filtered to the bot's own) carries this marker."""
    return any((topic, key) in markers_in(c.body) for c in comments)
