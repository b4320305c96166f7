"""Round-trip storage, patching: a changed model written into a copy of the tree it was loaded from.

Only the leaves that changed are written back, so comments, key order, quoting and flow style
survive; lists of records are matched by their identity key, so edits stay on their lines. Part
of the store: only `store*.py` touches ruamel.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from bot.snapshot.model import LIST_KEYS
from bot.snapshot.store import PlainDate
from bot.snapshot.store_scalars import scalar, text_scalar


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


def patch_map(node: CommentedMap, new: Mapping[str, Any], sparse: Mapping[str, Any]) -> None:
    """Write `new` into `node`. Keys the file lacks are added only when `sparse` (the dump
    without default values) has them, so optional empty fields stay out of the file."""
    for key in [k for k in node if k not in new or (k not in sparse and not _same(node[k], new[k]))]:
        del node[key]  # gone, or just emptied: optional fields at their default are left out
    keys = [k for k in new if k in node or k in sparse]
    for index, key in enumerate(keys):
        if key in node:
            node[key] = _merge(node[key], new[key], sparse.get(key, new[key]), key)
            continue
        after = [k for k in keys[:index] if k in node]
        position = list(node).index(after[-1]) + 1 if after else 0
        built = _build(new[key], sparse[key], key)
        if position == len(node) and len(node) > 0:
            previous = list(node)[-1]
            node.insert(position, key, built)
            _move_trailing_comment(node, previous, key)
        else:
            node.insert(position, key, built)


def _same(old: Any, new: Any) -> bool:
    if isinstance(new, list | tuple):
        return isinstance(old, list) and list(old) == list(new)
    return bool(old == new)


def _merge(old: Any, new: Any, sparse: Any, key: str) -> Any:
    if isinstance(new, Mapping):
        if isinstance(old, CommentedMap):
            patch_map(old, new, sparse)
            return old
        return _build(new, sparse, key)
    if isinstance(new, list | tuple):
        if not isinstance(old, CommentedSeq):
            return _build(new, sparse, key)
        if new and isinstance(new[0], Mapping):
            patch_records(old, list(new), list(sparse), key)
        else:
            _patch_scalars(old, list(new))
        return old
    return scalar(old, new)


def _patch_scalars(seq: CommentedSeq, new: list[Any]) -> None:
    for index, value in enumerate(new):
        if index < len(seq):
            seq[index] = scalar(seq[index], value)
        else:
            seq.append(scalar(None, value))
    del seq[len(new) :]


def patch_records(seq: CommentedSeq, new: list[Mapping[str, Any]], sparse: list[Any], key: str) -> None:
    """Lists of records are matched by their identity key, so edits stay on their lines."""
    ident = LIST_KEYS.get(key, "")
    old_ids = [item.get(ident) if ident and isinstance(item, Mapping) else None for item in seq]
    new_ids = [item.get(ident) for item in new] if ident else []
    old_set, new_set = set(old_ids), set(new_ids)
    kept = [i for i in old_ids if i in new_set]
    unique = len(old_set) == len(old_ids) and len(new_set) == len(new_ids)
    if not ident or not unique or kept != [i for i in new_ids if i in old_set]:
        _patch_positional(seq, new, sparse, key)
        return
    for index in reversed(range(len(seq))):
        if old_ids[index] not in new_set:
            del seq[index]
    by_id = {item[ident]: item for item in seq}
    for index, record in enumerate(new):
        if record[ident] in by_id:
            patch_map(by_id[record[ident]], record, sparse[index])
        else:
            appended_at_end = index == len(seq)
            seq.insert(index, _build(record, sparse[index], key))
            if appended_at_end and index > 0:
                _move_record_comment(seq[index - 1], seq[index])


def _patch_positional(seq: CommentedSeq, new: list[Mapping[str, Any]], sparse: list[Any], key: str) -> None:
    for index, record in enumerate(new):
        if index < len(seq) and isinstance(seq[index], CommentedMap):
            patch_map(seq[index], record, sparse[index])
        elif index < len(seq):
            seq[index] = _build(record, sparse[index], key)
        else:
            seq.append(_build(record, sparse[index], key))
            if index > 0:
                _move_record_comment(seq[index - 1], seq[index])
    del seq[len(new) :]


def _move_record_comment(previous: Any, new: Any) -> None:
    """Comments after a record belong to the next section; keep them after the appended one."""
    if isinstance(previous, CommentedMap) and isinstance(new, CommentedMap) and previous and new:
        _move_trailing_comment_between(previous, list(previous)[-1], new, list(new)[-1])


def _move_trailing_comment(node: CommentedMap, src: str, dst: str) -> None:
    _move_trailing_comment_between(node, src, node, dst)


def _move_trailing_comment_between(src_map: Any, src: Any, dst_map: Any, dst: Any) -> None:
    value = src_map[src]
    if isinstance(value, CommentedMap) and value:
        src_map, src = value, list(value)[-1]
    entry = src_map.ca.items.get(src)
    if not entry or len(entry) < 3 or entry[2] is None:
        return
    token = entry[2]
    text: str = token.value
    head, newline, rest = text.partition("\n")
    if not rest:
        return
    moved = copy.copy(token)
    moved.value = rest
    token.value = head + newline
    target = dst_map[dst]
    if isinstance(target, CommentedMap) and target:
        dst_map, dst = target, list(target)[-1]
    items = dst_map.ca.items.setdefault(dst, [None, None, None, None])
    while len(items) < 3:
        items.append(None)
    items[2] = moved


def _build(value: Any, sparse: Any, key: str) -> Any:
    if isinstance(value, Mapping):
        node = CommentedMap()
        for k, v in value.items():
            if k in sparse:
                node[k] = _build(v, sparse[k], k)
        return node
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], Mapping):
            return CommentedSeq(_build(v, s, key) for v, s in zip(value, sparse, strict=True))
        seq = CommentedSeq(_build(v, v, key) for v in value)
        seq.fa.set_flow_style()
        return seq
    if isinstance(value, dt.date):
        return PlainDate(value.isoformat())
    return text_scalar(value) if isinstance(value, str) else value
