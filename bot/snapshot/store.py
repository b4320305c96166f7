"""Round-trip YAML storage, loading side: YAML text to a validated model, with located errors.

The store (this module and `store_rewrite`) is the only code that touches ruamel. Loading keeps
the comment-preserving tree next to the validated model, so errors name file:line:col and a
save can write only what changed (`store_rewrite.save_text`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.representer import RoundTripRepresenter

from bot.errors import InputError, input_error, validation_problems
from bot.files import read_text
from bot.snapshot.model import Snapshot

T = TypeVar("T", bound=BaseModel)
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


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


def _yaml() -> YAML:
    yaml = YAML()
    yaml.Constructor = _Constructor
    yaml.Representer = _Representer
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    yaml.allow_unicode = True
    return yaml


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """A validated model with the tree and file name it came from."""

    model: T
    tree: Any
    file: str
    text: str = ""

    def locate(self, loc: Sequence[str | int]) -> tuple[int, int]:
        return locate(self.tree, loc)


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
    """Parse YAML text into a round-trip tree; syntax errors and duplicate keys are located."""
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(x) for x in (exc.context, exc.problem) if x) or str(exc)
        message = message.replace("\n", " ")
        if mark is None:
            raise input_error(file, message) from exc
        raise input_error(file, message, mark.line + 1, mark.column + 1) from exc
    except YAMLError as exc:
        raise input_error(file, str(exc).replace("\n", " ")) from exc


def parse_model(text: str, file: str, model: type[T]) -> Loaded[T]:
    """Parse and validate YAML text into `model`, naming file:line:col of every problem."""
    tree = parse_tree(text, file)
    if not isinstance(tree, Mapping):
        raise input_error(file, "expected a mapping at the top of the file", 1, 1)
    try:
        value = model.model_validate(tree)
    except ValidationError as exc:
        raise InputError(sorted(validation_problems(exc, file, lambda loc: locate(tree, loc)))) from exc
    return Loaded(value, tree, file, text)


def load_model(path: Path, model: type[T]) -> Loaded[T]:
    return parse_model(read_text(path), str(path), model)


def load_snapshot(path: Path) -> Loaded[Snapshot]:
    return load_model(path, Snapshot)


def dump_tree(tree: Any) -> str:
    out = io.StringIO()
    _yaml().dump(tree, out)
    return out.getvalue()
