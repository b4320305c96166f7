"""Where each top-level section, and each record of a block list of records, starts in snapshot text.

Read from the C parser's events (`ruamel.yaml.clib`), whose marks give the line of every key and
list item, so a rewrite can find the text of the few records that changed without building
ruamel's pure-Python round-trip tree of the whole file. Lines are numbered as `source_lines`
numbers them. Anything unexpected (no C parser, a character libyaml reads as a line break and
ruamel does not, a flow-style or non-mapping top level, a key that
is not a plain or quoted scalar at column 0) gives None, and the caller rewrites the slow way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from bot.snapshot.store_safe import Seen, different_in_1_1

try:
    from _ruamel_yaml import CParser
except ImportError:  # no wheel for this platform: every rewrite takes the slow path
    CParser = None


class Section(NamedTuple):
    """A top-level key's lines, [start, end), and, for a block list of block mappings, the first
    line of each record (a record runs to the next one, the last to the section's end)."""

    key: str
    start: int
    end: int
    records: tuple[int, ...] | None

    def record_ends(self) -> tuple[int, ...]:
        assert self.records is not None
        return (*self.records[1:], self.end)


class _Unexpected(Exception):
    """The text is not laid out the way the fast rewrite assumes."""


def sections(text: str, lines: list[str], seen: Seen | None = None) -> list[Section] | None:
    """The top-level sections of `text` (split into `lines`) in order, or None when the layout is
    not the plain one. `seen`, what loading the text saw, saves reading it again."""
    if seen:
        return _from_seen(seen, lines)
    if CParser is None or different_in_1_1(text):
        return None  # libyaml would number lines where ruamel does not
    try:
        return _Walk(CParser(text), lines).document()
    except (_Unexpected, YAMLError):
        return None


def _from_seen(seen: Seen, lines: list[str]) -> list[Section]:
    starts = [line for _, line, _ in seen]
    ends = [*starts[1:], len(lines)]
    found = []
    for (key, start, items), end in zip(seen, ends, strict=True):
        records = [line for line, column, mapping in items or () if mapping and at_dash(lines, line, column)]
        whole = items is not None and len(records) == len(items) and records
        found.append(Section(key, start, end, tuple(records) if whole else None))
    return found


def at_dash(lines: list[str], line: int, column: int) -> bool:
    """A block mapping that starts on its item's `- ` line, so its lines start at the dash."""
    return line < len(lines) and lines[line][:column].strip(" ") == "-"


class _Walk:
    def __init__(self, parser: Any, lines: list[str]) -> None:
        self.parser, self.lines = parser, lines

    def expect(self, kind: type) -> Any:
        event = self.parser.get_event()
        if not isinstance(event, kind):
            raise _Unexpected
        return event

    def document(self) -> list[Section]:
        self.expect(StreamStartEvent)
        start = self.expect(DocumentStartEvent)
        if start.explicit or start.version is not None or start.tags:
            raise _Unexpected  # `---`, `%YAML` or `%TAG`: a piece parsed alone would lack them
        top = self.expect(MappingStartEvent)
        if top.flow_style:
            raise _Unexpected
        found: list[tuple[str, int, tuple[int, ...] | None]] = []
        while not isinstance(self.parser.peek_event(), CollectionEndEvent):
            key = self.expect(ScalarEvent)
            if key.start_mark.column != 0 or key.anchor is not None or key.tag is not None:
                raise _Unexpected
            found.append((key.value, key.start_mark.line, self.value()))
        self.parser.get_event()
        if self.expect(DocumentEndEvent).explicit or not found:
            raise _Unexpected
        self.expect(StreamEndEvent)  # one document only
        starts = [line for _, line, _ in found]
        ends = [*starts[1:], len(self.lines)]
        return [Section(key, start, end, records) for (key, start, records), end in zip(found, ends, strict=True)]

    def value(self) -> tuple[int, ...] | None:
        """Skip one value; the first line of each item when it is a block list of block mappings."""
        event = self.parser.get_event()
        if not isinstance(event, SequenceStartEvent) or event.flow_style:
            self.skip(event)
            return None
        records: list[int] | None = []
        while not isinstance(self.parser.peek_event(), CollectionEndEvent):
            item = self.parser.get_event()
            if records is not None and self.is_record(item):
                records.append(item.start_mark.line)
            else:
                records = None
            self.skip(item)
        self.parser.get_event()
        return tuple(records) if records else None

    def is_record(self, item: Any) -> bool:
        """A block mapping that starts on its item's `- ` line, so its lines start at the dash."""
        if not isinstance(item, MappingStartEvent) or item.flow_style:
            return False
        return at_dash(self.lines, item.start_mark.line, item.start_mark.column)

    def skip(self, event: Any) -> None:
        """Consume the rest of the node `event` starts."""
        depth = 1 if isinstance(event, CollectionStartEvent) else 0
        while depth:
            event = self.parser.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
