"""Snapshot files in the layouts people and tools write, with comments and blank lines in them.

`render` writes a snapshot the way a writer does, section by section (so sections can differ):
ruamel's round-trip dump at any mapping, sequence and offset indents (its default is 2/2/0: the
dash at its key's column), PyYAML's `safe_dump` (block lists at their key's column), any width
(long values folded), flow or block lists of ids, every string quoted by habit, quoted keys,
record keys in another order, CRLF. Then it puts comments and blank lines between sections,
between records and between the keys of a record, and comments after values, each comment with
a number of its own, and reports where each went (`Rendered`), so a test can check that a rewrite
keeps them and leaves the bytes of every untouched record as they were.

Where things are is read with ruamel's own parser (events and their marks), not with the store.
"""

from __future__ import annotations

import datetime as dt
import io
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml as pyyaml  # type: ignore[import-untyped]
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.events import (
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString, SingleQuotedScalarString

from bot.snapshot.model import LIST_KEYS, Snapshot

Indents = tuple[int, int, int]  # ruamel's mapping, sequence and offset indents


@dataclass(frozen=True)
class Layout:
    """How a file is written. `writer` is "ruamel" (at `indents`) or "pyyaml" (its `indent` is
    `indents[0]`; lists always at their key's column); `sections` gives some sections indents of
    their own; `quotes` quotes every string ("'" or '"'), or leaves that to the writer ("").
    `seed` places the comments and blank lines (`comments` of them per hundred places)."""

    writer: str = "ruamel"
    indents: Indents = (2, 4, 2)
    width: int = 4096
    crlf: bool = False
    flow_lists: bool = True
    sections: tuple[tuple[str, Indents], ...] = ()
    quotes: str = ""
    quoted_keys: bool = False
    shuffled_keys: bool = False
    comments: int = 30
    seed: int = 0


@dataclass
class Rendered:
    """A rendered file: its text, each comment's text with the record it is inside (None when it
    is between records or sections), and each record's own lines, by (section, identity)."""

    text: str
    comments: list[tuple[str, tuple[str, Any] | None]] = field(default_factory=list)
    records: dict[tuple[str, Any], str] = field(default_factory=dict)


def render(snapshot: Snapshot, layout: Layout) -> Rendered:
    data, sparse = snapshot.to_data()
    rng = random.Random(layout.seed)
    lines: list[str] = []
    for key in sparse:
        indents = dict(layout.sections).get(key, layout.indents)
        lines += _section(key, data[key], sparse[key], layout, indents, rng)
    return _decorated(lines, layout, rng)


def _section(key: str, value: Any, sparse: Any, layout: Layout, indents: Indents, rng: random.Random) -> list[str]:
    out = io.StringIO()
    if layout.writer == "pyyaml":
        pyyaml.safe_dump(
            {key: _plain(value, sparse)},
            out,
            sort_keys=False,
            allow_unicode=True,
            indent=indents[0],
            width=layout.width,
            default_flow_style=False,
        )
    else:
        writer = YAML()
        writer.indent(mapping=indents[0], sequence=indents[1], offset=indents[2])
        writer.width = layout.width
        holder = CommentedMap()
        holder[key] = _tree(value, sparse, layout, rng)
        writer.dump(holder, out)
    return out.getvalue().splitlines(keepends=True)


def _plain(value: Any, sparse: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v, sparse[k]) for k, v in value.items() if k in sparse}
    if isinstance(value, list | tuple):
        kept = sparse if isinstance(sparse, list | tuple) else value
        return [_plain(v, s) for v, s in zip(value, kept, strict=True)]
    return value


def _tree(value: Any, sparse: Any, layout: Layout, rng: random.Random) -> Any:
    if isinstance(value, Mapping):
        keys = [k for k in value if k in sparse]
        if layout.shuffled_keys:
            rng.shuffle(keys)
        node = CommentedMap()
        for k in keys:
            node[k] = _tree(value[k], sparse[k], layout, rng)
        return node
    if isinstance(value, list | tuple):
        kept = sparse if isinstance(sparse, list | tuple) else value
        seq = CommentedSeq(_tree(v, s, layout, rng) for v, s in zip(value, kept, strict=True))
        if not value or (layout.flow_lists and not isinstance(value[0], Mapping)):
            seq.fa.set_flow_style()
        return seq
    if isinstance(value, str) and value.isprintable() and value:
        if layout.quotes == "'":
            return SingleQuotedScalarString(value)
        if layout.quotes == '"':
            return DoubleQuotedScalarString(value)
        if rng.random() < 0.05 and value == value.strip() and "\n" not in value:
            return LiteralScalarString(value)
    return value


@dataclass
class _Place:
    """What the parser says of one line of the rendered text."""

    starts: int | None = None  # the column of the key or dash that starts the line
    ends: bool = False  # a value (or `key:` before a block value) ends the line: a comment may follow
    record: tuple[str, Any] | None = None  # the top-level record the line is in
    first: bool = False  # the line starts a top-level record


def rendered_events(text: str) -> Iterator[Any]:
    """The parse events of `text`, from libyaml (ruamel.yaml.clib): their marks, flow styles and
    values are the round-trip parser's (checked on the layouts the tests render; a plain scalar's
    style is "" where that parser says None; `tests/boundary/test_store_layouts.py` holds them
    equal), which also gathers the comments, and is about sixteen times slower."""
    return iter(YAML(typ="safe", pure=False).parse(text))


def _places(lines: list[str]) -> list[_Place]:
    places = [_Place() for _ in lines]
    walk = _Walk(lines, places, rendered_events("".join(lines)))
    for event in walk.events:
        if isinstance(event, MappingStartEvent) and not event.flow_style:
            walk.top()
    for line in walk.inside:
        places[line].starts, places[line].ends = None, False
    return places


@dataclass
class _Walk:
    lines: list[str]
    places: list[_Place]
    events: Iterator[Any]
    inside: set[int] = field(default_factory=set)  # lines in a multi-line scalar or flow list, after its first
    last: int = 0  # the last line of the value walked last

    def top(self) -> None:
        """The top-level mapping: each key, and the records of each block list."""
        for key in self.events:
            if isinstance(key, MappingEndEvent):
                return
            self.key(key)
            value = next(self.events)
            if isinstance(value, SequenceStartEvent) and not value.flow_style:
                self.records(str(key.value), value)
            else:
                self.node(value, key)

    def records(self, section: str, start: Any) -> None:
        ident = LIST_KEYS.get(section, "")
        for index, item in enumerate(iter(lambda: next(self.events), None)):
            if isinstance(item, SequenceEndEvent):
                return
            first = item.start_mark.line
            self.places[first].starts, self.places[first].first = start.start_mark.column, True
            self.last = first
            found = self.node(item, None, ident)
            name = (section, found if ident else index)
            for line in range(first, self.last + 1):
                self.places[line].record = name

    def key(self, key: Any) -> None:
        line, col = key.start_mark.line, key.start_mark.column
        if not self.lines[line][:col].strip():
            self.places[line].starts = col

    def node(self, event: Any, key: Any, ident: str = "") -> Any:
        """One value's events; returns the value of key `ident` when it is a mapping holding one."""
        if isinstance(event, ScalarEvent):
            self.scalar(event)
        elif event.flow_style:
            self.flow(event)
        elif isinstance(event, MappingStartEvent):
            return self.mapping(ident)
        else:
            if key is not None and self.lines[key.end_mark.line][key.end_mark.column :].strip() == ":":
                self.places[key.end_mark.line].ends = True  # `key:` before a block list
            for item in iter(lambda: next(self.events), None):
                if isinstance(item, SequenceEndEvent):
                    break
                line = item.start_mark.line
                if not self.lines[line][: item.start_mark.column].strip(" -"):
                    self.places[line].starts = event.start_mark.column
                self.node(item, None)
        return None

    def mapping(self, ident: str) -> Any:
        found = None
        for key in iter(lambda: next(self.events), None):
            if isinstance(key, MappingEndEvent):
                return found
            self.key(key)
            value = next(self.events)
            if key.value == ident and isinstance(value, ScalarEvent):
                found = int(value.value) if ident in ("order", "comment_id") else value.value
            self.node(value, key)
        return found

    def scalar(self, event: Any) -> None:
        end = event.end_mark
        block = event.style in ("|", ">")
        stop = end.line - 1 if block and end.column == 0 else end.line
        self.inside.update(range(event.start_mark.line + 1, stop + 1))
        if not block and self.lines[end.line][end.column :].strip() == "":
            self.places[end.line].ends = True
        self.last = max(self.last, stop)

    def flow(self, event: Any) -> None:
        depth, start = 1, event.start_mark.line
        while depth:
            event = next(self.events)
            if isinstance(event, MappingStartEvent | SequenceStartEvent):
                depth += 1
            elif isinstance(event, MappingEndEvent | SequenceEndEvent):
                depth -= 1
        end = event.end_mark
        self.inside.update(range(start + 1, end.line + 1))
        self.places[end.line].ends = self.lines[end.line][end.column :].strip() == ""
        self.last = max(self.last, end.line)


def _decorated(lines: list[str], layout: Layout, rng: random.Random) -> Rendered:
    """`lines` with comments and blank lines put in, keys quoted, line ends set."""
    places = _places(lines)
    rendered = Rendered("")
    out: list[str] = []
    blocks: dict[tuple[str, Any], list[str]] = {}
    for line, place in zip(lines, places, strict=True):
        chance = layout.comments / 100
        if place.starts is not None and rng.random() < chance:
            where = place.record if place.record and not place.first else None
            text = f"# note {len(rendered.comments)}: {rng.choice(['why', 'see #12', 'a: b', ''])}".rstrip(" :")
            column = rng.choice([0, place.starts])  # deeper, after a block scalar, would be its text
            out.append(" " * column + text + "\n")
            rendered.comments.append((text, where))
            if where is not None:
                blocks.setdefault(where, []).append(out[-1])
        if place.starts is not None and rng.random() < chance / 2:
            out.append("\n")
            if place.record is not None and not place.first:
                blocks.setdefault(place.record, []).append(out[-1])
        if layout.quoted_keys and place.starts is not None:
            line = _quoted_key(line, place.starts, rng)
        if place.ends and rng.random() < chance:
            text = f"# note {len(rendered.comments)}"
            line = line.rstrip("\n") + "  " + text + "\n"
            rendered.comments.append((text, place.record))
        out.append(line)
        if place.record is not None:
            blocks.setdefault(place.record, []).append(line)
    end = "\r\n" if layout.crlf else "\n"
    rendered.text = "".join(out).replace("\n", end)
    rendered.records = {name: "".join(block).replace("\n", end) for name, block in blocks.items()}
    return rendered


def _quoted_key(line: str, col: int, rng: random.Random) -> str:
    """The line with the plain key at `col` (after a dash, if there is one) quoted, sometimes."""
    at = col + 2 if line[col : col + 2] == "- " else col
    name, colon, _ = line[at:].partition(":")
    if not colon or not name.isidentifier() or rng.random() < 0.5:
        return line
    quote = rng.choice(["'", '"'])
    return line[:at] + quote + name + quote + line[at + len(name) :]


def as_of(snapshot: Snapshot, days: int) -> dt.date:
    return snapshot.as_of + dt.timedelta(days=days)


def list_layouts(text: str) -> dict[str, set[tuple[str, int]]]:
    """How each top-level section lays its lists out: ("items", content column less dash column)
    of its records, ("nested", dash column less key column) of each block list inside them, and
    ("ids", 1 or 0) for flow or block lists of ids."""
    found: dict[str, set[tuple[str, int]]] = {}
    events = rendered_events(text)
    for event in events:
        if not isinstance(event, MappingStartEvent):
            continue
        for key in iter(lambda: next(events), None):
            if isinstance(key, MappingEndEvent):
                break
            value, kinds = next(events), found.setdefault(str(key.value), set())
            if isinstance(value, SequenceStartEvent) and not value.flow_style:
                for item in iter(lambda: next(events), None):
                    if isinstance(item, SequenceEndEvent):
                        break
                    if isinstance(item, MappingStartEvent) and not item.flow_style:
                        kinds.add(("items", item.start_mark.column - value.start_mark.column))
                    _lists(events, item, kinds, None)
            else:
                _lists(events, value, kinds, key.start_mark.column)
        break
    return found


def _lists(events: Iterator[Any], event: Any, kinds: set[tuple[str, int]], key_col: int | None) -> None:
    """A value's events read past, noting the offset of each block list from its key, and
    whether its lists of ids are flow (1) or block (0) lists."""
    if isinstance(event, SequenceStartEvent):
        if not event.flow_style and key_col is not None:
            kinds.add(("nested", event.start_mark.column - key_col))
        for index, item in enumerate(iter(lambda: next(events), None)):
            if isinstance(item, SequenceEndEvent):
                return
            if index == 0 and isinstance(item, ScalarEvent):
                kinds.add(("ids", int(bool(event.flow_style))))
            _lists(events, item, kinds, None)
    elif isinstance(event, MappingStartEvent):
        for key in iter(lambda: next(events), None):
            if isinstance(key, MappingEndEvent):
                return
            _lists(events, next(events), kinds, None if event.flow_style else key.start_mark.column)
