"""Neutralising text people wrote before it goes into the bot's own comments.

A quoted line must not ping anyone, open or close an HTML comment (and so forge or break our
markers), or break the reply's Markdown.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
_ZERO_WIDTH = "\u200b"


def neutral(text: str, limit: int | None = None) -> str:
    """One line of inert text: no mentions, no HTML comments; cut to `limit` characters if given.

    Only cut text that holds no code span of ours: cutting one open would let the rest render.
    """
    line = _CONTROL.sub(" ", text.replace("\r", " ").replace("\n", " "))
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    line = line.replace("@", "@" + _ZERO_WIDTH)
    return line.replace("<!--", "<!" + _ZERO_WIDTH + "--").replace("-->", "--" + _ZERO_WIDTH + ">")


def code_span(text: str, limit: int = 300) -> str:
    """`text` as an inline code span whose backtick fence is longer than any run inside it."""
    line = neutral(text, limit)
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line else ""
    return f"{fence}{pad}{line}{pad}{fence}"


# Kept as they are inside a quoted mermaid label; everything else becomes a `#code;` entity, so no
# text can end the label (`"`), start markdown (a backtick), write HTML, or form an entity of its own.
_MERMAID_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _.,/+*()-")
# Control characters (C0, DEL, C1, line and paragraph separators) read as a space in a label or a
# DOT string; lone surrogates cannot be written as UTF-8 and read as U+FFFD.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def one_line(text: str) -> str:
    """`text` with control characters as spaces and lone surrogates as U+FFFD."""
    return _CONTROLS.sub(" ", _SURROGATE.sub("\ufffd", text))


def mermaid_text(text: str) -> str:
    """`text` for the inside of a double-quoted mermaid label: only safe ASCII and entity codes."""
    return "".join(ch if ch in _MERMAID_PLAIN else f"#{ord(ch)};" for ch in one_line(text))


def dot_text(text: str) -> str:
    """`text` for the inside of a double-quoted DOT string: escapes only, one line, encodable."""
    return one_line(text).replace("\\", "\\\\").replace('"', '\\"')
