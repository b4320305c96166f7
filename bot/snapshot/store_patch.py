"""Values as the store writes them: a changed scalar in the style it had, new values in the file's
style, and a changed model written into a copy of the round-trip tree it was loaded from.

A value keeps the style it was written in (plain, quoted, literal, folded) when that style can
carry the new text unchanged; otherwise it is double-quoted, the one style whose escapes carry any
text. A new value is built in the file's `Style` (flow or block lists of ids). `patch_map` writes
only the leaves that changed, so comments, key order, quoting and flow style survive a whole
round trip (`store_save`); lists of records are matched by their identity key.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from bot.snapshot.model import LIST_KEYS
from bot.snapshot.store import PlainDate
from bot.snapshot.store_style import Style

# Anything but YAML's printable characters, and the ones it reads as line breaks (or folds into
# spaces) in other styles: only a double-quoted scalar, with escapes, carries them unchanged.
_NEEDS_ESCAPES = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
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
