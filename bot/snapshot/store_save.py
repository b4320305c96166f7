"""Round-trip YAML storage, saving side: a changed model written into the file it was loaded from.

`save_text` takes one of three paths, in this order:

1. The model did not change: the file's own text, byte for byte.
2. Edit in place (`store_edit`), taken for any file whose top is a block mapping: only the keys,
   items and records that changed are written, each where it was, in the layout the file shows
   around it (`store_style`: its indents, dash offset, width, quoting, list style and line end),
   so every comment, blank line and untouched record keeps its bytes, in any layout a person or
   a tool writes. It reads again only the records that changed (libyaml's C parser, with
   marks), and each changed stretch of text must read back as the intended value before it is
   kept. Most runs change a few records, so this is the path a run takes.
3. A whole round trip: the file's round-trip tree patched with the changed leaves
   (`store_patch`) and written out in the file's layout. Taken when the edit declines (a document
   whose top is not a block mapping, a `%YAML` directive, an alias, records reordered, a piece
   that does not read back as intended): it is slower (ruamel's pure-Python tree of the whole
   file) and rewrites the file in one layout, but it is sure to load as the model.

Every proposal is read back once more before a pull request is opened (`bot.reconcile.proposal`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ruamel.yaml.comments import CommentedMap

from bot.snapshot.model import LIST_KEYS, Snapshot
from bot.snapshot.store import Loaded, dump_tree
from bot.snapshot.store_edit import (
    Declined,
    Unit,
    aligned,
    applied,
    context,
    deleted_entry,
    fields_read_back,
    joined,
    map_edits,
    records_read_back,
    value_edits,
)
from bot.snapshot.store_libyaml import Seen
from bot.snapshot.store_outline import (
    BlockList,
    BlockMap,
    Entry,
    Piece,
    Section,
    Unreadable,
    piece,
    seen_of,
    source_lines,
    top_level,
)
from bot.snapshot.store_patch import built, clone_tree, patch_map
from bot.snapshot.store_style import Style, entry_lines, item_lines, learn, line_end

_BOM = "\ufeff"


def save_text(loaded: Loaded[Snapshot], snapshot: Snapshot, *, splice: bool = True) -> str:
    """The file text for `snapshot`, written into the text (or tree) it was loaded from; without
    `splice`, always by the whole round trip (the paths are in the module's docstring)."""
    if loaded.text and snapshot == loaded.model:
        return loaded.text
    if splice and loaded.text:
        try:
            return edited_text(loaded.text, loaded.model, snapshot, loaded.seen)
        except (Declined, Unreadable):
            pass
    return _round_trip(loaded, snapshot)


def dump_new(snapshot: Snapshot) -> str:
    """Text of a snapshot that has no source file yet, in the store's own layout."""
    tree = CommentedMap()
    patch_map(tree, *snapshot.to_data(), Style())
    return dump_tree(tree)


def _round_trip(loaded: Loaded[Snapshot], snapshot: Snapshot) -> str:
    text = loaded.text
    style = Style(line_end=line_end(text))
    if text:
        with contextlib.suppress(Declined, Unreadable):  # the store's own layout, with the file's line end
            style = _File(text.removeprefix(_BOM), loaded.seen).file_style()
    tree = clone_tree(loaded.tree)
    patch_map(tree, *snapshot.to_data(), style)
    out = dump_tree(tree, style.yaml())
    if style.line_end != "\n":
        out = out.replace("\n", style.line_end)
    return (_BOM if text.startswith(_BOM) else "") + out


def edited_text(text: str, old: Snapshot, new: Snapshot, seen: Seen | None) -> str:
    """`text` (which loaded as `old`; `seen` is what loading saw of it) edited in place to hold
    `new`; `Declined` (or `Unreadable`) when that is not sure to be right."""
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom) :]
    end = line_end(body)
    unended = bool(body) and not body.endswith(("\n", "\r"))
    file = _File(body + end if unended else body, seen)
    out = _edited(file, old, new)
    return bom + (out.removesuffix(end) if unended else out)


@dataclass
class _File:
    """The text being saved: its lines, its top-level sections, and the pieces read of it so far."""

    text: str
    seen: Seen | None
    lines: list[str] = field(init=False)
    sections: list[Section] = field(init=False)
    end: str = field(init=False)
    _pieces: dict[tuple[int, int], Piece] = field(default_factory=dict)
    _dashes: dict[int, list[int] | None] = field(default_factory=dict)
    _styles: dict[int, Style] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen = self.seen if self.seen is not None else seen_of(self.text)
        if not seen:
            raise Declined  # its top is not a block mapping, or a directive decides how it reads
        self.lines = source_lines(self.text)
        self.sections = top_level(self.lines, seen)
        self.end = line_end(self.text)

    def piece(self, first: int, last: int) -> Piece:
        if (first, last) not in self._pieces:
            self._pieces[first, last] = piece(self.lines, first, last)
        return self._pieces[first, last]

    def dashes(self, index: int) -> list[int] | None:
        """The dash line of each record of section `index`, if it is a block list of records."""
        if index not in self._dashes:
            self._dashes[index] = self.sections[index].records(self.lines)
        return self._dashes[index]

    def record(self, index: int, item: int) -> tuple[Piece, BlockMap, int]:
        """Record `item` of section `index` read alone: its piece, its mapping, its last line."""
        section, dashes = self.sections[index], self.dashes(index)
        assert dashes is not None
        last = dashes[item + 1] if item + 1 < len(dashes) else section.end
        found = self.piece(dashes[item], last)
        root = found.root
        if not isinstance(root, BlockList) or len(root.items) != 1 or not isinstance(root.items[0].value, BlockMap):
            raise Declined
        return found, root.items[0].value, root.end[0]

    def entry(self, index: int) -> tuple[Piece, Entry]:
        """Section `index` read whole: its piece and its one entry."""
        section = self.sections[index]
        found = self.piece(section.line, section.end)
        root = found.root
        if not isinstance(root, BlockMap) or [e.key for e in root.entries] != [section.key]:
            raise Declined
        return found, root.entries[0]

    def last_line(self, index: int) -> int:
        """The last line of section `index`'s content."""
        dashes = self.dashes(index)
        return self.record(index, len(dashes) - 1)[2] if dashes else self.entry(index)[1].value.end[0]

    def file_style(self) -> Style:
        """The style the file shows in its first record, for what belongs to no section yet."""
        if -1 not in self._styles:
            base = Style(line_end=self.end)
            first = next((i for i in range(len(self.sections)) if self.dashes(i)), None)
            self._styles[-1] = base if first is None else self.section_style(first, base)
        return self._styles[-1]

    def section_style(self, index: int, base: Style | None = None) -> Style:
        """The style section `index` shows in its first record (or whole, if it has none)."""
        if index not in self._styles:
            base = base or self.file_style()
            if self.dashes(index):
                self._styles[index] = learn(self.record(index, 0)[0], self.lines, self.sections[index].col, base)
            else:
                self._styles[index] = learn(self.entry(index)[0], self.lines, 0, base)
        return self._styles[index]


def _edited(file: _File, old: Snapshot, new: Snapshot) -> str:
    keys = [section.key for section in file.sections]
    old_data = old.model_dump(by_alias=True)
    data, sparse = new.to_data()
    if len(set(keys)) != len(keys) or any(key not in data for key in keys):
        raise Declined
    units: list[Unit] = []
    gone = set()
    for index, key in enumerate(keys):
        if old_data.get(key) == data[key]:
            continue
        if key not in sparse:
            gone.add(key)
        units += _section_units(file, index, old_data.get(key), data[key], sparse.get(key), new)
    kept = [key for key in keys if key not in gone]
    anchor: str | None = None
    pending: list[str] = []
    for name in [*(k for k in data if k in kept or k in sparse), None]:
        if (name is None or name in kept) and pending:
            units.append(_new_sections(file, keys, anchor, pending, data, sparse, new))
            pending = []
        if name in kept:
            anchor = name
        elif name is not None:
            pending.append(name)
    return joined(file.lines, units)


def _section_units(file: _File, index: int, old: Any, new: Any, sparse: Any, snapshot: Snapshot) -> list[Unit]:
    """The units that rewrite a changed section: record by record for a block list of records,
    else the section read and edited whole (`sparse` is None for a section that goes)."""
    section = file.sections[index]
    dashes = file.dashes(index)
    records = sparse is not None and bool(dashes) and section.key in LIST_KEYS
    if records and isinstance(old, list | tuple) and isinstance(new, list | tuple) and new:
        assert dashes is not None
        if len(old) == len(dashes):
            return _record_units(file, index, old, new, sparse, snapshot)
    found, entry = file.entry(index)
    ctx = context(file.lines, found, 0, file.section_style(index))
    if sparse is None:
        edits = deleted_entry(ctx, BlockMap(section.col, (entry,)), 0)
    else:
        edits = value_edits(ctx, entry, old, new, sparse)
    last = entry.value.end[0] + 1
    text = applied(file.lines, section.line, last, edits, file.end)
    keys = [] if sparse is None else [section.key]
    return [Unit(section.line, last, text, partial(fields_read_back, snapshot=snapshot, keys=keys))]


def _record_units(file: _File, index: int, old: Any, new: Any, sparse: Any, snapshot: Snapshot) -> list[Unit]:
    """A block list of records rewritten record by record: only changed, removed and new ones."""
    section, dashes = file.sections[index], file.dashes(index)
    assert dashes is not None
    objects = getattr(snapshot, section.key)
    pairs, removed, inserted = aligned(old, new, section.key)
    units = []
    for i, j in pairs:
        if old[i] != new[j]:
            found, record, last = file.record(index, i)
            ctx = context(file.lines, found, section.col, file.section_style(index))
            text = applied(file.lines, dashes[i], last + 1, map_edits(ctx, record, old[i], new[j], sparse[j]), file.end)
            units.append(Unit(dashes[i], last + 1, text, partial(records_read_back, records=[objects[j]])))
    for i in removed:
        units.append(Unit(dashes[i], file.record(index, i)[2] + 1, "", None))
    style = file.section_style(index) if inserted else Style()
    assert section.items is not None
    content = section.items[0][1]
    for after, js in inserted:
        at = file.record(index, after)[2] + 1 if after >= 0 else dashes[0]
        values = [built(new[j], sparse[j], style) for j in js]
        lines = [line for value in values for line in item_lines(value, section.dash_col, content, section.col, style)]
        text = "".join(lines).replace("\n", file.end)
        units.append(Unit(at, at, text, partial(records_read_back, records=[objects[j] for j in js])))
    return units


def _new_sections(
    file: _File, keys: list[str], anchor: str | None, added: list[str], data: Any, sparse: Any, snapshot: Snapshot
) -> Unit:
    """Top-level keys the file lacks, after the section before them (before the first if none)."""
    style, col = file.file_style(), file.sections[0].col if file.sections else 0
    chunks = [" " * col + "".join(entry_lines(key, built(data[key], sparse[key], style), col, style)) for key in added]
    at = file.last_line(keys.index(anchor)) + 1 if anchor is not None else file.sections[0].line
    text = "".join(chunks).replace("\n", file.end)
    return Unit(at, at, text, partial(fields_read_back, snapshot=snapshot, keys=added))
