"""Neutralising text from outside before it reaches a sink: comments, tables, the Actions log.

A quoted line must not ping anyone, open or close an HTML comment (and so forge or break our
markers), or break the reply's Markdown; a line printed in a workflow must not start a workflow
command (`::name::`), which the runner would obey.
"""

from __future__ import annotations

import re

# Every break a runner or a Python reader takes as the end of a line.
_LINE_BREAK = re.compile(r"(\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
_ZERO_WIDTH = "\u200b"


def neutral(text: str, limit: int | None = None) -> str:
    """One line of inert text: no mentions, no HTML comments; cut to `limit` characters if given.

    Only cut text that holds no code span of ours: cutting one open would let the rest render.
    """
    line = _CONTROL.sub(" ", text.replace("\r", " ").replace("\n", " "))
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    line = re.sub("@(?!" + _ZERO_WIDTH + ")", "@" + _ZERO_WIDTH, line)  # idempotent: neutral twice is neutral
    return line.replace("<!--", "<!" + _ZERO_WIDTH + "--").replace("-->", "--" + _ZERO_WIDTH + ">")


def code_span(text: str, limit: int = 300) -> str:
    """`text` as an inline code span whose backtick fence is longer than any run inside it."""
    line = neutral(text, limit)
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def table_code(text: str, limit: int = 300) -> str:
    """`text` as a code span for a GFM table cell: a `|` even inside a code span ends a cell unescaped."""
    return code_span(text, limit).replace("|", "\\|")


def inert_log(text: str) -> str:
    """`text` with no line that the Actions runner would read as a workflow command.

    The runner trims a line before looking for `::`, so a line whose first visible characters
    are `::` gets a zero-width space between the colons; other text is left byte for byte.
    """
    parts = _LINE_BREAK.split(text)
    for index in range(0, len(parts), 2):  # even items are lines, odd ones the breaks between them
        line = parts[index]
        stripped = line.lstrip()
        if stripped.startswith("::"):
            at = len(line) - len(stripped)
            parts[index] = line[:at] + ":" + _ZERO_WIDTH + line[at + 1 :]
    return "".join(parts)


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
