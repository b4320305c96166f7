"""Round-trip YAML storage, loading side: YAML text to a validated model, with located errors.

The store (this module and the other `store*` modules) is the only code that touches ruamel.
There is one way in: libyaml's C parser (`store.load_data`) builds the data the model is validated
from, and keeps where each top-level key and list item starts, so a save can find the few records
that changed without reading the rest again (`store_save.save_text`). Text the C parser may read
otherwise than ruamel is read by ruamel's round-trip loader, which also names the line and column
of whatever it refuses. Loading keeps the source text next to the validated model, and builds
the comment-preserving tree from it only when asked (to locate a problem, or for a whole round
trip).

A hand-kept snapshot gains nothing from YAML's anchors, aliases and merge keys, and they are how
a 33 KB file expands into gigabytes or a value hides behind `<<:`; they are refused, as are
nesting deeper than any snapshot needs, integers past what Python converts, and lone surrogates.

**Fast loading** (`load_data`): YAML text to plain Python data through libyaml's C parser
(`ruamel.yaml.clib`). Validating and deciding need the data, not ruamel's pure-Python round-trip
tree (comments, styles, positions), which costs ten times as much to build. This reader builds
dicts, lists and scalars straight from the C parser's events, resolving plain scalars with the
resolver the round-trip loader uses, so every value comes out equal and of the same base type (dates
stay `PlainDate`).

It also keeps, when asked, where each key and item starts (`locate_in_data`): a snapshot that
parses but breaks a rule is not rewritten, so its problems are placed from these marks, which name the same
line and column as the round-trip tree, rather than from a tree built only for that.

It is only ever a shortcut: it returns None for anything it does not accept exactly as the
round-trip loader would (a syntax error, a duplicate key, an anchor, alias, tag or merge key,
nesting past `MAX_DEPTH`, a long integer, a lone surrogate, a `%YAML` directive, a complex key,
more than one document), and the caller then parses the round-trip way, which accepts the same
texts and names the place of whatever it refuses.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.resolver import VersionedResolver

from bot.errors import InputError, input_error, validation_problems
from bot.files import MAX_INPUT_BYTES, read_text
from bot.recent import Recent
from bot.snapshot import store_words
from bot.snapshot.model import Snapshot, entity_label

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
    # What the C parser saw of the text's layout while loading it (`store.Seen`), for a rewrite.
    seen: Seen | None = None

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
            marked: tuple[Any, Marks] | None = vars(self)["_marked"]
            if marked is not None:
                return locate_in_data(*marked, loc)
        return locate(self.tree, loc)


def _marked(text: str) -> tuple[Any, Marks] | None:
    """The text's data with where each key and item starts, or None if the C parser does not read it."""
    marks: Marks = {}
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

    Text the C parser reads (`store.load_data`) is validated from its data, and its problems are
    located with the C parser's marks; the round-trip tree is built only for text it leaves to
    ruamel (to read it, or name where it is wrong), or later, when the file is rewritten."""
    if model is Snapshot:
        known = _snapshots_read.get(text)
        if known is not None:
            return cast(Loaded[T], Loaded(known[0], None, file, text, _copied(known[1])))
    if len(text) <= MAX_INPUT_BYTES and not _opener_run(text):
        seen: Seen = []
        read, data = load_data(text, max_depth=MAX_DEPTH, max_digits=MAX_INTEGER_DIGITS, date=PlainDate, seen=seen)
        if read and isinstance(data, Mapping):
            try:
                value = model.model_validate(data)
            except ValidationError as exc:
                marked = _marked(text)  # the same data again, with where each key and item starts
                if marked is not None:
                    raise _located(exc, file, *marked) from exc
            else:
                if isinstance(value, Snapshot):
                    _snapshots_read.keep(text, (value, _copied(seen)))
                return Loaded(value, None, file, text, seen)
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


# The last snapshot texts read quickly, and the models and layouts they gave. A run reads the same
# text more than once (the open PR's file, then the text it proposes, which is the PR's when
# nothing changed), and a test process the same texts over and over; reading is a pure function
# of the text, and a snapshot is frozen through and through (tuples of frozen records), so one
# model serves every reader. Only texts read without a problem are kept (`file` names only where
# a problem is); each reader gets its own `Loaded` (its tree is built for it alone) and its own
# copy of what loading saw.
_snapshots_read: Recent[str, tuple[Snapshot, Seen]] = Recent(8)


def _copied(seen: Seen) -> Seen:
    """A copy of what loading saw, down to its lists of items."""
    return [
        (key, line, column, dash, None if items is None else list(items)) for key, line, column, dash, items in seen
    ]


def _located(exc: ValidationError, file: str, data: Any, marks: Marks) -> InputError:
    """Every problem of `exc`, found in `data` as the C parser read it, named at its mark."""
    problems = validation_problems(
        exc, file, lambda loc: locate_in_data(data, marks, loc), label=lambda loc: entity_label(data, loc)
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


try:
    from _ruamel_yaml import CParser
except ImportError:  # no wheel for this platform: every load takes the round-trip path
    CParser = None

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _TIMESTAMP = _CORE + "str", _CORE + "int", _CORE + "timestamp"
_NULL, _BOOL, _FLOAT = _CORE + "null", _CORE + "bool", _CORE + "float"
# libyaml reads YAML 1.1, where NEL, LS and PS end a line; in the 1.2 the round-trip loader reads, they do not.
# Texts where libyaml is more lenient than ruamel's scanner (a comment glued to a block scalar's
# header) are left to the round-trip loader too.
_LINE_BREAKS_IN_1_1 = ("\x85", "\u2028", "\u2029")
_COMMENT_ON_HEADER = re.compile("[|>][-+0-9]*#")
_DECIMAL = re.compile("[-+]?(?:0|[1-9][0-9]*)")


# (0-based line, column) of each key or item, by the id of the dict or list that holds it.
Marks = dict[int, dict[Any, tuple[int, int]]]
# What loading saw of where the top-level values are, for a rewrite (`store_outline.top_level`):
# each top-level key with its line and column and, when its value is a block list, the column of
# its dashes and the (line, column, is a block mapping) of each item; kept only when the document's
# top is a block mapping with text keys.
Seen = list[tuple[str, int, int, int, list[tuple[int, int, bool]] | None]]


class _Refused(Exception):
    """The text is not one this reader takes; the round-trip loader decides."""


class _Builder:
    """Data from one document's events, with the round-trip loader's refusals."""

    def __init__(
        self, text: str, max_depth: int, max_digits: int, date: type[str], marks: Marks | None, seen: Seen | None
    ) -> None:
        self.parser = CParser(text)
        self.seen, self.plain = seen, True
        self.items: list[tuple[int, int, bool]] | None = None  # the items of the top-level block list being read
        # Where each key and item starts (0-based line, column), by the id of the dict or list
        # holding it: the positions the round-trip tree keeps, for locating a problem.
        self.marks = marks
        self.max_depth, self.max_digits, self.date = max_depth, max_digits, date
        self.resolver = VersionedResolver()
        # The implicit resolvers of the document's YAML version (by first character, None: any),
        # looked up once: ruamel's `resolve` works the version out again on every scalar.
        self.implicit = self.resolver.versioned_resolver
        self.tags: dict[str, str] = {}
        # The round-trip constructor turns int, float and bool text into values; it asks its
        # loader for the resolver (for the YAML version), and needs nothing else from it.
        self.constructor = RoundTripConstructor(loader=SimpleNamespace(_resolver=self.resolver))

    def document(self) -> Any:
        events = self.parser
        events.get_event()  # stream start
        if isinstance(events.peek_event(), StreamEndEvent):
            return None
        start = events.get_event()
        if not isinstance(start, DocumentStartEvent) or start.version is not None or start.tags:
            raise _Refused
        top = events.get_event()
        value = self.node(top, 1)
        events.get_event()  # document end
        if not isinstance(events.get_event(), StreamEndEvent):
            raise _Refused  # a second document
        if self.seen is not None and not (self.plain and type(top) is MappingStartEvent and not top.flow_style):
            self.seen.clear()
        return value

    def node(self, event: Any, depth: int) -> Any:
        # The hottest code of a run at scale (one call per collection, and the scalars inline in
        # `sequence` and `mapping`): each event is fetched once and handed down, event types are
        # compared exactly (the C parser makes no subclasses), marks are read only when kept, and
        # `ctag` is read rather than `tag`, a property that converts it for every scalar.
        kind = type(event)
        if kind is AliasEvent or event.anchor is not None or event.ctag is not None or depth > self.max_depth:
            raise _Refused
        if kind is ScalarEvent:
            return self.scalar(event)
        if kind is SequenceStartEvent:
            return self.sequence(depth)
        if kind is not MappingStartEvent:
            raise _Refused
        return self.mapping(depth)

    def sequence(self, depth: int) -> list[Any]:
        items: list[Any] = []
        get, marks, node, scalar = self.parser.get_event, self.marks, self.node, self.scalar
        seen = self.items if depth == 2 else None
        deep = depth >= self.max_depth
        while (kind := type(event := get())) is not SequenceEndEvent:
            if marks is not None:
                marks.setdefault(id(items), {})[len(items)] = (event.start_mark.line, event.start_mark.column)
            if seen is not None:
                mark = event.start_mark
                seen.append((mark.line, mark.column, kind is MappingStartEvent and not event.flow_style))
            if kind is ScalarEvent and event.anchor is None and event.ctag is None and not deep:
                items.append(scalar(event))
            else:
                items.append(node(event, depth + 1))
        return items

    def mapping(self, depth: int) -> dict[Any, Any]:
        mapping: dict[Any, Any] = {}
        get, marks, node, scalar = self.parser.get_event, self.marks, self.node, self.scalar
        top = depth == 1 and self.seen is not None
        deep = depth >= self.max_depth
        while (kind := type(event := get())) is not MappingEndEvent:
            if kind is not ScalarEvent:
                raise _Refused  # a complex key, or an alias as a key
            key = scalar(event) if event.anchor is None and event.ctag is None and not deep else node(event, depth + 1)
            if key in mapping:
                raise _Refused
            if marks is not None:
                marks.setdefault(id(mapping), {})[key] = (event.start_mark.line, event.start_mark.column)
            if top:
                mapping[key] = self.top_value(key, event.start_mark)
                continue
            value = get()
            if type(value) is ScalarEvent and value.anchor is None and value.ctag is None and not deep:
                mapping[key] = scalar(value)
            else:
                mapping[key] = node(value, depth + 1)
        return mapping

    def top_value(self, key: Any, mark: Any) -> Any:
        """A top-level value, with what `seen` keeps of its layout."""
        assert self.seen is not None
        event = self.parser.get_event()
        items: list[tuple[int, int, bool]] | None = None
        dash = -1
        if type(event) is SequenceStartEvent and not event.flow_style:
            items, dash = [], event.start_mark.column
            self.items = items
        value = self.node(event, 2)
        self.items = None
        self.plain = self.plain and isinstance(key, str)
        self.seen.append((str(key), mark.line, mark.column, dash, items))
        return value

    def tag(self, value: str) -> str:
        """The tag ruamel's resolver gives a plain scalar: the first implicit resolver that matches."""
        candidates = [*self.implicit.get(value[0] if value else "", ()), *self.implicit.get(None, ())]
        tag = next((str(tag) for tag, pattern in candidates if pattern.match(value)), _STR)
        self.tags[value] = tag
        return tag

    def scalar(self, event: Any) -> Any:
        value: str = event.value
        # The text has none (`load_data`), so only a double-quoted escape can make one.
        if event.style == '"' and _LONE_SURROGATE.search(value):
            raise _Refused
        if not event.implicit[0]:
            return value  # quoted or block: a string
        tag = self.tags.get(value) or self.tag(value)
        if tag == _STR:
            return value
        if tag == _INT and _DECIMAL.fullmatch(value) and len(value) <= self.max_digits:
            return int(value)  # what the constructor gives for plain decimal digits, without building a node
        if tag == _TIMESTAMP:
            return self.date(value)
        if tag == _NULL:
            return None
        node = ScalarNode(tag, value)
        if tag == _BOOL:
            return bool(self.constructor.construct_yaml_bool(node))
        if tag == _INT:
            if len(value.lstrip("+-")) > self.max_digits:
                raise _Refused
            return int(self.constructor.construct_yaml_int(node))
        if tag == _FLOAT:
            return float(self.constructor.construct_yaml_float(node))
        raise _Refused  # a merge key, `=`: the round-trip loader's business


def different_in_1_1(text: str) -> bool:
    """True when libyaml may read `text` otherwise than ruamel (one combined pattern scanned a
    2.5 MB snapshot three times slower than these). A tab is one: libyaml takes tabs around plain
    values and before comments that ruamel's scanner refuses, so a text with one is left to ruamel,
    which names where it is."""
    return "\t" in text or any(c in text for c in _LINE_BREAKS_IN_1_1) or _COMMENT_ON_HEADER.search(text) is not None


def has_lone_surrogate(text: str) -> bool:
    """UTF-8 cannot encode a lone surrogate and encodes everything else: faster than a regex."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def c_events(text: str) -> Callable[[], Any] | None:
    """The C parser's events of `text`, one per call; None where it may read the text otherwise
    than ruamel (see `different_in_1_1`), or is not installed."""
    if CParser is None or different_in_1_1(text) or has_lone_surrogate(text):
        return None
    get: Callable[[], Any] = CParser(text).get_event
    return get


def load_data(
    text: str,
    *,
    max_depth: int,
    max_digits: int,
    date: type[str],
    marks: Marks | None = None,
    seen: Seen | None = None,
) -> tuple[bool, Any]:
    """(True, data) when the C parser reads `text` the way the round-trip loader would;
    (False, None) when the round-trip loader must decide (it also locates what it refuses).
    Given `marks`, it is filled with where each key and item of `data` starts, as the round-trip
    tree would place them (`locate_in_data`); given `seen`, with where the top-level values are (`Seen`)."""
    if CParser is None or different_in_1_1(text) or has_lone_surrogate(text):
        return False, None
    try:
        return True, _Builder(text, max_depth, max_digits, date, marks, seen).document()
    except (_Refused, YAMLError):
        return False, None


def locate_in_data(data: Any, marks: Marks, loc: Sequence[str | int]) -> tuple[int, int]:
    """1-based line and column of the deepest node of `loc` present in `data`, read with `marks`:
    the same place the round-trip tree names (`store.locate`), at a tenth of the cost."""
    node, pos = data, (0, 0)
    for part in loc:
        if isinstance(node, dict):
            present = part in node
        else:
            present = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not present:
            break
        pos = marks[id(node)][part]
        node = node[part]
    return pos[0] + 1, pos[1] + 1
