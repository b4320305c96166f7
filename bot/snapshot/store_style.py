"""How a snapshot file is written, learned from its own text, and new text written the same way.

People and tools lay a YAML file out in many ways: lists indented under their key or not (PyYAML,
yamllint and ruamel's default dump put the dash at the key's column), four-space indents, long
values folded at 80 columns, strings quoted by habit, CRLF line ends. A rewrite that writes in the
store's own layout into such a file breaks it (a dash at the wrong column no longer parses) or
changes every line. So what is written into a file is written in the file's `Style`: its dash
offset and item indent, the indent of folded lines, the width at which it folds, whether lists of
ids are flow (`[a, b]`) or block lists, which quote a string gets, and its line end. `learn` reads
them from a piece of the file (`store_outline.Piece`); what a piece does not show is kept from the
style it starts from (the section's, then the file's, then the store's own, `Style()`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from bot.snapshot.store import PlainDate, dump_tree, yaml_for
from bot.snapshot.store_outline import BlockList, BlockMap, Leaf, Node, Piece, content_len, source_lines

_STR_TAG = "tag:yaml.org,2002:str"
# The scalars a new record holds (`store_edit.built`) whose text is a function of type and value.
_WRITTEN_BY_VALUE = frozenset(
    {str, int, bool, type(None), PlainDate, SingleQuotedScalarString, DoubleQuotedScalarString}
)


@dataclass(frozen=True)
class Style:
    """Indents are relative to the key that holds the list or value: `offset` to the dash,
    `sequence` to an item's content, `mapping` to a folded value's further lines. `quote` is the
    quote a string that cannot be plain gets; `quote_all`: every new string is quoted. The
    defaults are the store's own layout."""

    mapping: int = 2
    sequence: int = 4
    offset: int = 2
    width: int = 4096
    flow_lists: bool = True
    quote: str = "'"
    quote_all: bool = False
    line_end: str = "\n"


class _Emitter(Emitter):
    """ruamel's emitter, quoting the strings it chooses the style of as the file quotes them."""

    double = False  # a string that cannot be plain is double-quoted, not single-quoted
    quote_all = False  # every string value is quoted

    def choose_scalar_style(self) -> Any:
        style = super().choose_scalar_style()
        if self.event.style:  # a style the value carries (kept from the file): as it is
            return style
        quote = '"' if self.double else "'"
        if style == "'":
            return quote
        plain_text = style == "" and self.event.tag == _STR_TAG and not self.simple_key_context
        return quote if plain_text and self.quote_all and self.event.value else style


_EMITTERS: dict[tuple[bool, bool], type[Emitter]] = {
    (double, every): type("_Emitter", (_Emitter,), {"double": double, "quote_all": every})
    for double in (False, True)
    for every in (False, True)
}


class Writer:
    """Writes values in styles, for one save: it keeps each YAML it made (making one costs more
    than writing a short value) and the text of each value it wrote at a place, since a run that
    releases a lease writes the same `state: ready` into many records."""

    def __init__(self) -> None:
        self._yamls: dict[tuple[Any, ...], YAML] = {}
        self._written: dict[tuple[Any, ...], list[str]] = {}

    def yaml(self, style: Style, col: int = 0, *, offset: int | None = None, sequence: int | None = None) -> YAML:
        """The store's YAML writing in `style`, for text that will start at column `col`."""
        offset = style.offset if offset is None else offset
        sequence = max(style.sequence if sequence is None else sequence, offset + 2)
        # ruamel folds at the width from the line's start; written at column `col`, the text starts later.
        width = max(style.width - col, 2 * sequence + 1)
        made = (style.mapping, sequence, offset, width, style.quote == '"', style.quote_all)
        if made not in self._yamls:
            yaml = yaml_for(style.mapping, sequence, offset, width)
            yaml.Emitter = _EMITTERS[made[4:]]
            self._yamls[made] = yaml
        return self._yamls[made]

    def entry_lines(self, key: str, value: Any, col: int, style: Style) -> list[str]:
        """`key: value` as written at column `col`: the first line from the key on, the others
        indented for that column; each line ends in a line break."""
        shape = _shape(value)
        memo = None if shape is None else (key, shape, col, style)
        if memo is not None and memo in self._written:
            return self._written[memo]
        yaml = self.yaml(style, col)
        text = _records_text(key, value, yaml, style) if _scalar_records(value) else None
        if text is None:
            holder = CommentedMap()
            holder[key] = value
            text = dump_tree(holder, yaml)
        lines = _shifted(source_lines(text), col)
        if memo is not None:
            self._written[memo] = lines
        return lines

    def item_lines(self, value: Any, dash_col: int, content_col: int, parent_col: int, style: Style) -> list[str]:
        """A list item written with its dash at `dash_col` and its content at `content_col`, in a
        list held by a key at `parent_col`; whole lines, each ending in a line break."""
        holder = CommentedMap()
        holder["k"] = CommentedSeq([value])
        yaml = self.yaml(style, parent_col, offset=dash_col - parent_col, sequence=content_col - parent_col)
        lines = source_lines(dump_tree(holder, yaml))[1:]
        return [" " * parent_col + line for line in lines]


def _scalar_records(value: Any) -> bool:
    """Whether `value` is a block list of block mappings whose values are all scalars (a ledger)."""
    return (
        isinstance(value, CommentedSeq)
        and len(value) > 1
        and not value.fa.flow_style()
        and all(
            isinstance(record, CommentedMap)
            and record
            and not record.fa.flow_style()
            and all(_is_scalar(item) for item in record.values())
            for record in value
        )
    )


def _is_scalar(value: Any) -> bool:
    """A value ruamel writes from its type and value alone (not a float: -0.0 == 0.0)."""
    return type(value) in _WRITTEN_BY_VALUE


def _records_text(key: str, records: CommentedSeq, yaml: YAML, style: Style) -> str | None:
    """What ruamel writes for `key` and its list of `records` (`_scalar_records`), from one dump of
    each distinct key and value rather than of every record: a new ledger of 500 records repeats
    most of its values, and ruamel spends ~0.2 ms on each one it writes. Each distinct pair is
    written as an item of its own, `- key: value`, in a list laid out as `key`'s is: an item's
    first line is a record's first line as it is, and with the dash turned into spaces any other
    line of the record (a mapping's keys all start at the item's content column, and a value
    folds at the same column either way). Values ruamel writes alike but for their own text (ints,
    words: `_alike_shape`) are one pair for each key and shape (`_written_alike`). None when the dump is
    not laid out as expected."""
    offset = style.offset
    dash = " " * offset + "-" + " " * (max(style.sequence, offset + 2) - offset - 1)
    index: dict[tuple[Any, ...], int] = {}
    batch = CommentedSeq()
    shapes: dict[tuple[type, Any], tuple[Any, ...] | None] = {}
    for record in records:
        for name, value in record.items():
            if (type(value), value) not in shapes:
                shapes[(type(value), value)] = _alike_shape(value, yaml.resolver)
            pair = (name, type(value), shapes[(type(value), value)] or value)
            if pair not in index:
                index[pair] = len(batch)
                single = CommentedMap()
                single[name] = value
                batch.append(single)
    holder = CommentedMap()
    holder[key] = batch
    head, _, body = dump_tree(holder, yaml).partition("\n")
    items = _items(body, dash)
    if head != f"{key}:" or items is None or len(items) != len(batch):
        return None
    alike = _written_alike(batch, items, index)
    if alike is None:
        return None

    def item(name: str, value: Any) -> str:
        shape = shapes[(type(value), value)]
        if shape is None:
            return items[index[(name, type(value), value)]]
        before, after = alike[(name, shape)]
        return before + str(value) + after

    inner = " " * len(dash)
    written = [
        item(name, value) if i == 0 else inner + item(name, value)[len(dash) :]
        for record in records
        for i, (name, value) in enumerate(record.items())
    ]
    return head + "\n" + "".join(written)


# Values ruamel writes alike but for their own text. An int is `str(value)` (`represent_int`); a
# word (a letter, then letters, digits and `_`) that YAML reads back as a string has nothing the
# emitter's analysis looks for, so its style (plain, or the file's quote when every string is
# quoted) is the same for each. Neither has a space, so neither is folded: where it starts, on
# the key's line or (too long for it) the next, depends only on its length. So one dump of a key
# with a value of each shape gives the text around every other's.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_STRING_TAG = "tag:yaml.org,2002:str"


def _alike_shape(value: Any, resolver: Any) -> tuple[Any, ...] | None:
    """What writing `value` depends on when it is an int or a word (None for any other value)."""
    kind = type(value)
    if kind is int:
        return "int", len(str(value)), value < 0
    if kind is str and _WORD.fullmatch(value) and resolver.resolve(ScalarNode, value, (True, False)) == _STRING_TAG:
        return "word", len(value)
    return None


def _written_alike(
    batch: CommentedSeq, items: list[str], index: dict[tuple[Any, ...], int]
) -> dict[tuple[str, tuple[Any, ...]], tuple[str, str]] | None:
    """The text before and after the value (a quote and the line break) for each key and shape,
    from its one dumped item; None when an item does not end with its value as expected."""
    alike: dict[tuple[str, tuple[Any, ...]], tuple[str, str]] = {}
    for (name, _, shape), at in index.items():
        if isinstance(shape, tuple):
            value = str(batch[at][name])
            after = next((end for end in ("\n", "'\n", '"\n') if items[at].endswith(value + end)), None)
            if after is None:
                return None
            alike[(name, shape)] = (items[at][: -len(value) - len(after)], after)
    return alike


def _items(body: str, dash: str) -> list[str] | None:
    """The text of each item of a dumped block list whose items start with `dash` then a non-space;
    every further line of an item starts with more spaces than the dash's column (None if not)."""
    items: list[str] = []
    for line in body.split("\n")[:-1]:
        if line.startswith(dash) and line[len(dash) : len(dash) + 1] not in ("", " "):
            items.append(line + "\n")
        elif items and line[: len(dash) - len(dash.lstrip(" ")) + 1].strip() == "":
            items[-1] += line + "\n"
        else:
            return None
    return items if body.endswith("\n") else None


def _shape(value: Any) -> tuple[Any, ...] | None:
    """What writing `value` depends on, for a scalar or a list of them (None for anything else)."""
    if isinstance(value, CommentedSeq):
        items = [_shape(item) for item in value]
        return None if None in items else ("list", bool(value.fa.flow_style()), *items)
    if isinstance(value, str | int | float) or value is None:
        return (type(value), value)
    return None


def _shifted(lines: list[str], col: int) -> list[str]:
    # A blank line gains spaces too: fewer than a block scalar's indent, so it stays blank.
    return lines[:1] + [" " * col + line for line in lines[1:]]


def line_end(text: str) -> str:
    """The file's line end: the one its first line ends with."""
    at = text.find("\n")
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


@dataclass
class _StyleFacts:
    """What one walk over a piece saw (None: not seen)."""

    lines: list[str]
    offset: int | None = None
    sequence: int | None = None
    mapping: int | None = None
    width: int | None = None
    flow_lists: bool | None = None
    quotes: Counter[str] = dataclasses.field(default_factory=Counter)


def learn(piece: Piece, lines: list[str], parent_col: int, base: Style) -> Style:
    """`base` with what `piece` shows of how the file is written; `parent_col` is the column of
    the key that holds the piece's top node (0 for a top-level section read whole)."""
    facts = _StyleFacts(lines)
    if piece.root is not None:
        _walk(facts, piece.root, parent_col)
    found: dict[str, Any] = {
        name: getattr(facts, name)
        for name in ("offset", "sequence", "mapping", "width", "flow_lists")
        if getattr(facts, name) is not None
    }
    quoted = facts.quotes["'"] + facts.quotes['"']
    if quoted:
        found["quote"] = '"' if facts.quotes['"'] > facts.quotes["'"] else "'"
        found["quote_all"] = quoted > facts.quotes[""]
    return dataclasses.replace(base, **found)


def _walk(facts: _StyleFacts, node: Node, parent_col: int) -> None:
    if isinstance(node, BlockMap):
        for entry in node.entries:
            _walk(facts, entry.value, entry.start[1])
    elif isinstance(node, BlockList):
        first = node.items[0].value
        if facts.offset is None:
            facts.offset, facts.sequence = node.dash_col - parent_col, first.start[1] - parent_col
        if isinstance(first, Leaf) and first.style not in ("[", "{") and facts.flow_lists is None:
            facts.flow_lists = False
        for item in node.items:
            _walk(facts, item.value, parent_col)
    elif node.style == "[":
        facts.flow_lists = True if facts.flow_lists is None else facts.flow_lists
    elif node.style in ("", "'", '"'):
        facts.quotes[node.style] += 1
        if node.end[0] > node.start[0]:
            _folded(facts, node, parent_col)


def _folded(facts: _StyleFacts, leaf: Leaf, key_col: int) -> None:
    """A value folded over lines: the indent of its further lines, and the width it was folded at
    (a line is broken at the first space past the width, so each full line less its last word
    fits in it)."""
    lines = facts.lines
    further = lines[leaf.start[0] + 1]
    if facts.mapping is None and further.strip():
        facts.mapping = max(len(further) - len(further.lstrip(" ")) - key_col, 1)
    for line in lines[leaf.start[0] : leaf.end[0]]:
        text = line[: content_len(line)].rstrip(" ")
        fits = len(text) - len(text.rsplit(" ", 1)[-1]) - 1
        if fits > 0 and (facts.width is None or fits > facts.width):
            facts.width = fits
