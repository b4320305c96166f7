"""Hidden markers on the bot's own comments: how a run knows what an earlier run already said.

A marker counts only on a comment authored by the bot's login: anyone can paste one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, unquote

from bot.github.observed import Comment

_MARKER = re.compile(r"<!-- perfbot:([a-z-]+) ([^\s>]*) -->")


# The dashboard issue's marker (topic and key): perfbot finds its dashboard by it and its login.
DASHBOARD_MARKER = ("dashboard", "board")


# What `quote(key, safe=KEPT)` writes for each ASCII character it escapes: `str.translate` writes
# an ASCII key so in one pass in C (a reply's records are a few hundred characters each, and a run
# with a thousand commands writes thousands of them).
KEPT = "._:-"
_ASCII_ESCAPES = {n: f"%{n:02X}" for n in range(128) if quote(chr(n), safe=KEPT) != chr(n)}


def marker(topic: str, key: str) -> str:
    """`<!-- perfbot:topic key -->`; the key is percent-encoded so it can never close the comment."""
    encoded = key.translate(_ASCII_ESCAPES) if key.isascii() else quote(key, safe=KEPT)
    return f"<!-- perfbot:{topic} {encoded} -->"


def header(*markers: tuple[str, str]) -> str:
    """The header of a marker comment: one marker line per (topic, key), in order, before any text."""
    return "\n".join(marker(topic, key) for topic, key in markers)


def markers_in(body: str) -> set[tuple[str, str]]:
    """Markers in the header of a comment: the leading lines that are markers and nothing else.

    The bot writes its markers first; anything after the header may quote people, so a marker
    there never counts, even on the bot's own comment.
    """
    found = set()
    for line in body.split("\n"):
        match = _MARKER.fullmatch(line.strip())
        if match is None:
            break
        found.add((match.group(1), unquote(match.group(2))))
    return found


def split_header(body: str) -> tuple[str, str]:
    """(the marker header with its line breaks, the rest): the header is what `markers_in` reads."""
    at = 0
    while True:
        end = body.find("\n", at)
        line = body[at:] if end < 0 else body[at:end]
        if _MARKER.fullmatch(line.strip()) is None:
            return body[:at], body[at:]
        if end < 0:
            return body, ""
        at = end + 1


def markers_of(comments: Iterable[Comment]) -> frozenset[tuple[str, str]]:
    """Every marker `comments` (already filtered to the bot's own) carry, read once per run:
    asking each comment again for each marker would cost comments × markers."""
    return frozenset(found for c in comments for found in markers_in(c.body))
