"""Which lines of a comment GitHub shows as top-level paragraph text: the only lines that can be commands.

The comment is rendered by GitHub's own renderer (`github_markdown`: cmark-gfm with GitHub's
extensions), and a line counts when it starts a line of a paragraph that is not inside anything
else, as a browser builds the page (`line_starts`): not in code, a quote, a list, a table, a
heading, a footnote, raw HTML, an HTML comment, a link, emphasis or strikethrough, whatever
line the construct opened on.

How a rendered line is tied to its source line: each candidate line (one whose text starts with
the prefix) gets a mark just before the prefix, the marked comment is rendered once, and a line
counts when its mark starts a line of top-level paragraph text, directly followed by the prefix.
A mark is private-use characters, U+E000, the line's index as hex digits U+E010-U+E01F, then
U+E001: cmark-gfm reads them as it reads letters, and a letter at the start of a line before
`/` changes no block and no inline, so the marked comment renders as the comment. (A prefix that
starts otherwise than with one of `SAFE_START` is checked: the comment is rendered unmarked too,
and when the two differ but for the marks, no line counts.) The comment cannot forge a mark or
a paragraph: the private-use characters it holds, written or as character references, are read
as U+F8FF, and `data-sourcepos`, by which cmark-gfm's own paragraphs are known, is spelt
`data-sourcepoS`, the same to every rule of Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.commands.github_markdown import to_html
from bot.commands.line_starts import MARKED, UNREAD, line_starts

_OPEN, _CLOSE, _DIGIT0 = MARKED, "\ue001", 0xE010
_MARK = re.compile("\ue000([\ue010-\ue01f]+)\ue001")
_PRIVATE = re.compile("[\ue000-\ue01f]")
_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")
_SOURCE_POSITION = re.compile(' data-sourcepos="[^"]*"')
# What cmark-gfm reads otherwise than Python: NUL as U+FFFD; a lone surrogate cannot be UTF-8.
_UNREADABLE = re.compile("[\x00\ud800-\udfff]")
# First characters of a prefix that mean nothing more after a letter than at a line's start.
SAFE_START = frozenset("/!$%&'(),.;?@\\^{}\"")


def starts_command(line: str, prefix: str) -> bool:
    """Whether a stripped line starts with the prefix as a word (`/perf`, `/perf help`, not `/perfect`)."""
    return line == prefix or line.startswith((prefix + " ", prefix + "\t"))


def paragraph_lines(body: str, prefix: str) -> list[tuple[int, str]] | None:
    """(line number from 1, stripped text) of each line GitHub shows as paragraph text starting with `prefix`;
    None when the comment holds more markup before its last candidate line than perfbot reads
    (`line_starts.STEPS`, `line_starts.DEEPEST`)."""
    if prefix not in body:
        return []
    text = _UNREADABLE.sub("\ufffd", body)
    if "\r" in text:  # cmark-gfm's line ends, each one `\n`: the lines, their numbers and their text stay
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    candidates = _candidates(text, prefix)
    if not candidates:
        return []
    html = to_html(_with_marks(text, candidates, prefix))
    if prefix[:1] not in SAFE_START and _without_marks(html) != _without_marks(to_html(_unforgeable(text))):
        return []
    shown = _shown_marks(html, _escaped(prefix))
    if shown is None:
        return None
    return [(line + 1, text[start:end].strip()) for i, (line, start, end) in enumerate(candidates) if i in shown]


def _candidates(text: str, prefix: str) -> list[tuple[int, int, int]]:
    """(line index, start, end) of each line of `text` (`\n`-separated) that starts with the prefix
    as a word. Only the lines holding the prefix are looked at, each once: a comment of many short
    lines costs a search of its text, not a step per line."""
    found: list[tuple[int, int, int]] = []
    number = counted = 0
    at = text.find(prefix)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if starts_command(text[start:end].strip(), prefix):
            number += text.count("\n", counted, start)
            counted = start
            found.append((number, start, end))
        at = text.find(prefix, end + 1)
    return found


def _without_marks(html: str) -> str:
    """The HTML without the marks and the source positions, which the marks move."""
    return _SOURCE_POSITION.sub("", _MARK.sub("", html))


def _unforgeable(text: str) -> str:
    """The text with no mark of its own and no `data-sourcepos` attribute, to the same Markdown.
    Each change is inside a line, so the text may be made so a piece at a time, cut at line ends."""
    text = _PRIVATE.sub("\uf8ff", text).replace("data-sourcepos", "data-sourcepoS")
    return _REFERENCE.sub(_harmless_reference, text) if "&#" in text else text


def _harmless_reference(reference: re.Match[str]) -> str:
    hexadecimal, decimal = reference.groups()
    value = int(hexadecimal, 16) if hexadecimal else int(decimal)
    return "&#63743;" if 0xE000 <= value <= 0xE01F else reference.group()


def _mark(index: int) -> str:
    return _OPEN + "".join(chr(_DIGIT0 + int(d, 16)) for d in f"{index:x}") + _CLOSE


def _with_marks(text: str, candidates: Sequence[tuple[int, int, int]], prefix: str) -> str:
    """The unforgeable text with each candidate's mark before its prefix."""
    pieces: list[str] = []
    done = 0
    for index, (_, start, end) in enumerate(candidates):
        line = _unforgeable(text[start:end])
        at = line.find(prefix)  # the first non-blank text of a candidate line is the prefix ...
        if at >= 0:  # ... unless the prefix holds what no comment may (a mark, `data-sourcepos`)
            pieces += (_unforgeable(text[done:start]), line[:at], _mark(index), line[at:])
            done = end
    pieces.append(_unforgeable(text[done:]))
    return "".join(pieces)


def _escaped(text: str) -> str:
    """`text` as cmark-gfm writes it in HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _shown_marks(html: str, prefix: str) -> set[int] | None:
    """Indices of the marks that start a line of top-level paragraph text, directly followed by the
    prefix; None when `line_starts` stopped at one of its bounds before the last mark."""
    shown: set[int] = set()
    for at in line_starts(html, html.rfind(_OPEN) + 1):
        if at == UNREAD:
            return None
        mark = _MARK.match(html, at)
        if mark is not None and html.startswith(prefix, mark.end()):
            shown.add(int("".join(f"{ord(c) - _DIGIT0:x}" for c in mark.group(1)), 16))
    return shown
