"""Fast rewrite, one flat record: its lines rewritten as ruamel writes them, without a YAML round trip.

Most records the bot changes (a packet's state, owner, blockers) are flat: one line per key, each
value a one-line scalar or a flow list of them, no comment or blank line. For such a record the
round-trip tree is rebuilt from its lines and the record's values, patched by `store_patch` (the
same code the full rewrite runs), and written out line by line. Round-tripping each record through
ruamel cost about 7 ms (parse and emit); this costs a tenth of a millisecond.

The lines are trusted only when they are exactly what ruamel would write for the values read:
each value is written back in the style the line shows and compared with the line, so a line
ruamel would rewrite (other spacing, a needless quote, `True`, `0x1F`, a value too long for one
line) makes this give None and the record takes the round-trip path. Writing covers plain and
single-quoted strings (the styles ruamel picks by the same rules as its emitter), integers,
booleans, dates and flow lists of those; anything else (a double-quoted or block string, a nested
value, an empty string, a null) gives None too. A property test holds the result to ruamel's text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from bot.snapshot.store import PlainDate
from bot.snapshot.store_patch import patch_map
from bot.snapshot.store_scalars import needs_escapes

# A record's key line as ruamel writes it with the store's indents (mapping 2, sequence 4, offset 2).
_FIRST, _NEXT = "  - ", "    "
_KEY_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_LINE = re.compile(rf"(  - |    )({_KEY_PATTERN.pattern}): ([^\n]+)\n")
# Far below the store's line width (4,096), past which ruamel folds a value onto the next line.
MAX_LINE = 2000
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = VersionedResolver()
# Characters that stop a plain scalar from starting a value (ruamel's emitter's leading indicators).
_LEADING_INDICATORS = "#,[]{}&*!|>'\"%@`"


def flat_record(
    lines: list[str], old: Mapping[str, Any], new: Mapping[str, Any], sparse: Mapping[str, Any]
) -> list[str] | None:
    """The lines ruamel writes for record `new` where `lines` held `old`, or None if not sure."""
    node = _read(lines, old)
    if node is None:
        return None
    patch_map(node, new, sparse)
    return _write(node)


def new_section(key: str, value: Any, sparse: Any) -> list[str] | None:
    """The lines ruamel writes for top-level `key` added with `value`: a one-line value, or a list
    of flat records (a first ledger entry); None for anything else."""
    if not _plain_key(key):
        return None
    if isinstance(value, list | tuple) and value and isinstance(value[0], Mapping):
        out = [f"{key}:\n"]
        for record, kept in zip(value, sparse, strict=True):
            lines = flat_record([], {}, record, kept) if isinstance(record, Mapping) else None
            if lines is None:
                return None
            out += lines
        return out
    node = CommentedMap()
    patch_map(node, {key: value}, {key: sparse})
    text = _value_text(node[key]) if key in node else None
    return None if text is None else [f"{key}: {text}\n"]


def _read(lines: list[str], old: Mapping[str, Any]) -> CommentedMap | None:
    """The record's round-trip tree, when every line is ruamel's own text for the value it holds."""
    node = CommentedMap()
    for index, line in enumerate(lines):
        found = _KEY_LINE.fullmatch(line)
        if found is None or found.group(1) != (_FIRST if index == 0 else _NEXT) or len(line) > MAX_LINE:
            return None
        key, text = found.group(2), found.group(3)
        if key not in old or key in node or not _plain_key(key):
            return None
        value = _node_value(old[key], text)
        if value is None:
            return None
        node[key] = value
    return node


def _node_value(value: Any, text: str) -> Any:
    """`value` as the round-trip loader holds it when read from `text`, or None if `text` is not
    ruamel's own writing of it."""
    if isinstance(value, list | tuple):
        items = _flow_items(value, text)
        if items is None:
            return None
        sequence = CommentedSeq(items)
        if items:  # ruamel reads `[]` with no style: given items, it writes them as a block list
            sequence.fa.set_flow_style()
        return sequence
    node = _scalar_node(value, text.startswith("'"))
    return node if node is not None and _scalar_text(node, flow=False) == text else None


def _flow_items(values: list[Any] | tuple[Any, ...], text: str) -> list[Any] | None:
    """The items of flow list `text`, each checked to be ruamel's writing of the value it holds."""
    if not text.startswith("["):
        return None
    items, at = [], 1
    for index, value in enumerate(values):
        if index:
            if not text.startswith(", ", at):
                return None
            at += 2
        node = _scalar_node(value, text.startswith("'", at))
        written = _scalar_text(node, flow=True) if node is not None else None
        if written is None or not text.startswith(written, at):
            return None
        items.append(node)
        at += len(written)
    return items if text[at:] == "]" else None


def _scalar_node(value: Any, quoted: bool) -> Any:
    if isinstance(value, str):
        return SingleQuotedScalarString(value) if quoted else value
    if quoted:
        return None
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return PlainDate(value.isoformat())
    return value if isinstance(value, int) else None  # bool is an int


def _write(node: CommentedMap) -> list[str] | None:
    out = []
    for index, (key, value) in enumerate(node.items()):
        text = _value_text(value)
        if text is None or not isinstance(key, str) or not _plain_key(key) or "\n" in text:
            return None
        line = f"{_FIRST if index == 0 else _NEXT}{key}: {text}\n"
        if len(line) > MAX_LINE:
            return None
        out.append(line)
    return out or None


@cache
def _plain_key(key: str) -> bool:
    """Whether ruamel writes `key` as it is, so its line matches `_KEY_LINE`."""
    return bool(_KEY_PATTERN.fullmatch(key)) and _scalar_text(key, flow=False) == key


def _value_text(value: Any) -> str | None:
    if isinstance(value, CommentedMap):
        return None
    if isinstance(value, CommentedSeq):
        if not value:
            return "[]"
        if not value.fa.flow_style():
            return None
        items = [_scalar_text(item, flow=True) for item in value]
        return None if None in items else "[" + ", ".join(str(item) for item in items) + "]"
    return _scalar_text(value, flow=False)


def _scalar_text(value: Any, *, flow: bool) -> str | None:
    """What ruamel's emitter writes for a scalar of the round-trip tree, or None if not sure."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if type(value) is int else None  # ruamel's own int types keep their format
    if isinstance(value, PlainDate):
        return str(value) if _DATE.fullmatch(value) else None
    if type(value) is SingleQuotedScalarString:
        return _single_quoted(value)
    if type(value) is not str:
        return None
    if _plain_allowed(value, flow) and str(_RESOLVER.resolve(ScalarNode, value, (True, False))) == _STR_TAG:
        return value
    # Not plain: ruamel double-quotes a string with a `'` in it, and single-quotes the rest.
    return None if "'" in value else _single_quoted(value)


def _single_quoted(value: str) -> str | None:
    if not value or needs_escapes(value):
        return None  # an empty string, or one only escapes carry
    return "'" + value.replace("'", "''") + "'"


def _plain_allowed(value: str, flow: bool) -> bool:
    """Whether ruamel's emitter may write `value` plain (in a flow list when `flow`)."""
    if not value or needs_escapes(value) or value[0] == " " or value[-1] == " ":
        return False
    if value.startswith(("---", "...")) or value[0] in _LEADING_INDICATORS:
        return False
    if value[0] in "?:-" and (len(value) == 1 or value[1] == " "):
        return False
    if ": " in value[1:] or (len(value) > 1 and value[-1] == ":") or " #" in value:
        return False
    return not (flow and ((len(value) == 1 and value in "?:") or any(c in value[1:] for c in ",[]{}")))
