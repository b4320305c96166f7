"""Reading a comment: its command lines, each read by its verb's grammar. Total: never raises.

One command per line, starting with the configured prefix; only lines that GitHub shows as
paragraph text count (*which lines GitHub shows*, below), so code, HTML, quotes, tables and hidden spans are never
commands. A malformed line becomes a `ParseError` that names the problem and the verb's usage.

**Which lines GitHub shows** as top-level paragraph text: the only lines that can be commands.
The comment is rendered by GitHub's own renderer (`to_html`, below: cmark-gfm with GitHub's
extensions), and a line counts when it starts a line of a paragraph that is not inside anything
else, as a browser builds the page (`browser_parse.line_starts`): not in code, a quote, a list, a table, a
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

**GitHub's Markdown renderer** for comments: cmark-gfm itself (through `cmarkgfm`), as GitHub runs it.
GitHub renders a comment with cmark-gfm's `table`, `strikethrough`, `autolink`, `tagfilter` and
`tasklist` extensions and its footnotes, passes raw HTML through (and sanitises it afterwards), and
shows each line break as a break (`<br />`). `to_html` renders a text that way, with each block's
source lines (`data-sourcepos`): that attribute is how a reader of the HTML tells the paragraphs
cmark-gfm wrote from raw HTML that looks like one; and its quotes end a quoted attribute value
that raw HTML left open, where they end it in cmark-gfm's rendering with source positions, the
page perfbot's reading is tested against (without them, such a value would end later, and a line
hidden there would be read).

cmarkgfm's own helper frees neither the tree it parses nor the HTML it renders: about 200 bytes
for each byte of a comment of short lines, so 150 such comments of 65,536 characters would hold
2 GB. Both are freed here with cmark-gfm's own functions (`cmark_node_free` and its allocator's
`free`), which the extension module exports on Linux and macOS; where it does not, they are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from bot.commands.browser_parse import MARKED, UNREAD, line_starts
from bot.commands.grammar import ArgumentError, Command, Grammar
from bot.commands.registry import VERBS, lookup
from bot.untrusted import code_span


@dataclass(frozen=True)
class CommandLine:
    """A line of a comment that starts with the command prefix: its number (1-based) and its text."""

    line: int
    text: str


@dataclass(frozen=True)
class ParseError(CommandLine):
    """A command line that could not be read, and why."""

    message: str


class Parsed(NamedTuple):
    """A comment's commands and malformed lines; `too_long` when it was too long to read at all,
    `too_intricate` when it holds more markup before its last command line than perfbot reads."""

    commands: tuple[Command, ...] = ()
    errors: tuple[ParseError, ...] = ()
    too_long: bool = False
    too_intricate: bool = False

    @property
    def empty(self) -> bool:
        return not self.commands and not self.errors and not self.too_long and not self.too_intricate


def command_lines(body: str, prefix: str) -> list[tuple[int, str]] | None:
    """(line number, text) of each line that GitHub shows as paragraph text and that starts with the prefix.

    See *which lines GitHub shows* above: lines in code, HTML, quotes, headings, tables, tight list items, or inside a
    span that hides or restyles them (code spans, image alt text, links, HTML) are not commands.
    None when the comment is too intricate to read (see `paragraph_lines`).
    """
    return paragraph_lines(body, prefix)


def has_raw_command_line(body: str, prefix: str) -> bool:
    """A cheap look for a command-like line, for comments too long to read properly."""
    return any(starts_command(raw.strip(), prefix) for raw in body.split("\n"))


def parse(body: str, prefix: str, max_comment: int, max_argument: int) -> Parsed:
    """Every command and every malformed command line of a comment."""
    if prefix not in body:  # most comments: no line can start a command, however long (the result is the same)
        return _NOTHING
    if len(body) > max_comment:
        return Parsed(too_long=has_raw_command_line(body, prefix))
    lines = command_lines(body, prefix)
    if lines is None:
        return Parsed(too_intricate=True)
    commands: list[Command] = []
    errors: list[ParseError] = []
    for number, text in lines:
        read = _read_line(text, prefix, max_argument, number)
        if isinstance(read, str):
            errors.append(ParseError(number, text, read))
        else:
            commands.append(read)
    return Parsed(tuple(commands), tuple(errors))


_NOTHING = Parsed()


def usage(prefix: str, grammar: Grammar) -> str:
    """Each form of a verb as a code span, so its placeholders (`<packet>`) show on GitHub rather
    than being read as HTML tags and dropped."""
    return " or ".join(code_span(f"{prefix} {form}") for form in grammar.forms)


def _read_line(text: str, prefix: str, max_argument: int, number: int) -> Command | str:
    """The command on one line, or what is wrong with it."""
    word, _, args = text[len(prefix) :].strip().partition(" ")
    spec = lookup(word.lower())
    args = args.strip()
    if spec is None:
        return f"unknown command {code_span(word, 40)}; known: {', '.join(VERBS)}" if word else "no command given"
    if len(args) > max_argument:
        return f"arguments are {len(args)} characters long; the limit is {max_argument}"
    try:
        return Command(spec.verb, number, text, spec.grammar.build(args))
    except ArgumentError as bad:
        return f"{bad}; usage: {usage(prefix, spec.grammar)}"


_OPEN, _CLOSE, _DIGIT0 = MARKED, "\ue001", 0xE010
_MARK = re.compile("\ue000([\ue010-\ue01f]+)\ue001")
_PRIVATE = re.compile("[\ue000-\ue01f]")
_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")
_SOURCE_POSITION = re.compile(' data-sourcepos="[^"]*"')
# What cmark-gfm reads otherwise than Python: NUL as U+FFFD; a lone surrogate cannot be UTF-8.
_UNREADABLE = re.compile("[\x00\ud800-\udfff]")
# First characters of a prefix that mean nothing more after a letter than at a line's start.
SAFE_START = frozenset("/!$%&'(),.;?@\\^{}\"")
# A prefix whose text Markdown reads as it is wherever it stands, at a line's start above all.
_INERT_PREFIX = re.compile("/[A-Za-z0-9-]*")


def starts_command(line: str, prefix: str) -> bool:
    """Whether a stripped line starts with the prefix as a word (`/perf`, `/perf help`, not `/perfect`)."""
    return line == prefix or line.startswith((prefix + " ", prefix + "\t"))


def paragraph_lines(body: str, prefix: str) -> list[tuple[int, str]] | None:
    """(line number from 1, stripped text) of each line GitHub shows as paragraph text starting with `prefix`;
    None when the comment holds more markup before its last candidate line than perfbot reads
    (`browser_parse.STEPS`, `browser_parse.DEEPEST`)."""
    if prefix not in body:
        return []
    text = _UNREADABLE.sub("\ufffd", body)
    if "\r" in text:  # cmark-gfm's line ends, each one `\n`: the lines, their numbers and their text stay
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    candidates = _candidates(text, prefix)
    if not candidates:
        return []
    if _one_plain_line(text, prefix):
        return [(1, text.strip())]
    html = to_html(_with_marks(text, candidates, prefix))
    if prefix[:1] not in SAFE_START and _without_marks(html) != _without_marks(to_html(_unforgeable(text))):
        return []
    shown = _shown_marks(html, _escaped(prefix))
    if shown is None:
        return None
    return [(line + 1, text[start:end].strip()) for i, (line, start, end) in enumerate(candidates) if i in shown]


def _one_plain_line(text: str, prefix: str) -> bool:
    """A comment of one line that starts with an inert prefix (a slash, then letters, digits and
    dashes, as `/perf`) is one top-level paragraph whose line starts with the prefix, whatever
    follows it: no block starts with a slash, a block that changes an earlier line needs a second
    line (setext heading, table), and no inline construct opens at a slash or inside such a word.
    It is read so without rendering it (most command comments are one line)."""
    return "\n" not in text and text.startswith(prefix) and _INERT_PREFIX.fullmatch(prefix) is not None


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


EXTENSIONS = ("table", "strikethrough", "autolink", "tagfilter", "tasklist")


@cache
def _renderer() -> tuple[Any, Any, int, tuple[Any, ...]]:
    """cmarkgfm's C library and its FFI, GitHub's options, and the extensions, loaded on first use:
    most runs read no command, and those need no Markdown at all."""
    from cmarkgfm import _cmark, cmark

    options = cmark.Options
    flags = (
        options.CMARK_OPT_UNSAFE
        | options.CMARK_OPT_HARDBREAKS
        | options.CMARK_OPT_FOOTNOTES
        | options.CMARK_OPT_SOURCEPOS
    )
    cmark.core_extensions_ensure_registered()
    extensions = tuple(cmark.find_syntax_extension(name) for name in EXTENSIONS)
    return _cmark.lib, _cmark.ffi, flags, extensions


@cache
def _releaser() -> Callable[[int, int], None] | None:
    """Frees a parsed tree and a rendered text (their addresses), or None where cmark-gfm's
    functions for that are not exported: the memory is then kept until the process ends."""
    import ctypes

    from cmarkgfm import _cmark

    class Memory(ctypes.Structure):
        _fields_ = [
            ("calloc", ctypes.c_void_p),
            ("realloc", ctypes.c_void_p),
            ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        ]

    try:
        library = ctypes.CDLL(_cmark.__file__)
        node_free, allocator = library.cmark_node_free, library.cmark_get_default_mem_allocator
    except (OSError, AttributeError):
        return None
    node_free.argtypes, node_free.restype = [ctypes.c_void_p], None
    allocator.argtypes, allocator.restype = [], ctypes.POINTER(Memory)
    free = allocator().contents.free

    def release(root: int, text: int) -> None:
        node_free(root)
        free(text)

    return release


def to_html(text: str) -> str:
    """`text` rendered as GitHub renders a comment, before its sanitiser; `text` holds no surrogate."""
    lib, ffi, flags, extensions = _renderer()
    data = text.encode("utf-8")
    parser = lib.cmark_parser_new(flags)
    try:
        for extension in extensions:
            lib.cmark_parser_attach_syntax_extension(parser, extension)
        lib.cmark_parser_feed(parser, data, len(data))
        root = lib.cmark_parser_finish(parser)
        rendered = lib.cmark_render_html(root, flags, lib.cmark_parser_get_syntax_extensions(parser))
        html: str = ffi.string(rendered).decode("utf-8")
        release = _releaser()
        if release is not None:
            release(int(ffi.cast("uintptr_t", root)), int(ffi.cast("uintptr_t", rendered)))
        return html
    finally:
        lib.cmark_parser_free(parser)
