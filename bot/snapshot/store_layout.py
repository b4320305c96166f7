"""Where each top-level section, and each record of a block list of records, starts in snapshot text.

Taken from what loading saw (`store_libyaml.Seen`): the C parser's marks give the line of every
top-level key and list item, so a rewrite can find the text of the few records that changed
without building ruamel's pure-Python round-trip tree of the whole file. Lines are numbered as
`source_lines` numbers them. A text loading did not read the fast way, or whose layout is not the
plain one (one block mapping with its keys at column 0), has no layout: the caller rewrites the
slow way.
"""

from __future__ import annotations

from typing import NamedTuple

from bot.snapshot.store_libyaml import Seen


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


def sections(lines: list[str], seen: Seen | None) -> list[Section] | None:
    """The top-level sections of the text split into `lines`, in order, from what loading saw of it;
    None when loading kept no layout (`store_libyaml` keeps one only for the plain layout)."""
    return _from_seen(seen, lines) if seen else None


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
