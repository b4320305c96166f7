"""Saving by editing the text in place: only what changed is written, in the file's own layout.

The old and new values are compared key by key. Where they differ, the text is edited at the
places `store_outline` finds, and nowhere else:

- a changed value is written over the old one (the key, what separates it from its value and any
  comment after it stay), in the style the old value had where that style carries the new text;
- a key that goes (an optional field emptied) takes its lines with it, but not its comments;
- a new key goes after the key before it in the model's order, indented as its neighbours;
- in a block list, items are matched (records by their identity key, or by position where they
  have none; ids and other values by value): a changed record is edited key by key, a removed one
  loses its lines (its own comments go with it), new ones go after the item before them.

What is written is written in the `Style` learned from the file around it (`store_style`). The
caller (`store_save`) reads every changed stretch back, and keeps it only if it gives the intended
value. Comments, blank lines and the bytes of everything that did not change stay as they were.
When something is not as this expects (edits that would overlap, a key ruamel would quote, a
mapping whose every key is replaced), `Declined` is raised and the caller writes the whole file by
a round trip instead.

**Values as the store writes them** (`restyled`, `built`, `patch_map`): a changed scalar in the
style it had, new values in the file's style, and a changed model written into a copy of the
round-trip tree it was loaded from.

A value keeps the style it was written in (plain, quoted, literal, folded) when that style can
carry the new text unchanged; otherwise it is double-quoted, the one style whose escapes carry any
text. A new value is built in the file's `Style` (flow or block lists of ids). `patch_map` writes
only the leaves that changed, so comments, key order, quoting and flow style survive a whole
round trip (`store_save`); lists of records are matched by their identity key.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import difflib
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from bot.errors import InputError
from bot.snapshot.model import LIST_KEYS, Snapshot
from bot.snapshot.store import MAX_DEPTH, MAX_INTEGER_DIGITS, PlainDate, load_data, parse_tree
from bot.snapshot.store_outline import BlockList, BlockMap, Entry, Leaf, Pos, comments, content_len
from bot.snapshot.store_style import Style, Writer


class Declined(Exception):
    """The text is not one this can edit with certainty; the whole file is written instead."""


@dataclass(frozen=True)
class Edit:
    """Replace the text from `start` to `end` (positions in the whole text) with `text`, whose lines end in `\\n`."""

    start: Pos
    end: Pos
    text: str


@dataclass(frozen=True)
class EditContext:
    """What the edits of one piece are made with: the file's lines, where the piece's quoted and
    block scalars are (for finding comments), the style to write in and the save's writer."""

    lines: list[str]
    scalars: list[tuple[Pos, Pos]]
    style: Style
    writer: Writer


def _indented(col: int, found: list[str]) -> str:
    return "".join(" " * col + comment + "\n" for comment in found)


def map_edits(ctx: EditContext, node: BlockMap, old: Any, new: Any, sparse: Any) -> list[Edit]:
    """The edits that turn block mapping `node` (which reads as `old`) into `new`."""
    keys = [entry.key for entry in node.entries]
    if not isinstance(old, Mapping) or not isinstance(new, Mapping) or len(set(keys)) != len(keys):
        raise Declined
    if any(key not in new for key in keys):
        raise Declined  # a key the model does not know: it would not have loaded
    edits: list[Edit] = []
    gone = set()
    for index, entry in enumerate(node.entries):
        if old.get(entry.key) == new[entry.key]:
            continue
        if entry.key not in sparse:  # emptied: optional fields at their default are left out
            edits += deleted_entry(ctx, node, index)
            gone.add(entry.key)
        else:
            edits += value_edits(ctx, entry, old.get(entry.key), new[entry.key], sparse[entry.key])
    kept = [key for key in keys if key not in gone]
    order = [key for key in new if key in kept or key in sparse]
    anchor: str | None = None
    pending: list[str] = []
    for key in [*order, None]:
        if (key is None or key in kept) and pending:
            edits.append(_inserted_entries(ctx, node, kept, anchor, pending, new, sparse))
            pending = []
        if key in kept:
            anchor = key
        elif key is not None:
            pending.append(key)
    return edits


def value_edits(ctx: EditContext, entry: Entry, old: Any, new: Any, sparse: Any) -> list[Edit]:
    """The edits that turn `entry`'s value into `new`: inside it for a block mapping or list."""
    node = entry.value
    if isinstance(node, BlockMap) and isinstance(new, Mapping):
        return map_edits(ctx, node, old, new, sparse)
    if isinstance(node, BlockList) and isinstance(new, list | tuple) and new and isinstance(old, list | tuple):
        return list_edits(ctx, node, entry.start[1], entry.key, old, new, sparse)
    return _replaced(ctx, entry, new, sparse)


def _value_node(node: Any, new: Any, sparse: Any, style: Style) -> Any:
    """The node written for `new` where the file held `node`: a scalar in its old style, a list in
    its old flow or block style, anything else as the file writes new values."""
    if isinstance(node, Leaf) and node.style not in ("[", "{") and not isinstance(new, Mapping | list | tuple):
        return restyled(node.style, new)
    flow = isinstance(node, Leaf) and node.style == "["
    if flow or isinstance(node, BlockList):
        style = dataclasses.replace(style, flow_lists=flow)
    return built(new, sparse, style)


def _replaced(ctx: EditContext, entry: Entry, new: Any, sparse: Any) -> list[Edit]:
    """`entry`'s value written anew; comments inside the old value go on lines before the key."""
    node, lines = entry.value, ctx.lines
    value = _value_node(node, new, sparse, ctx.style)
    out = ctx.writer.entry_lines(entry.key, value, entry.start[1], ctx.style)
    if not out[0].startswith(entry.key + ":"):
        raise Declined  # a key ruamel quotes: not one of the model's
    body = "".join(out)[len(entry.key) : -1]
    start = entry.key_end
    if node.start[0] == entry.start[0] and isinstance(node, Leaf) and node.start != node.end and body.startswith(": "):
        start, body = node.start, body[2:]  # on the key's line, only the value is written over
    end = node.end
    found = comments(lines, start, end, ctx.scalars)
    line_end = (end[0], content_len(lines[end[0]]))
    if isinstance(value, LiteralScalarString | FoldedScalarString) and lines[end[0]][end[1] : line_end[1]].strip():
        found += comments(lines, end, line_end, ctx.scalars)  # after a block scalar a comment would be its text
        end = line_end
    edits = [Edit(start, end, body)]
    if found:
        edits.append(Edit((entry.start[0], 0), (entry.start[0], 0), _indented(entry.start[1], found)))
    return edits


def deleted_entry(ctx: EditContext, node: BlockMap, index: int) -> list[Edit]:
    """An entry's lines removed; its comments stay, on lines of their own at its column."""
    entry, lines = node.entries[index], ctx.lines
    start, end = entry.start, entry.value.end
    if not lines[start[0]][: start[1]].strip():  # the key starts its line
        found = comments(lines, start, (end[0], content_len(lines[end[0]])), ctx.scalars)
        return [Edit((start[0], 0), (end[0] + 1, 0), _indented(start[1], found))]
    # The first key of a list item, on its dash's line: the next key moves up to its place.
    if index + 1 >= len(node.entries):
        raise Declined
    following = node.entries[index + 1].start
    found = comments(lines, start, following, ctx.scalars)
    edits = [Edit(start, following, "")]
    if found:
        edits.append(Edit((start[0], 0), (start[0], 0), _indented(start[1], found)))
    return edits


def _inserted_entries(
    ctx: EditContext, node: BlockMap, kept: list[str], anchor: str | None, keys: list[str], new: Any, sparse: Any
) -> Edit:
    """New keys after `anchor`'s value, or before the first kept key when there is none."""
    col, style = node.col, ctx.style
    chunks = ["".join(ctx.writer.entry_lines(key, built(new[key], sparse[key], style), col, style)) for key in keys]
    if anchor is not None:
        entry = next(e for e in node.entries if e.key == anchor)
        at = (entry.value.end[0] + 1, 0)
        return Edit(at, at, "".join(" " * col + chunk for chunk in chunks))
    first = next(e for e in node.entries if e.key in kept) if kept else None
    if first is None:
        raise Declined  # every key replaced: nothing to place them by
    text = "".join(chunk if index == 0 else " " * col + chunk for index, chunk in enumerate(chunks))
    return Edit(first.start, first.start, text + " " * col)


Alignment = tuple[list[tuple[int, int]], list[int], list[tuple[int, list[int]]]]


def aligned(old: Sequence[Any], new: Sequence[Any], key: str) -> Alignment:
    """How a list's items match: (old, new) index pairs, removed old indexes, and new indexes
    inserted after each old index (-1: before the first). Records are matched by their identity
    key, other values by value, records without a usable key by position (as `patch_map` does)."""
    ident = LIST_KEYS.get(key, "")
    records = [item for item in [*old, *new] if isinstance(item, Mapping)]
    if records and not (ident and len(records) == len(old) + len(new) and all(ident in r for r in records)):
        return _by_position(len(old), len(new))
    if records:
        return matched([r[ident] for r in old], [r[ident] for r in new])
    return matched([(type(v).__name__, v) for v in old], [(type(v).__name__, v) for v in new])


def matched(before: Sequence[Any], after: Sequence[Any]) -> Alignment:
    """`aligned` for items known by these keys (by position when a key repeats in a list)."""
    if len(set(before)) != len(before) or len(set(after)) != len(after):
        return _by_position(len(before), len(after))
    if before == after:
        return [(i, i) for i in range(len(before))], [], []
    pairs: list[tuple[int, int]] = []
    removed: list[int] = []
    inserted: list[tuple[int, list[int]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            pairs += zip(range(i1, i2), range(j1, j2), strict=True)
        if tag in ("delete", "replace"):
            removed += range(i1, i2)
        if tag in ("insert", "replace"):
            inserted.append((i1 - 1, list(range(j1, j2))))
    return pairs, removed, inserted


def _by_position(old: int, new: int) -> Alignment:
    extra = list(range(old, new))
    return [(i, i) for i in range(min(old, new))], list(range(new, old)), [(old - 1, extra)] if extra else []


def list_edits(
    ctx: EditContext, node: BlockList, parent_col: int, key: str, old: Sequence[Any], new: Sequence[Any], sparse: Any
) -> list[Edit]:
    """The edits that turn block list `node` (held by a key at `parent_col`) into `new`."""
    if len(old) != len(node.items):
        raise Declined
    pairs, removed, inserted = aligned(old, new, key)
    edits: list[Edit] = []
    for i, j in pairs:
        if old[i] == new[j]:
            continue
        value = node.items[i].value
        if isinstance(value, BlockMap) and isinstance(new[j], Mapping):
            edits += map_edits(ctx, value, old[i], new[j], sparse[j])
        else:
            edits.append(_deleted_item(ctx, node, i, keep=True))
            edits.append(_inserted_items(ctx, node, parent_col, i, [new[j]], [sparse[j]]))
    for i in removed:
        edits.append(_deleted_item(ctx, node, i, keep=not isinstance(old[i], Mapping)))
    for after, js in inserted:
        edits.append(_inserted_items(ctx, node, parent_col, after, [new[j] for j in js], [sparse[j] for j in js]))
    return edits


def _deleted_item(ctx: EditContext, node: BlockList, index: int, *, keep: bool) -> Edit:
    """An item's lines removed; with `keep`, the comments in them stay (a removed record's go)."""
    item, lines = node.items[index], ctx.lines
    last = item.value.end[0]
    found = comments(lines, (item.dash, node.dash_col), (last, content_len(lines[last])), ctx.scalars) if keep else []
    return Edit((item.dash, 0), (last + 1, 0), _indented(node.dash_col, found))


def _inserted_items(
    ctx: EditContext, node: BlockList, parent_col: int, after: int, values: list[Any], sparse: list[Any]
) -> Edit:
    """New items after item `after` (before the first for -1), laid out as the list's items are."""
    content = node.items[0].value.start[1]
    out = [
        line
        for value, kept in zip(values, sparse, strict=True)
        for line in ctx.writer.item_lines(built(value, kept, ctx.style), node.dash_col, content, parent_col, ctx.style)
    ]
    at = (node.items[after].value.end[0] + 1, 0) if after >= 0 else (node.items[0].dash, 0)
    return Edit(at, at, "".join(out))


def applied(lines: list[str], first: int, last: int, edits: list[Edit], line_end: str) -> str:
    """Lines [first, last) with `edits` made (positions in the whole text, none overlapping):
    each edit's text in place of its stretch, the last in the text first, so the places of the
    others stay; of two at one place, the one made first comes first."""
    starts = list(itertools.accumulate((len(line) for line in lines[first:last]), initial=0))

    def offset(pos: Pos) -> int:
        if not first <= pos[0] <= last:
            raise Declined
        return starts[pos[0] - first] + pos[1]

    ordered = sorted(((offset(e.start), offset(e.end), n, e.text) for n, e in enumerate(edits)), reverse=True)
    for later, earlier in itertools.pairwise(ordered):
        if earlier[1] > later[0]:
            raise Declined  # two edits of one stretch: not a change this makes
    text = "".join(lines[first:last])
    for begin, end, _, new in ordered:
        text = text[:begin] + (new if line_end == "\n" else new.replace("\n", line_end)) + text[end:]
    return text


def read_back(text: str) -> Any:
    """`text` read as the store reads a file (C parser, else the round-trip loader)."""
    read, data = load_data(text, max_depth=MAX_DEPTH, max_digits=MAX_INTEGER_DIGITS, date=PlainDate)
    if read:
        return data
    try:
        return parse_tree(text, "snapshot piece")
    except InputError as exc:
        raise Declined from exc


def records_read_back(text: str, records: Sequence[BaseModel]) -> bool:
    """Whether `text`, a run of list items, reads back as exactly `records`."""
    data = read_back(text)
    if not isinstance(data, list) or len(data) != len(records):
        return False
    try:
        return all(type(r).model_validate(d) == r for d, r in zip(data, records, strict=True))
    except ValidationError:
        return False


_FIELDS = {field.alias or name: name for name, field in Snapshot.model_fields.items()}


def fields_read_back(text: str, snapshot: Snapshot, keys: Sequence[str]) -> bool:
    """Whether `text`, top-level keys, holds exactly `keys` and each reads back as `snapshot` has it."""
    data = read_back(text)
    data = {} if data is None else data
    if not isinstance(data, Mapping) or sorted(map(str, data)) != sorted(keys):
        return False
    for key in keys:
        name = _FIELDS[key]
        copy = snapshot.model_copy()
        try:
            Snapshot.__pydantic_validator__.validate_assignment(copy, name, data[key])
        except ValidationError:
            return False
        if getattr(copy, name) != getattr(snapshot, name):
            return False
    return True


@dataclass(frozen=True)
class Unit:
    """Lines [first, last) of the file replaced by `text`, kept only when `check(text)` holds."""

    first: int
    last: int
    text: str
    check: Callable[[str], bool] | None


def joined(lines: list[str], units: list[Unit]) -> str:
    """The file's lines with each unit's new text in its place; `Declined` if any reads back wrong."""
    out = list(lines)
    ordered = sorted(enumerate(units), key=lambda pair: (pair[1].first, pair[1].last, pair[0]), reverse=True)
    for (_, later), (_, earlier) in itertools.pairwise(ordered):
        if earlier.last > later.first:
            raise Declined
    for _, unit in ordered:
        if unit.check is not None and not unit.check(unit.text):
            raise Declined
        out[unit.first : unit.last] = [unit.text]
    return "".join(out)


# Anything but YAML's printable characters, and the ones it reads as line breaks (or folds into
# spaces) in other styles: only a double-quoted scalar, with escapes, carries them unchanged.
# Named by what they are, not as the complement of the printable ranges: the same characters,
# and a pattern Python compiles in a millisecond rather than eight, at every start.
_NEEDS_ESCAPES = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_STYLES: dict[str, type[str]] = {
    "'": SingleQuotedScalarString,
    '"': DoubleQuotedScalarString,
    "|": LiteralScalarString,
    ">": FoldedScalarString,
}


def style_of(node: Any) -> str:
    """The style a round-trip tree's scalar was written in ("" plain), as the outline names it."""
    return next((style for style, kind in _STYLES.items() if type(node) is kind), "")


def restyled(style: str, new: Any) -> Any:
    """The node for `new` where the file held a scalar written in `style`: in that style if it
    carries `new` unchanged, else double-quoted; dates stay plain dates."""
    if isinstance(new, dt.date):
        return PlainDate(new.isoformat())
    if not isinstance(new, str):
        return new
    if _NEEDS_ESCAPES.search(new) or (style in ("|", ">") and not _block_safe(new)):
        quoted: str = DoubleQuotedScalarString(new)
        return quoted
    kept: str = _STYLES[style](new) if style in _STYLES else new
    return kept


def _block_safe(text: str) -> bool:
    """Text a block scalar gives back unchanged: one line, no edge spaces (folding and chomping eat them)."""
    return bool(text) and "\n" not in text and text == text.strip(" ")


def built(value: Any, sparse: Any, style: Style) -> Any:
    """A new value's node: keys at their default left out (those `sparse` lacks), lists of ids
    flow or block as the file writes them, strings plain unless only escapes carry them."""
    if isinstance(value, Mapping):
        node = CommentedMap()
        for k, v in value.items():
            if k in sparse:
                node[k] = built(v, sparse[k], style)
        return node
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], Mapping):
            return CommentedSeq(built(v, s, style) for v, s in zip(value, sparse, strict=True))
        seq = CommentedSeq(built(v, v, style) for v in value)
        if style.flow_lists or not value:
            seq.fa.set_flow_style()
        return seq
    return restyled("", value)


def clone_tree(node: Any) -> Any:
    """A deep copy of a round-trip tree. ruamel's own `__deepcopy__` re-copies a sequence's
    attributes once per item, which is quadratic in the length of the list."""
    if isinstance(node, CommentedMap):
        mapping = CommentedMap()
        for key, value in node.items():
            mapping[key] = clone_tree(value)
        node.copy_attributes(mapping, memo={})
        return mapping
    if isinstance(node, CommentedSeq):
        sequence = CommentedSeq(clone_tree(value) for value in node)
        node.copy_attributes(sequence, memo={})
        return sequence
    return node


def patch_map(node: CommentedMap, new: Mapping[str, Any], sparse: Mapping[str, Any], style: Style) -> None:
    """Write `new` into `node`. Keys the file lacks are added only when `sparse` (the dump
    without default values) has them, so optional empty fields stay out of the file."""
    for key in [k for k in node if k not in new or (k not in sparse and not _same(node[k], new[k]))]:
        _keep_comments(node, key)
        del node[key]  # gone, or just emptied: optional fields at their default are left out
    keys = [k for k in new if k in node or k in sparse]
    for index, key in enumerate(keys):
        if key in node:
            node[key] = _merge(node[key], new[key], sparse.get(key, new[key]), key, style)
            continue
        after = [k for k in keys[:index] if k in node]
        position = list(node).index(after[-1]) + 1 if after else 0
        node.insert(position, key, built(new[key], sparse[key], style))
        if after and position == len(node) - 1:  # the comments after the last key stay last
            _move_comment(*_last(node, after[-1]), *_last(node, key))
            _move_end(node, after[-1], key)


def _same(old: Any, new: Any) -> bool:
    if isinstance(new, list | tuple):
        return isinstance(old, list) and list(old) == list(new)
    return bool(old == new)


def _merge(old: Any, new: Any, sparse: Any, key: str, style: Style) -> Any:
    if isinstance(new, Mapping):
        if isinstance(old, CommentedMap):
            patch_map(old, new, sparse, style)
            return old
        return built(new, sparse, style)
    if isinstance(new, list | tuple):
        if not isinstance(old, CommentedSeq) or not new:
            return built(new, sparse, style)
        if isinstance(new[0], Mapping):
            _patch_records(old, list(new), list(sparse), key, style)
        else:
            _patch_scalars(old, list(new), style)
        return old
    if isinstance(old, str) and isinstance(new, str) and old == new and not isinstance(old, PlainDate):
        return old
    if isinstance(new, dt.date) and isinstance(old, PlainDate) and old == new.isoformat():
        return old
    if type(old) is type(new) and old == new:
        return old
    return restyled(style_of(old), new)


def _patch_scalars(seq: CommentedSeq, new: list[Any], style: Style) -> None:
    for index, value in enumerate(new):
        if index >= len(seq):
            seq.append(restyled("", value))
        elif seq[index] != value or type(seq[index]) is not type(value):
            seq[index] = restyled(style_of(seq[index]), value)
    del seq[len(new) :]


def _patch_records(seq: CommentedSeq, new: list[Mapping[str, Any]], sparse: list[Any], key: str, style: Style) -> None:
    """Records are matched by their identity key, so an edit stays in its record; by position
    when the key is missing, repeated or the kept records change order."""
    ident = LIST_KEYS.get(key, "")
    old_ids = [item.get(ident) if ident and isinstance(item, Mapping) else None for item in seq]
    new_ids = [item.get(ident) for item in new] if ident else []
    kept = [i for i in old_ids if i in set(new_ids)]
    unique = len(set(old_ids)) == len(old_ids) and len(set(new_ids)) == len(new_ids)
    if ident and unique and kept == [i for i in new_ids if i in set(old_ids)]:
        for index in reversed(range(len(seq))):
            if old_ids[index] not in set(new_ids):
                _drop_record(seq, index)
        by_id = {item[ident]: item for item in seq}
        for index, record in enumerate(new):
            if record[ident] in by_id:
                patch_map(by_id[record[ident]], record, sparse[index], style)
            else:
                seq.insert(index, built(record, sparse[index], style))
                if index == len(seq) - 1 and index > 0:
                    _after_record(seq, index)
        return
    for index, record in enumerate(new):
        if index < len(seq) and isinstance(seq[index], CommentedMap):
            patch_map(seq[index], record, sparse[index], style)
        elif index < len(seq):
            seq[index] = built(record, sparse[index], style)
        else:
            seq.append(built(record, sparse[index], style))
            if index > 0:
                _after_record(seq, index)
    for index in reversed(range(len(new), len(seq))):
        _drop_record(seq, index)


def _drop_record(seq: CommentedSeq, index: int) -> None:
    """A record removed; if it was the last, the comment lines after it (what follows the list's)
    stay, after the record that is last now."""
    if index == len(seq) - 1 and index > 0:
        _after_record(seq, index, back=True)
    del seq[index]


def _after_record(seq: CommentedSeq, index: int, *, back: bool = False) -> None:
    """Comment lines after the last record belong to what follows the list: after an appended
    record (or, `back`, after the one before a removed last record)."""
    previous, record = seq[index - 1], seq[index]
    if isinstance(previous, CommentedMap) and isinstance(record, CommentedMap) and previous and record:
        if back:
            _move_comment(record, list(record)[-1], previous, list(previous)[-1])
        else:
            _move_comment(previous, list(previous)[-1], record, list(record)[-1])


def _keep_comments(node: CommentedMap, key: str) -> None:
    """The comments after a key that goes move to the key before it (else they would go too)."""
    keys = list(node)
    at = keys.index(key)
    if at > 0:
        _move_comment(*_last(node, key), *_last(node, keys[at - 1]), append=True)


def _move_comment(src: CommentedMap, src_key: Any, dst: CommentedMap, dst_key: Any, *, append: bool = False) -> None:
    """The comment after `src_key` moved after `dst_key`: all of it (`append`), or only its lines
    after the first (the rest of the file follows a new last key); added to what is there."""
    entry = src.ca.items.get(src_key)
    if not entry or len(entry) < 3 or entry[2] is None:
        return
    token = entry[2]
    head, newline, rest = str(token.value).partition("\n")
    if append:
        moved_text, entry[2] = str(token.value), None
    elif rest:
        moved_text, token.value = newline + rest, head + newline
    else:
        return
    items = dst.ca.items.setdefault(dst_key, [None, None, None, None])
    while len(items) < 3:
        items.append(None)
    if items[2] is not None:  # its own comment ends its line: what follows comes after it
        items[2].value = str(items[2].value) + (moved_text if append else rest)
        return
    moved = copy.copy(token)
    moved.value = moved_text
    items[2] = moved


def _move_end(node: CommentedMap, src: str, dst: str) -> None:
    """The comments ruamel keeps at the end of `src`'s list or mapping (those after the file's
    last value) moved after `dst`'s value."""
    value = node[src]
    tokens = value.ca.end if isinstance(value, CommentedMap | CommentedSeq) else None
    if not tokens:
        return
    value.ca.end = []
    target = node[dst]
    if isinstance(target, CommentedMap | CommentedSeq):
        target.ca.end = [*tokens, *(target.ca.end or [])]
        return
    token = copy.copy(tokens[0])
    token.value = "\n" + "".join(str(t.value) for t in tokens)
    items = node.ca.items.setdefault(dst, [None, None, None, None])
    items[2] = token


def _last(node: CommentedMap, key: str) -> tuple[CommentedMap, Any]:
    """The map and key that hold the comments after `key`'s value: its own, or its last record's last key."""
    value = node[key]
    if isinstance(value, CommentedSeq) and value and isinstance(value[-1], CommentedMap) and value[-1]:
        value = value[-1]
    if isinstance(value, CommentedMap) and value:
        return value, list(value)[-1]
    return node, key
