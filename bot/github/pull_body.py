"""The regeneration PR's body: perfbot's part, and what people write above and below it.

perfbot's part starts with a marker line that records the length and a digest of what perfbot wrote
after it (the records of quiet answers, then what the change does), and ends with `END`, the line
below which people's text is kept. Text above the start marker and below the end marker is
people's: perfbot writes it back as they left it. Only the header of perfbot's part (its first
lines, the start marker's and the records') is read for records, and only the first start marker
counts, so text people keep above it never holds one.

The digest finds perfbot's part when a person deleted its end marker and says when a person edited
inside it (that edit is replaced by perfbot's next write, which says so). It is no evidence of
authorship: who last edited the body is (GitHub's `editor`, `observed.pull_body_stranger`).
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

from bot.github.markers import marker, markers_in

# The end of perfbot's part of the PR's body: what people write below it is kept.
END = "<!-- perfbot:pr-body-end: text below this line is kept by perfbot -->"
START_TOPIC = "pr-body"
_START = re.compile(r"^<!-- perfbot:pr-body (\d+)\.([0-9a-f]{16}) -->[ \t]*\n", re.MULTILINE)


class Parts(NamedTuple):
    """A PR body split into people's text above perfbot's part, the part, and people's text below."""

    above: str
    ours: str  # from the start marker (or the top, in a body written before it) through the end marker
    below: str
    # A person edited inside perfbot's part: its digest no longer matches what follows its marker.
    edited: bool = False

    def joined(self) -> str:
        """The body as perfbot reads it: what a write of the same parts leaves (its end marker back
        in place when only that was deleted, line breaks as `\n`)."""
        return self.above + self.ours + self.below


def _key(content: str) -> str:
    """The start marker's key: the length and digest of `content` as `parts` reads it back."""
    text = content.replace("\r\n", "\n")
    return f"{len(text)}.{_digest(text)}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# The longest start marker line, its line break included: what it takes of the body's room.
START_LINE = len(marker(START_TOPIC, f"{10**6}.{'0' * 16}")) + 1


def assemble(above: str, inner: str, below: str) -> str:
    """The body: people's text above, perfbot's part (`inner` ending with `END`), people's text below.
    The start marker records the length and digest of `inner` before its end marker."""
    if above and not above.endswith("\n"):
        above += "\n\n"
    return above + marker(START_TOPIC, _key(inner.removesuffix(END))) + "\n" + inner + below


def parts(body: str) -> Parts:
    """`body` split into its parts. Line breaks are read as `\\n`: GitHub's editor sends `\\r\\n`, and
    Markdown reads a lone `\\r` as a line break too (so people's text ending in one stays theirs
    as GitHub shows it, rather than running into the break that separates it from perfbot's part).

    A body with no start marker was written before perfbot kept text above its part: its part runs
    from the top to the end marker (or to the end), when the body starts with perfbot's markers or
    has the end marker; a body with neither is all people's text."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    found = _START.search(text)
    if found is None:
        at = text.find(END)
        if at >= 0:
            return Parts("", text[: at + len(END)], text[at + len(END) :])
        return Parts("", text, "") if markers_in(text) else Parts(text, "", "")
    above, rest = text[: found.start()], text[found.end() :]
    length, digest = int(found.group(1)), found.group(2)
    start = text[found.start() : found.end()]
    if len(rest) >= length and _digest(rest[:length]) == digest:
        below = rest[length:]
        below = below.removeprefix(END)  # deleted by a person: what follows their part is still theirs
        return Parts(above, start + rest[:length] + END, below)
    at = rest.find(END)
    if at < 0:  # edited inside, and its end deleted: nothing says where it ended
        return Parts(above, start + rest, "", edited=True)
    return Parts(above, start + rest[: at + len(END)], rest[at + len(END) :], edited=True)
