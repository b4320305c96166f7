"""Neutralising text from outside (comments, logins, leases, files) before perfbot echoes it.

A quoted line must not ping anyone, open or close an HTML comment (and so forge or break our
markers), break the reply's Markdown, reorder the text around it (bidirectional controls), or
become a GitHub Actions workflow command when the plan is printed to a job's log (`::` at the
start of a line, `##[` anywhere in one). `log_safe` applies the last rule to whole outputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# C0 and C1 controls but the tab, and every character something reads as a line break.
_CONTROL_CHARS = r"\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029"
_CONTROL = re.compile(f"[{_CONTROL_CHARS}]")
# Bidirectional embeddings, overrides, isolates and marks: they reorder the text that follows.
_BIDI_CHARS = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI = re.compile(f"[{_BIDI_CHARS}]")
# Either of the two: one scan finds whether `one_line` has anything to replace.
_CONTROL_OR_BIDI = re.compile(f"[{_CONTROL_CHARS}{_BIDI_CHARS}]")
_ZERO_WIDTH = "\u200b"
# The Actions runner reads `::command::` after leading spaces, and the legacy `##[command]` anywhere
# in a line; it ends lines at `\r` as well as `\n`, and every other break a reader may take for the
# end of a line (`str.splitlines`'s) counts too, so no reader of the log sees a command start.
_LINE_COMMAND = re.compile(r"(?:^|(?<=[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]))(\s*):(?=:)", re.MULTILINE)
_LEGACY_COMMAND = "##["
_MENTION = re.compile("@(?!" + _ZERO_WIDTH + ")")
_FENCE = re.compile(r"^(\s*)([`~])(?=\2\2)")


def neutral(text: str, limit: int | None = None) -> str:
    """One line of inert text: no mentions, no HTML comments, no controls; cut to `limit` characters if given.

    Only cut text that holds no code span of ours: cutting one open would let the rest render.
    """
    line = one_line(text, limit)
    if "@" in line:  # most text holds no mention: skip the substitution (the result is the same)
        line = _MENTION.sub("@" + _ZERO_WIDTH, line)  # idempotent: neutral twice is neutral
    return line.replace("<!--", "<!" + _ZERO_WIDTH + "--").replace("-->", "--" + _ZERO_WIDTH + ">")


def one_line(text: str, limit: int | None = None) -> str:
    """`text` as one log-safe line: controls and line breaks become spaces, bidi controls go."""
    line = text
    if _CONTROL_OR_BIDI.search(text) is not None:  # most text has neither (the result is the same)
        line = _BIDI.sub("", _CONTROL.sub(" ", text))
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    return log_safe(line)


def line_start_safe(text: str) -> str:
    """`one_line(text)`, with a leading code fence broken: where a template starts a line with a
    value, a fence there would open or close a fenced block (or the job summary's fence)."""
    return _FENCE.sub(lambda m: m.group(1) + m.group(2) + _ZERO_WIDTH, one_line(text))


def log_safe(text: str) -> str:
    """`text` with no line the Actions runner would take for a workflow command; unchanged otherwise."""
    text = text.replace(_LEGACY_COMMAND, "##" + _ZERO_WIDTH + "[")
    if "::" not in text:  # a command needs two colons in a row: most text has none (the result is the same)
        return text
    return _LINE_COMMAND.sub(lambda m: m.group(1) + ":" + _ZERO_WIDTH, text)


def log_safe_json(text: str) -> str:
    """JSON text made log-safe without changing the value it encodes: `[` may be written `\\u005b`.

    In JSON text `##[` can only occur inside a string, and no line can start with `::`.
    """
    return text.replace(_LEGACY_COMMAND, "##\\u005b")


def code_span(text: str, limit: int = 300) -> str:
    """`text` as an inline code span whose backtick fence is longer than any run inside it."""
    line = neutral(text, limit)
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line else ""
    return f"{fence}{pad}{line}{pad}{fence}"


# A code span of perfbot's own (one backtick each side) inside a text it writes: `x`.
_OWN_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def reason_cell(text: str, limit: int = 300) -> str:
    """perfbot's own words (a reason, whose outside values it wrote as code spans) for a GFM table
    cell: one code span, as every cell of outside text is, without the literal backticks its own
    inner spans would show there; "—" for nothing."""
    if not text.strip():
        return "—"
    return table_code(_OWN_SPAN.sub(r"\1", text), limit)


def table_code(text: str, limit: int = 300) -> str:
    """`text` as a code span for a GFM table cell: a `|` even inside a code span ends a cell unescaped."""
    return code_span(text, limit).replace("|", "\\|")


# Kept as they are inside a quoted mermaid label; everything else becomes a `#code;` entity, so no
# text can end the label (`"`), start markdown (a backtick), write HTML, or form an entity of its own.
_MERMAID_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _.,/+*()-")
# Control characters (C0, DEL, C1, line and paragraph separators) read as a space in a label or a
# DOT string; lone surrogates cannot be written as UTF-8 and read as U+FFFD.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def graph_line(text: str) -> str:
    """`text` with control characters as spaces and lone surrogates as U+FFFD."""
    return _CONTROLS.sub(" ", _SURROGATE.sub("\ufffd", text))


def mermaid_text(text: str) -> str:
    """`text` for the inside of a double-quoted mermaid label: only safe ASCII and entity codes."""
    return "".join(ch if ch in _MERMAID_PLAIN else f"#{ord(ch)};" for ch in graph_line(text))


def dot_line(text: str) -> str:
    """`graph_line(text)` for a DOT string: DOT is printed as it is (a terminal, a job's log), so no
    bidi control reorders the text around it and no `##[` starts a legacy workflow command."""
    return _BIDI.sub("", graph_line(text)).replace(_LEGACY_COMMAND, "##" + _ZERO_WIDTH + "[")


def dot_text(text: str) -> str:
    """`text` for the inside of a double-quoted DOT string: escapes only, one line, encodable, inert."""
    return dot_line(text).replace("\\", "\\\\").replace('"', '\\"')


def echo(value: object, limit: int = 60) -> str:
    """A short, inert rendering of a value from outside, for an error message: text quoted and cut,
    anything else named by its type (a list may be an alias bomb; its repr is never built)."""
    if isinstance(value, str):
        return "'" + neutral(value, limit).replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):  # past 4,300 digits `str` itself refuses
        return str(value) if value.bit_length() <= 3 * limit else "a very long number"
    if isinstance(value, float):
        return str(value)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    return "a value of another type"
