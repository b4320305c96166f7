"""Round-trip storage, emitting: the text of a patched tree, with only its changed parts re-emitted.

Changed top-level values and records are emitted alone and spliced between the untouched source
lines, which gives the text a full dump gives (a property the tests check) at a fraction of the
cost. Part of the store: only `store*.py` touches ruamel.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ruamel.yaml.anchor import Anchor
from ruamel.yaml.comments import CommentedMap, CommentedSeq, Format, merge_attrib
from ruamel.yaml.tag import Tag

from bot.snapshot.model import LIST_KEYS
from bot.snapshot.store import dump_tree
from bot.snapshot.store_layout import at_dash


def splice_tree(original: Any, text: str, tree: Any) -> str | None:
    """Source lines for unchanged parts, fresh emission for changed ones; None when the shape
    changed too much to splice (a top-level key dropped or moved, or one added before the first),
    so the caller dumps it all. An added top-level key (a first ledger entry) is emitted alone."""
    if not isinstance(original, CommentedMap) or not original or not isinstance(tree, CommentedMap):
        return None
    keys, order = list(original), list(tree)
    if not order or order[0] not in original or [k for k in order if k in original] != keys:
        return None
    lines = source_lines(text)
    starts = [original.lc.key(k)[0] for k in keys]
    spans = dict(zip(keys, zip(starts, [*starts[1:], len(lines)], strict=True), strict=True))
    # A key added after the last one takes over the comment lines that followed it (`patch_map`),
    # so that section is emitted again too.
    moved = keys[-1] if order[-1] not in original else None
    out = lines[: starts[0]]
    for key in order:
        if key not in spans:
            out += _alone(key, tree)
            continue
        start, end = spans[key]
        old, new = original[key], tree[key]
        if key != moved and old == new and original.ca.items.get(key) == tree.ca.items.get(key):
            out += lines[start:end]
            continue
        piece = _splice_records(key, old, new, lines, start, end) if key != moved else None
        out += piece if piece is not None else _alone(key, tree)
    return "".join(out)


def _alone(key: str, tree: CommentedMap) -> list[str]:
    """The lines of `key` and its value, emitted as the only key of a map (with its comments)."""
    holder = CommentedMap()
    holder[key] = tree[key]
    if key in tree.ca.items:
        holder.ca.items[key] = tree.ca.items[key]
    return source_lines(dump_tree(holder))


def _splice_records(key: str, old: Any, new: Any, lines: list[str], start: int, end: int) -> list[str] | None:
    """Re-emit only the changed records of a block list of mappings (appends included)."""
    records = isinstance(old, CommentedSeq) and isinstance(new, CommentedSeq) and old and not old.fa.flow_style()
    if not records or len(new) < len(old) or not all(isinstance(x, CommentedMap) for x in [*old, *new]):
        return None
    ident = LIST_KEYS.get(key, "")
    if ident and any(old[i].get(ident) != new[i].get(ident) for i in range(len(old))):
        return None
    firsts = [old.lc.item(i)[0] for i in range(len(old))]
    if not all(at_dash(lines, line, column) for line, column in map(old.lc.item, range(len(old)))):
        return None  # a record starts below its dash (`- # note`): its lines would lose the dash
    lasts = [*firsts[1:], end]
    appended = len(new) > len(old)
    out = lines[start : firsts[0]]
    for i in range(len(old)):
        last = i == len(old) - 1
        if old[i] == new[i] and not (last and appended):
            out += lines[firsts[i] : lasts[i]]
            continue
        group = group_records(new, i, last)
        holder = CommentedMap()
        holder[key] = group
        out += source_lines(dump_tree(holder))[1:]
    return out


def group_records(records: CommentedSeq, first: int, last: bool) -> CommentedSeq:
    """Record `first` (with every later one when `last`) as a list of its own, to emit alone.

    The list's own comments come along: per-item ones re-indexed, and for the last group the
    comments after the list (before the next section), which ruamel keeps in `end`. Only those
    are copied (emitting may mark comment tokens as written): copying all of the list's comments
    for each changed record cost records × changes."""
    group = CommentedSeq(records[first:] if last else [records[first]])
    ca = records.ca
    items = {k - first: v for k, v in ca.items.items() if k == first or (last and k > first)}
    comment, pre, end, items = copy.deepcopy((ca.comment, ca.pre, ca.end if last else None, items))
    group.ca.comment, group.ca.pre, group.ca.end = comment, pre, end
    group.ca.items.update(items)
    for attribute in (Format.attrib, Anchor.attrib, Tag.attrib, merge_attrib):
        if hasattr(records, attribute):
            setattr(group, attribute, copy.deepcopy(getattr(records, attribute)))
    return group


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
