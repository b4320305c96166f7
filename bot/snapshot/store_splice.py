"""Fast rewrite: a changed snapshot written by round-tripping only the text of what changed.

`store_rewrite.save_text` patches the round-trip tree of the whole file and re-emits only the
changed sections and records; building that tree is most of a rewrite's cost. Here the sections
and records are found in the source text from the marks loading kept (`store_layout`), and each
changed one is round-tripped alone: its lines, with the list's header and what follows it (the
next record's first line, or a stand-in for the next section) so ruamel attaches comments as it
does in the whole file, are parsed, patched and emitted with the same code, and spliced in.

The text is the one `save_text` gives; whenever that cannot be sure (top-level keys added, removed
or emptied, records removed or reordered, flow-style lists, comment lines next to a changed
record, a piece that does not parse back as expected) this returns None and the caller rewrites
the whole tree. A property test holds the two paths to the same text.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from bot.errors import InputError
from bot.snapshot.model import LIST_KEYS, Snapshot
from bot.snapshot.store import dump_tree, parse_tree
from bot.snapshot.store_emit import group_records, source_lines, splice_tree
from bot.snapshot.store_flat import flat_record, new_section
from bot.snapshot.store_layout import Section, sections
from bot.snapshot.store_libyaml import Seen
from bot.snapshot.store_patch import clone_tree, patch_map, patch_records

# Stands in for the section after a piece: a top-level key no snapshot has.
_NEXT_KEY = "perfbot-splice-next"
_NEXT = f"{_NEXT_KEY}: 0\n"


def fast_save_text(text: str, old: Snapshot, new: Snapshot, seen: Seen | None) -> str | None:
    """`save_text`'s text for `new` over `text` (which loaded as `old`, laid out as loading saw it,
    `seen`), or None to take the slow path."""
    lines = source_lines(text)
    found = sections(lines, seen)
    old_data = old.model_dump(by_alias=True)  # its sparse form is not needed
    data, sparse = new.to_data()
    added = _added_keys([s.key for s in found], old_data, data, sparse) if found else None
    if not found or added is None:
        return None
    out = lines[: found[0].start]
    for index, section in enumerate(found):
        key = section.key
        # The new keys follow the last section, and `save_text` writes it again: it must come out as it is.
        moved = bool(added) and index == len(found) - 1
        if moved and (old_data[key] != data[key] or not _written_as_is(section, lines, data[key], sparse.get(key))):
            return None
        if old_data[key] == data[key]:
            out += lines[section.start : section.end]
            continue
        piece = None
        if index > 0 or section.start == 0:  # the file's leading comments go with a whole first section
            piece = _records(section, lines, old_data[key], data[key], sparse[key])
        if piece is None:
            piece = _whole_section(section, lines, index == 0, data[key], sparse[key])
        if piece is None:
            return None
        out += piece
    for key in added:
        piece = new_section(key, data[key], sparse[key])
        if piece is None:
            return None
        out += piece
    return "".join(out)


def _added_keys(
    keys: list[str], old: Mapping[str, Any], new: Mapping[str, Any], sparse: Mapping[str, Any]
) -> list[str] | None:
    """The top-level keys patching adds, all after the file's last one (the ledger's first entry);
    None when it would add one elsewhere, or drop or empty one of the file's."""
    if len(set(keys)) != len(keys) or any(k not in new for k in keys):
        return None
    if not all(k in sparse or (old[k] == new[k] and new[k] in ((), [], None, "")) for k in keys):
        return None
    order = [k for k in new if k in keys or k in sparse]
    added = [k for k in order if k not in keys]
    # `patch_map` puts a new key after the one before it in the model's order: that must be the
    # file's last key, or a key it added there just before.
    for previous, key in itertools.pairwise(order):
        if key in added and previous != keys[-1] and previous not in added:
            return None
    return added if not added or order[0] not in added else None


def _written_as_is(section: Section, lines: list[str], value: Any, sparse: Any) -> bool:
    """Whether ruamel writes this section of flat records (or one-line value) as its lines are."""
    piece = lines[section.start : section.end]
    if section.records is None:
        return len(piece) == 1 and new_section(section.key, value, sparse) == piece
    header = lines[section.start : section.records[0]]
    if header != [f"{section.key}:\n"] or sparse is None or len(value) != len(section.records):
        return False
    spans = zip(section.records, section.record_ends(), strict=True)
    return all(
        flat_record(lines[a:b], v, v, s) == lines[a:b] for (a, b), v, s in zip(spans, value, sparse, strict=True)
    )


def _whole_section(section: Section, lines: list[str], first: bool, value: Any, sparse: Any) -> list[str] | None:
    """The section re-emitted as `save_text` emits a changed section (records through `_records`)."""
    begin = 0 if first else section.start  # the file's leading comments come along, as in the file
    follows = section.end < len(lines)
    piece = lines[begin : section.end] + ([_NEXT] if follows else [])
    tree = _parse("".join(piece))
    if tree is None or list(tree) != [section.key, *([_NEXT_KEY] if follows else [])]:
        return None
    patched = clone_tree(tree)
    patch_map(patched, {section.key: value, _NEXT_KEY: 0}, {section.key: sparse, _NEXT_KEY: 0})
    if list(patched) != list(tree):
        return None  # the stand-in was added (the last section): not a piece of the file's shape
    spliced = splice_tree(tree, "".join(piece), patched)
    if spliced is None:
        return None
    out = source_lines(spliced)
    head = section.start - begin
    if out[:head] != lines[begin : section.start] or (follows and out[-1:] != [_NEXT]):
        return None
    return out[head : len(out) - follows]


def _records(section: Section, lines: list[str], old: Any, new: Any, sparse: Any) -> list[str] | None:
    """A list section with only its changed records re-emitted, as `save_text` emits them."""
    ident = LIST_KEYS.get(section.key, "")
    if not ident or section.records is None or not _kept_in_order(old, new, ident, len(section.records)):
        return None
    out = lines[section.start : section.records[0]]
    last = len(old) - 1
    for i, (first, end) in enumerate(zip(section.records, section.record_ends(), strict=True)):
        grows = i == last and len(new) > len(old)
        if old[i] == new[i] and not grows:
            out += lines[first:end]
            continue
        if not _isolated(section, lines, i):
            return None  # comments there may belong to this record, or the header's to the first one
        piece = _flat(lines[first:end], old[i], new[i:] if grows else new[i : i + 1], sparse[i:])
        if piece is None:
            upto = len(new) if i == last else i + 1
            piece = _record(section, lines, i, new[i:upto], sparse[i:upto])
        if piece is None:
            return None
        out += piece
    return out


def _flat(lines: list[str], old: Any, new: Sequence[Any], sparse: Sequence[Any]) -> list[str] | None:
    """A flat record rewritten, and the records appended after it written, without a round trip
    (`store_flat`); None if any of them is not flat."""
    pieces = [flat_record(lines, old, new[0], sparse[0])]
    pieces += [flat_record([], {}, record, kept) for record, kept in zip(new[1:], sparse[1:], strict=False)]
    return None if None in pieces else [line for piece in pieces for line in piece or ()]


def _kept_in_order(old: Any, new: Any, ident: str, count: int) -> bool:
    """Every record keeps its place, identified as `patch_records` identifies it; some may be appended."""
    if not isinstance(old, list | tuple) or not isinstance(new, list | tuple) or len(old) != count:
        return False
    if not all(isinstance(r, Mapping) and ident in r for r in [*old, *new]):
        return False
    old_ids, new_ids = [r[ident] for r in old], [r[ident] for r in new]
    unique = len(set(old_ids)) == len(old_ids) and len(set(new_ids)) == len(new_ids)
    return unique and new_ids[: len(old_ids)] == old_ids


def _record(section: Section, lines: list[str], i: int, new: Sequence[Any], sparse: Sequence[Any]) -> list[str] | None:
    """Record `i` (with the appended ones after the last) patched and emitted alone."""
    assert section.records is not None
    key, records = section.key, section.records
    header = lines[section.start : records[0]]
    first, end = records[i], section.record_ends()[i]
    last = i == len(records) - 1
    text = "".join([*header, *lines[first:end], *_following(lines, end, last)])
    tree = _parse(text)
    if tree is None or list(tree)[:1] != [key] or not isinstance(tree[key], CommentedSeq):
        return None
    original = tree[key]
    if len(original) != (1 if last else 2) or not isinstance(original[0], CommentedMap):
        return None
    patched = clone_tree(original)
    if last:
        patch_records(patched, list(new), list(sparse), key)
    else:
        patch_map(patched[0], new[0], sparse[0])
    if original[0] == patched[0] and len(patched) == len(original):
        return lines[first:end]
    holder = CommentedMap()
    holder[key] = group_records(patched, 0, last)
    return source_lines(dump_tree(holder))[1:]


def _isolated(section: Section, lines: list[str], i: int) -> bool:
    """Record `i` can be rewritten alone: for any but the first, the list's header is one line with
    no comment and the record above has no comment line (which ruamel may attach to this one)."""
    if i == 0:
        return True
    assert section.records is not None
    header = lines[section.start : section.records[0]]
    previous = lines[section.records[i - 1] : section.records[i]]
    return len(header) == 1 and "#" not in header[0] and not _has_comment_line(previous)


def _following(lines: list[str], end: int, last: bool) -> list[str]:
    """What follows a record in the file, for its piece: the next record's first line, or the
    stand-in for the next section (nothing at the end of the file)."""
    if not last:
        return [lines[end]]
    return [_NEXT] if end < len(lines) else []


def _has_comment_line(lines: list[str]) -> bool:
    return any(line.lstrip(" \t").startswith("#") for line in lines)


def _parse(text: str) -> Any:
    try:
        tree = parse_tree(text, "snapshot piece")
    except InputError:
        return None
    return tree if isinstance(tree, CommentedMap) else None
