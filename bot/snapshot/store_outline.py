"""Where each part of snapshot text is: the lines, and the place of every key, list item and value.

A rewrite edits the text in place, so it needs to know where things are, not only what they hold.
The parser's events carry that: each key's start and end, each value's start and end, each
scalar's style and each block list's dash column. `piece` reads a run of lines that way (libyaml's
C parser when it reads the text as ruamel does, else ruamel's own parser) into a small tree of
`Leaf`, `BlockMap` and `BlockList` nodes, placed by (0-based line, column) in the whole text.
`top_level` gives the file's top-level keys from what loading saw (`store.Seen`), so only
the few records a change touches are read again, each on its own (`Section.records` gives the
line each starts on).

Ends are where the content ends: a block scalar's trailing blank lines and anything after a value
(a comment, the blank lines and comments before the next key) are not part of it, so a rewrite
leaves them where they are. `comments` finds the comments inside a stretch of text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from bot.snapshot import store
from bot.snapshot.store import Seen

Pos = tuple[int, int]  # (0-based line, column), columns in characters as both parsers count them


@dataclass(frozen=True, slots=True)
class Leaf:
    """A scalar (style "" plain, "'", '"', "|", ">"), or a flow collection ("[" or "{"): replaced whole."""

    start: Pos
    end: Pos
    style: str


@dataclass(frozen=True, slots=True)
class Entry:
    """One key of a block mapping: where its key starts and ends, and its value."""

    key: str
    start: Pos
    key_end: Pos
    value: Node


@dataclass(frozen=True, slots=True)
class BlockMap:
    col: int
    entries: tuple[Entry, ...]

    @property
    def start(self) -> Pos:
        return self.entries[0].start

    @property
    def end(self) -> Pos:
        return self.entries[-1].value.end


@dataclass(frozen=True, slots=True)
class Item:
    """One item of a block list: the line of its dash, and its value."""

    dash: int
    value: Node


@dataclass(frozen=True, slots=True)
class BlockList:
    dash_col: int
    items: tuple[Item, ...]

    @property
    def start(self) -> Pos:
        return (self.items[0].dash, self.dash_col)

    @property
    def end(self) -> Pos:
        return self.items[-1].value.end


Node = Leaf | BlockMap | BlockList


@dataclass(frozen=True)
class Piece:
    """A run of lines read alone: its top node (None for only comments), and where its quoted and
    block scalars are (inside them a `#` starts no comment)."""

    root: Node | None
    scalars: list[tuple[Pos, Pos]]


class Unreadable(Exception):
    """A piece is not laid out as a rewrite in place expects (an alias, a complex key, a list
    item sharing its dash's line with another dash); the caller rewrites the whole file."""


# ruamel counts a line at `\n` and at a `\r` not followed by one, and nowhere else: `str.splitlines`
# also splits at U+2028, U+0085, `\x0b` and others, which a value may hold.
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def source_lines(text: str) -> list[str]:
    """The lines of `text`, ends kept, exactly as ruamel numbers them in its marks."""
    if "\r" not in text:  # the usual case, split in C (the lookbehind split took 0.2 s at 2.5 MB)
        parts = text.split("\n")
        return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and not lines[-1] else lines


def content_len(line: str) -> int:
    """The length of a line without its line break."""
    return len(line.rstrip("\r\n"))


def events(text: str) -> Callable[[], Any]:
    """The parser events of `text`, one per call: libyaml's C parser where it reads the text as
    ruamel does (`store.load_data`'s own test), else ruamel's pure-Python parser."""
    fast = store.c_events(text)
    if fast is not None:
        return fast
    get: Callable[[], Any] = iter(YAML().parse(text)).__next__
    return get


def piece(lines: list[str], first: int, last: int) -> Piece:
    """Lines [first, last) read alone, placed in the whole text; `Unreadable` if they do not parse."""
    walk = _Walk(lines, first)
    try:
        walk.get = get = events("".join(lines[first:last]))
        get()  # stream start
        if type(get()) is StreamEndEvent:  # else the document's start
            return Piece(None, [])
        root = walk.node(get())
        get()  # the document's end
        if type(get()) is not StreamEndEvent:
            raise Unreadable  # a second document: never part of a snapshot
    except YAMLError as exc:
        raise Unreadable from exc
    walk.scalars.sort()
    return Piece(root, walk.scalars)


@dataclass
class _Walk:
    """Builds the nodes of one piece from its events."""

    lines: list[str]
    first: int
    scalars: list[tuple[Pos, Pos]] = field(default_factory=list)
    get: Callable[[], Any] = field(init=False)

    def pos(self, mark: Any) -> Pos:
        return (mark.line + self.first, mark.column)

    def node(self, event: Any) -> Node:
        kind = type(event)
        if kind is ScalarEvent:
            return self.scalar(event)
        if kind is SequenceStartEvent or kind is MappingStartEvent:
            if event.flow_style:
                return self.flow(event)
            return self.block_list(event) if kind is SequenceStartEvent else self.block_map(event)
        raise Unreadable  # an alias

    def scalar(self, event: Any) -> Leaf:
        start, end, style = self.pos(event.start_mark), self.pos(event.end_mark), event.style or ""
        if style in ("|", ">"):
            end = self.block_end(start, end)
            self.scalars.append(((start[0] + 1, 0), end))
        elif style:
            self.scalars.append((start, end))
        return Leaf(start, end, style)

    def block_end(self, start: Pos, end: Pos) -> Pos:
        """The end of a block scalar's last line: the parser's end is past its trailing blank
        lines, which are its content only when it keeps them (`|+`)."""
        header = self.lines[start[0]][start[1] :].split(maxsplit=1)[0]
        last = end[0] if end[1] else end[0] - 1
        while "+" not in header and last > start[0] and not self.lines[last].strip():
            last -= 1
        if last <= start[0]:
            return (start[0], start[1] + len(header))
        return (last, content_len(self.lines[last]))

    def flow(self, event: Any) -> Leaf:
        start, depth, get = self.pos(event.start_mark), 1, self.get
        while depth:
            event = get()
            kind = type(event)
            if kind is SequenceStartEvent or kind is MappingStartEvent:
                depth += 1
            elif kind is SequenceEndEvent or kind is MappingEndEvent:
                depth -= 1
            elif kind is ScalarEvent and event.style:
                self.scalars.append((self.pos(event.start_mark), self.pos(event.end_mark)))
        return Leaf(start, self.pos(event.end_mark), "[" if type(event) is SequenceEndEvent else "{")

    def block_list(self, event: Any) -> BlockList:
        line, col = self.pos(event.start_mark)
        items: list[Item] = []
        while type(event := self.get()) is not SequenceEndEvent:
            value = self.node(event)
            dash = line if not items else dash_line(self.lines, col, value.start, items[-1].value.end[0])
            items.append(Item(dash, value))
        if self.lines[line][:col].strip(" "):
            raise Unreadable  # a list inside a list item, on its dash's line
        return BlockList(col, tuple(items))

    def block_map(self, event: Any) -> BlockMap:
        col = event.start_mark.column
        entries: list[Entry] = []
        while type(event := self.get()) is not MappingEndEvent:
            if type(event) is not ScalarEvent:
                raise Unreadable  # a complex key
            key, start, end = str(event.value), self.pos(event.start_mark), self.pos(event.end_mark)
            value = self.node(self.get())
            if isinstance(value, Leaf) and value.start == value.end:
                value = self.empty(end)
            entries.append(Entry(key, start, end, value))
        return BlockMap(col, tuple(entries))

    def empty(self, key_end: Pos) -> Leaf:
        """An empty value (a null), placed right after its key's colon: libyaml places it there,
        ruamel's parser at the next token, which may be lines further on."""
        line = self.lines[key_end[0]]
        colon = line.find(":", key_end[1])
        at = (key_end[0], colon + 1 if colon >= 0 else key_end[1])
        return Leaf(at, at, "")


def dash_line(lines: list[str], col: int, start: Pos, floor: int) -> int:
    """The line of the dash at column `col` that starts the item whose value starts at `start`:
    its own line, or the nearest above it (`-` alone, or before a comment), but below `floor`."""
    for line in range(start[0], floor, -1):
        text = lines[line]
        if len(text) > col and text[col] == "-" and not text[:col].strip(" ") and (line < start[0] or col < start[1]):
            return line
    raise Unreadable


def comments(lines: list[str], start: Pos, end: Pos, scalars: list[tuple[Pos, Pos]]) -> list[str]:
    """The comments that start in [start, end) of the text, outside its quoted and block scalars."""
    found = []
    for line in range(start[0], min(end[0], len(lines) - 1) + 1):
        text = lines[line].rstrip("\r\n")
        low = start[1] if line == start[0] else 0
        high = end[1] if line == end[0] else len(text)
        at = text.find("#", low, high)
        while at >= 0:
            inside = bisect.bisect_right(scalars, ((line, at), (1 << 62, 0))) - 1
            if (at == 0 or text[at - 1] in " \t") and not (inside >= 0 and scalars[inside][1] > (line, at)):
                found.append(text[at:])
                break
            at = text.find("#", at + 1, high)
    return found


@dataclass(frozen=True)
class Section:
    """A top-level key: its line and column, the line after its lines (the next key's, or the end),
    and, for a block list of block mappings, its dash column and each item's first line."""

    key: str
    line: int
    col: int
    end: int
    dash_col: int
    items: tuple[tuple[int, int], ...] | None

    def records(self, lines: list[str]) -> list[int] | None:
        """The line of each record's dash, or None when the section is not a block list of them."""
        if self.items is None:
            return None
        dashes: list[int] = []
        for line, col in self.items:
            dashes.append(dash_line(lines, self.dash_col, (line, col), dashes[-1] if dashes else self.line))
        return dashes


def top_level(lines: list[str], seen: Seen) -> list[Section]:
    """The file's top-level keys in order, from what loading saw of them."""
    starts = [line for _, line, _, _, _ in seen]
    ends = [*starts[1:], len(lines)]
    sections = []
    for (key, line, col, dash, items), end in zip(seen, ends, strict=True):
        records = items is not None and bool(items) and all(mapping for _, _, mapping in items)
        spots = tuple((at, column) for at, column, _ in items or ()) if records else None
        sections.append(Section(key, line, col, end, dash, spots))
    return sections


def seen_of(text: str) -> Seen | None:
    """What loading would have seen of `text` (`store.Seen`), read with ruamel's parser, for
    text the C parser left to the round-trip loader; None unless its top is a block mapping."""
    get = iter(YAML().parse(text)).__next__
    try:
        get()  # stream start
        if getattr(get(), "version", None) is not None:
            return None  # a %YAML directive: the version decides how every value reads
        top = get()
        if type(top) is not MappingStartEvent or top.flow_style:
            return None
        seen: Seen = []
        while type(key := get()) is ScalarEvent:
            seen.append((str(key.value), key.start_mark.line, key.start_mark.column, *_top_value(get)))
        return seen if type(key) is MappingEndEvent else None
    except (YAMLError, StopIteration):
        return None


def _top_value(get: Callable[[], Any]) -> tuple[int, list[tuple[int, int, bool]] | None]:
    """A top-level value read past: its dash column and items when it is a block list."""
    event = get()
    block_list = type(event) is SequenceStartEvent and not event.flow_style
    items: list[tuple[int, int, bool]] | None = [] if block_list else None
    dash = event.start_mark.column if block_list else -1
    depth = 0 if type(event) is ScalarEvent else 1
    while depth:
        event = get()
        kind = type(event)
        if items is not None and depth == 1 and kind is not SequenceEndEvent:
            mark = event.start_mark
            items.append((mark.line, mark.column, kind is MappingStartEvent and not event.flow_style))
        if kind is SequenceStartEvent or kind is MappingStartEvent:
            depth += 1
        elif kind is SequenceEndEvent or kind is MappingEndEvent:
            depth -= 1
    return dash, items
