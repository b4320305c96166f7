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
   (`patch_map`) and written out in the layout of the file's first record. Taken when the
   edit declines (a document whose top is not a block mapping, a `%YAML` directive, which
   decides how every value reads, edits that would overlap, a stretch that does not read back
   as intended), or when asked (`splice=False`): it is slower (ruamel's pure-Python tree of the
   whole file: loading and saving one changed packet of the seed took 150 ms of CPU against 5 ms
   by the edit) and writes the whole file in one layout, but it is sure to load as the model.

Every proposal is read back once more before a pull request is opened (`bot.reconcile.proposal`).

**A new file** (`commented_text`): a snapshot that has no file yet, in the store's own layout (as
`dump_new` writes it), with comments a person reads at the top of the file and before top-level
keys. `perfbot import` says there where each part came from."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel
from ruamel.yaml.comments import CommentedMap

from bot.recent import Recent
from bot.snapshot.model import LIST_KEYS, Snapshot
from bot.snapshot.store import Loaded, Seen, dump_tree
from bot.snapshot.store_edit import (
    Declined,
    EditContext,
    Unit,
    applied,
    built,
    clone_tree,
    deleted_entry,
    fields_read_back,
    joined,
    map_edits,
    matched,
    patch_map,
    records_read_back,
    value_edits,
)
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
from bot.snapshot.store_style import Style, Writer, learn, line_end

_BOM = "\ufeff"


def save_text(loaded: Loaded[Snapshot], snapshot: Snapshot, *, splice: bool = True) -> str:
    """The file text for `snapshot`, written into the text (or tree) it was loaded from; without
    `splice`, always by the whole round trip (the paths are in the module's docstring)."""
    if loaded.text and snapshot == loaded.model:
        return loaded.text
    if splice and loaded.text:
        made = _edits_made.get((loaded.text, snapshot))
        if made is not None:
            return made
        try:
            text = edited_text(loaded.text, loaded.model, snapshot, loaded.seen)
        except (Declined, Unreadable):
            pass
        else:
            _edits_made.keep((loaded.text, snapshot), text)
            return text
    return _round_trip(loaded, snapshot)


# The last texts edited in place, by the text and the snapshot written into it. Editing is a pure
# function of the two (the model the text loads as, and what loading saw of it, come from the
# text), and a test process writes the same snapshot into the same text over and over (a run, its
# one-state walk, the next run). Only edits made are kept: a text the edit declines goes the
# round trip.
_edits_made: Recent[tuple[str, Snapshot], str] = Recent(8)


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
    out = dump_tree(tree, Writer().yaml(style))
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
    writer: Writer = field(default_factory=Writer)
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

    def last(self, index: int) -> tuple[Piece, int]:
        """The piece that ends section `index` (its last record, or itself) and its last line."""
        dashes = self.dashes(index)
        if dashes:
            found, _, line = self.record(index, len(dashes) - 1)
            return found, line
        found, entry = self.entry(index)
        return found, entry.value.end[0]

    def style(self, index: int, found: Piece, whole: bool = False) -> Style:
        """The style `found` (a record of section `index`, or the section `whole`) shows; what it
        does not show, as the section's first record shows it (`section_style`)."""
        parent_col = 0 if whole else self.sections[index].col
        return learn(found, self.lines, parent_col, self.section_style(index))

    def section_style(self, index: int) -> Style:
        """The style section `index` shows in its first record (or whole, with none), over the file's."""
        if index not in self._styles:
            if self.dashes(index):
                found, parent_col = self.record(index, 0)[0], self.sections[index].col
            else:
                found, parent_col = self.entry(index)[0], 0
            self._styles[index] = learn(found, self.lines, parent_col, self.file_style())
        return self._styles[index]

    def file_style(self) -> Style:
        """The style the file's first record shows, else the store's own with the file's line end:
        for what no section of its own shows, and for the whole round trip."""
        if -1 not in self._styles:
            base = Style(line_end=self.end)
            first = next((i for i in range(len(self.sections)) if self.dashes(i)), None)
            if first is not None:
                base = learn(self.record(first, 0)[0], self.lines, self.sections[first].col, base)
            self._styles[-1] = base
        return self._styles[-1]


_NAMES = {field.alias or name: name for name, field in Snapshot.model_fields.items()}


def _kept(snapshot: Snapshot, name: str) -> bool:
    """Whether the model writes key `name` (a field at its default is left out of the file)."""
    info = Snapshot.model_fields[name]
    return info.is_required() or getattr(snapshot, name) != info.get_default(call_default_factory=True)


def _dumps(snapshot: Snapshot, names: set[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The YAML shape of some top-level fields: every value, and those not at their default."""
    return (
        snapshot.model_dump(by_alias=True, include=names),
        snapshot.model_dump(by_alias=True, include=names, exclude_defaults=True),
    )


def _edited(file: _File, old: Snapshot, new: Snapshot) -> str:
    keys = [section.key for section in file.sections]
    if len(set(keys)) != len(keys) or any(key not in _NAMES for key in keys):
        raise Declined
    units: list[Unit] = []
    gone = set()
    for index, key in enumerate(keys):
        if getattr(old, _NAMES[key]) == getattr(new, _NAMES[key]):
            continue
        if not _kept(new, _NAMES[key]):
            gone.add(key)
        units += _section_units(file, index, old, new)
    kept = [key for key in keys if key not in gone]
    anchor: str | None = None
    pending: list[str] = []
    for name in [*(k for k, n in _NAMES.items() if k in kept or (k not in keys and _kept(new, n))), None]:
        if (name is None or name in kept) and pending:
            units.append(_new_sections(file, keys, anchor, pending, new))
            pending = []
        if name in kept:
            anchor = name
        elif name is not None:
            pending.append(name)
    return joined(file.lines, units)


def _section_units(file: _File, index: int, old: Snapshot, new: Snapshot) -> list[Unit]:
    """The units that rewrite a changed section: record by record for a block list of records,
    else the section read and edited whole."""
    section = file.sections[index]
    name = _NAMES[section.key]
    kept = _kept(new, name)
    dashes = file.dashes(index)
    by_record = kept and section.key in LIST_KEYS and bool(getattr(new, name))
    if by_record and dashes is not None and len(getattr(old, name)) == len(dashes):
        return _record_units(file, index, getattr(old, name), getattr(new, name))
    found, entry = file.entry(index)
    ctx = EditContext(file.lines, found.scalars, file.style(index, found, whole=True), file.writer)
    (before, _), (data, sparse) = _dumps(old, {name}), _dumps(new, {name})
    if kept:
        key = section.key
        edits = value_edits(ctx, entry, before[key], data[key], sparse.get(key, data[key]))
    else:
        edits = deleted_entry(ctx, BlockMap(section.col, (entry,)), 0)
    last = entry.value.end[0] + 1
    text = applied(file.lines, section.line, last, edits, file.end)
    keys = [section.key] if kept else []
    return [Unit(section.line, last, text, partial(fields_read_back, snapshot=new, keys=keys))]


def _dump(record: BaseModel) -> tuple[dict[str, Any], dict[str, Any]]:
    return record.model_dump(by_alias=True), record.model_dump(by_alias=True, exclude_defaults=True)


def _record_units(file: _File, index: int, old: Sequence[BaseModel], new: Sequence[BaseModel]) -> list[Unit]:
    """A block list of records rewritten record by record: only changed, removed and new ones."""
    section, dashes = file.sections[index], file.dashes(index)
    assert dashes is not None
    ident = LIST_KEYS[section.key]
    pairs, removed, inserted = matched([getattr(r, ident) for r in old], [getattr(r, ident) for r in new])
    units = []
    for i, j in pairs:
        if old[i] != new[j]:
            found, record, last = file.record(index, i)
            ctx = EditContext(file.lines, found.scalars, file.style(index, found), file.writer)
            edits = map_edits(ctx, record, old[i].model_dump(by_alias=True), *_dump(new[j]))
            text = applied(file.lines, dashes[i], last + 1, edits, file.end)
            units.append(Unit(dashes[i], last + 1, text, partial(records_read_back, records=[new[j]])))
    for i in removed:
        units.append(Unit(dashes[i], file.record(index, i)[2] + 1, "", None))
    for after, js in inserted:
        found, _, last = file.record(index, max(after, 0))
        units.append(_new_records(file, index, found, last + 1 if after >= 0 else dashes[0], [new[j] for j in js]))
    return units


def _new_records(file: _File, index: int, found: Piece, at: int, records: list[BaseModel]) -> Unit:
    """Records added at line `at` of section `index`, written as `found` (a record of it) is."""
    section = file.sections[index]
    assert section.items is not None
    style = file.style(index, found)
    write, content = file.writer.item_lines, section.items[0][1]
    values = [built(*_dump(record), style) for record in records]
    lines = [line for value in values for line in write(value, section.dash_col, content, section.col, style)]
    text = "".join(lines).replace("\n", file.end)
    return Unit(at, at, text, partial(records_read_back, records=records))


def _new_sections(file: _File, keys: list[str], anchor: str | None, added: list[str], snapshot: Snapshot) -> Unit:
    """Top-level keys the file lacks, after the section before them (before the first if none),
    written as the section before them is."""
    where = keys.index(anchor) if anchor is not None else 0
    found, last = file.last(where)
    style = file.style(where, found, whole=not file.dashes(where))
    col = file.sections[0].col
    data, sparse = _dumps(snapshot, {_NAMES[key] for key in added})
    write = file.writer.entry_lines
    chunks = [" " * col + "".join(write(key, built(data[key], sparse[key], style), col, style)) for key in added]
    at = last + 1 if anchor is not None else file.sections[0].line
    text = "".join(chunks).replace("\n", file.end)
    return Unit(at, at, text, partial(fields_read_back, snapshot=snapshot, keys=added))


def commented_text(snapshot: Snapshot, header: Sequence[str], before: Mapping[str, Sequence[str]]) -> str:
    """The snapshot's text, `header` as the file's first comment lines and `before[key]` as the
    comment lines above each top-level key the file writes (after a blank line, unless nothing
    comes before it). A line break inside a line starts another comment line, never a key."""
    tree = CommentedMap()
    patch_map(tree, *snapshot.to_data(), Style())
    if header:
        tree.yaml_set_start_comment("\n".join(_lines(header)))
    for position, key in enumerate(tree):
        lines = _lines(before.get(key, ()))
        if lines:
            spaced = ["", *lines] if position or header else lines
            tree.yaml_set_comment_before_after_key(key, before="\n".join(spaced))
    return dump_tree(tree)


def _lines(lines: Sequence[str]) -> list[str]:
    return [part for line in lines for part in (line.splitlines() or [""])]
