"""Round-trip YAML storage, loading side: YAML text to a validated model, with located errors.

The store (this module and the other `store*` modules) is the only code that touches ruamel.
There is one way in: libyaml's C parser (`store_libyaml`) builds the data the model is validated
from, and keeps where each top-level key and list item starts, so a save can find the few records
that changed without reading the rest again (`store_save.save_text`). Text the C parser may read
otherwise than ruamel is read by ruamel's round-trip loader, which also names the line and column
of whatever it refuses. Loading keeps the source text next to the validated model, and builds
the comment-preserving tree from it only when asked (to locate a problem, or for a whole round
trip).

A hand-kept snapshot gains nothing from YAML's anchors, aliases and merge keys, and they are how
a 33 KB file expands into gigabytes or a value hides behind `<<:`; they are refused, as are
nesting deeper than any snapshot needs, integers past what Python converts, and lone surrogates.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter

from bot.errors import InputError, input_error, validation_problems
from bot.files import MAX_INPUT_BYTES, read_text
from bot.snapshot import store_libyaml, store_words
from bot.snapshot.model import Snapshot, entity_label
from bot.snapshot.store_libyaml import load_data

T = TypeVar("T", bound=BaseModel)
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
MAX_DEPTH = 32
MAX_INTEGER_DIGITS = 40
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# ruamel looks up to 1,024 characters ahead for a key and pays for every open flow level on each
# step (seconds for `[` x 1,000), so a run of openers deeper than any snapshot is refused first.
_OPENERS = re.compile(rf"(?:[\[{{][\s,]*){{{MAX_DEPTH + 1}}}")
# Such a run starts with two openers in a row; this finds the first pair ten times faster, and
# the run, if any, is searched for from there.
_OPENER_PAIR = re.compile(r"[\[{][\s,]*[\[{]")


def _opener_run(text: str) -> re.Match[str] | None:
    pair = _OPENER_PAIR.search(text)
    return _OPENERS.search(text, pair.start()) if pair else None


class PlainDate(str):
    """A date kept as its source text, so pydantic validates it and it re-emits unquoted."""

    __slots__ = ()


class _Constructor(RoundTripConstructor):
    def construct_plain_date(self, node: Any) -> PlainDate:
        return PlainDate(self.construct_scalar(node))


class _Representer(RoundTripRepresenter):
    def represent_plain_date(self, data: PlainDate) -> Any:
        return self.represent_scalar(TIMESTAMP_TAG, str(data))


_Constructor.add_constructor(TIMESTAMP_TAG, _Constructor.construct_plain_date)
_Representer.add_representer(PlainDate, _Representer.represent_plain_date)


class _Refusal(ComposerError):
    """Valid YAML a snapshot never needs, refused in perfbot's own words (said as they are)."""


class _Composer(Composer):
    """Composes the node tree, refusing what a snapshot never needs before anything is built."""

    nesting = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if event.anchor is not None:  # an anchor, or an alias to one
            message = "anchors and aliases are not allowed; write the value out"
            raise _Refusal(None, None, message, event.start_mark)
        if getattr(event, "ctag", None) or getattr(event, "tag", None):
            raise _Refusal(None, None, "tags (!...) are not allowed; write the plain value", event.start_mark)
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise _Refusal(None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self.nesting -= 1
        _refuse_unsafe(node)
        return node


def _refuse_unsafe(node: Any) -> None:
    tag = str(getattr(node.tag, "value", node.tag))
    if isinstance(node, MappingNode):
        for key, _ in node.value:
            if str(getattr(key.tag, "value", key.tag)) == "tag:yaml.org,2002:merge":
                raise _Refusal(None, None, "merge keys (<<) are not allowed; write the keys out", key.start_mark)
    elif isinstance(node, ScalarNode):
        digits = len(node.value.lstrip("+-"))
        if tag == "tag:yaml.org,2002:int" and digits > MAX_INTEGER_DIGITS:
            message = f"an integer of {digits} characters (at most {MAX_INTEGER_DIGITS})"
            raise _Refusal(None, None, message, node.start_mark)
        if _LONE_SURROGATE.search(node.value):
            message = "a lone UTF-16 surrogate escape; write the character itself"
            raise _Refusal(None, None, message, node.start_mark)


def yaml_for(mapping: int = 2, sequence: int = 4, offset: int = 2, width: int = 4096) -> YAML:
    """The store's round-trip YAML, writing with these indents and line width (by default the
    store's own layout: `store_style.Style`)."""
    yaml = YAML()
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    yaml.Representer = _Representer
    yaml.preserve_quotes = True
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.width = width
    yaml.allow_unicode = True
    return yaml


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """A validated model with the file name and text it came from. The round-trip tree (to locate
    a problem, or to rewrite the file) is built from the text the first time it is asked for."""

    model: T
    parsed_tree: Any
    file: str
    text: str = ""
    # What the C parser saw of the text's layout while loading it (`store_libyaml.Seen`), for a rewrite.
    seen: store_libyaml.Seen | None = None

    @property
    def tree(self) -> Any:
        if self.parsed_tree is None:
            object.__setattr__(self, "parsed_tree", parse_tree(self.text, self.file))
        return self.parsed_tree

    def locate(self, loc: Sequence[str | int]) -> tuple[int, int]:
        """Where `loc` is in the text. Without a round-trip tree yet, from the C parser's marks
        (the same places, at a tenth of the cost): a snapshot that breaks a rule is not rewritten,
        so its tree would be built only to name lines."""
        if self.parsed_tree is None and self.text:
            if "_marked" not in vars(self):
                object.__setattr__(self, "_marked", _marked(self.text))
            marked: tuple[Any, store_libyaml.Marks] | None = vars(self)["_marked"]
            if marked is not None:
                return store_libyaml.locate(*marked, loc)
        return locate(self.tree, loc)


def _marked(text: str) -> tuple[Any, store_libyaml.Marks] | None:
    """The text's data with where each key and item starts, or None if the C parser does not read it."""
    marks: store_libyaml.Marks = {}
    read, data = load_data(text, max_depth=MAX_DEPTH, max_digits=MAX_INTEGER_DIGITS, date=PlainDate, marks=marks)
    return (data, marks) if read else None


def locate(tree: Any, loc: Sequence[str | int]) -> tuple[int, int]:
    """1-based line and column of the deepest node of `loc` present in `tree`."""
    node, pos = tree, (0, 0)
    for part in loc:
        if isinstance(node, CommentedMap) and part in node:
            pos = node.lc.key(part)
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
            pos = node.lc.item(part)
            node = node[part]
        else:
            break
    return pos[0] + 1, pos[1] + 1


def parse_tree(text: str, file: str) -> Any:
    """Parse YAML text into a round-trip tree; syntax errors, duplicate keys and refused
    constructs (see the module's docstring) are located."""
    if len(text) > MAX_INPUT_BYTES:
        raise input_error(file, f"larger than the {MAX_INPUT_BYTES:,} characters perfbot reads")
    run = _opener_run(text)
    if run:
        line = text.count("\n", 0, run.start()) + 1
        col = run.start() - text.rfind("\n", 0, run.start())
        raise input_error(file, f"more than {MAX_DEPTH} nested [ or {{ in a row", line, col)
    try:
        return yaml_for().load(text)
    except MarkedYAMLError as exc:
        said = (
            store_words.Plain(str(exc.problem))
            if isinstance(exc, _Refusal)
            else store_words.plain(exc.context, exc.problem)
        )
        start = exc.context_mark if said.at_start else None
        mark = start or exc.problem_mark or exc.context_mark
        if mark is None:
            raise input_error(file, said.message) from exc
        raise input_error(file, said.message, mark.line + 1, mark.column + 1) from exc
    except YAMLError as exc:
        raise input_error(file, str(exc).replace("\n", " ")) from exc


def parse_model(text: str, file: str, model: type[T]) -> Loaded[T]:
    """Parse and validate YAML text into `model`, naming file:line:col of every problem.

    Text the C parser reads (`store_libyaml`) is validated from its data, and its problems are
    located with the C parser's marks; the round-trip tree is built only for text it leaves to
    ruamel (to read it, or name where it is wrong), or later, when the file is rewritten."""
    if len(text) <= MAX_INPUT_BYTES and not _opener_run(text):
        seen: store_libyaml.Seen = []
        read, data = load_data(text, max_depth=MAX_DEPTH, max_digits=MAX_INTEGER_DIGITS, date=PlainDate, seen=seen)
        if read and isinstance(data, Mapping):
            try:
                return Loaded(model.model_validate(data), None, file, text, seen)
            except ValidationError as exc:
                marked = _marked(text)  # the same data again, with where each key and item starts
                if marked is not None:
                    raise _located(exc, file, *marked) from exc
    tree = parse_tree(text, file)
    if not isinstance(tree, Mapping):
        raise input_error(file, "expected a mapping at the top of the file", 1, 1)
    try:
        value = model.model_validate(tree)
    except ValidationError as exc:
        problems = validation_problems(
            exc, file, lambda loc: locate(tree, loc), label=lambda loc: entity_label(tree, loc)
        )
        raise InputError(sorted(problems)) from exc
    return Loaded(value, tree, file, text)


def _located(exc: ValidationError, file: str, data: Any, marks: store_libyaml.Marks) -> InputError:
    """Every problem of `exc`, found in `data` as the C parser read it, named at its mark."""
    problems = validation_problems(
        exc, file, lambda loc: store_libyaml.locate(data, marks, loc), label=lambda loc: entity_label(data, loc)
    )
    return InputError(sorted(problems))


def load_model(path: Path, model: type[T]) -> Loaded[T]:
    return parse_model(read_text(path), str(path), model)


def load_snapshot(path: Path) -> Loaded[Snapshot]:
    return load_model(path, Snapshot)


def dump_tree(tree: Any, yaml: YAML | None = None) -> str:
    """The text of a round-trip tree, written by `yaml` (by default in the store's own layout)."""
    out = io.StringIO()
    (yaml or yaml_for()).dump(tree, out)
    return out.getvalue()
