"""JSON from outside (the state file, event payloads, lease arrays and journal lines), read with bounds.

The standard reader recurses once per nesting level and converts integers of any length, so
`[` × 100,000 or a 5,000-digit number ends in `RecursionError` or `ValueError`. These are checked
first, in one pass over the text, and reported with their line and column; duplicate keys (which
the standard reader silently resolves to the last one) and `NaN`/`Infinity` are refused too. A
lone UTF-16 surrogate escape cannot be encoded on output, so it is read as U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.errors import input_error

MAX_DEPTH = 64
MAX_INTEGER_DIGITS = 40

# Strings are matched whole, so brackets and digits inside them are skipped; a number token that
# has neither a fraction nor an exponent is an integer.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?', re.DOTALL)
_KEY = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(?=\s*:)|[\[\]{}]', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# An escaped backslash is consumed first, so `\\ud800` (a backslash, then text) is left alone.
_ESCAPES = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})|\\\\"
)


class JsonProblem(Exception):
    """Why a JSON text is refused, and where (1-based line and column)."""

    def __init__(self, reason: str, line: int, col: int, *, syntax: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.line, self.col, self.syntax = reason, line, col, syntax


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def loads(text: str) -> Any:
    """The value in `text`, or `JsonProblem` naming the first reason it is refused.

    The C reader goes first and the value it gives is checked against the bounds; only a text
    it refuses, or one past the bounds, is walked token by token (in Python, seconds at 10 MB),
    which names the first bound it passes before any other problem."""
    original = text
    if _SURROGATE_ESCAPE.search(text):
        text = _ESCAPES.sub(lambda m: "\\ufffd" if m.group(1) else m.group(0), text)
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant)
    except (ValueError, _DuplicateKey, RecursionError):
        _walk_bounds(original)
        return _reread(text)
    if not _within_bounds(value):
        _walk_bounds(original)
    return value


def _reread(text: str) -> Any:
    """The reason the C reader refuses `text` (within bounds), as a `JsonProblem`."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise JsonProblem(exc.msg, exc.lineno, exc.colno, syntax=True) from exc
    except _DuplicateKey as exc:
        line, col = _position(text, _duplicate_at(text, exc.key))
        raise JsonProblem(f"duplicate key {json.dumps(exc.key)[:80]}", line, col) from exc
    except ValueError as exc:  # NaN or Infinity, refused by `_refuse_constant`
        raise JsonProblem(str(exc), 1, 1) from exc


def parse_object(text: str, file: str, what: str) -> dict[str, Any]:
    """The JSON object in `text`; bad JSON or another type is an error naming file, line and column."""
    data = parse_value(text, file, what)
    if not isinstance(data, dict):
        raise input_error(file, f"{what} is not a JSON object", 1, 1)
    return data


def parse_value(text: str, file: str, what: str, syntax_label: str | None = None) -> Any:
    """Any JSON value in `text`; `syntax_label` words a syntax error (default: `<what> is not valid JSON`)."""
    try:
        return loads(text)
    except JsonProblem as problem:
        label = (syntax_label or f"{what} is not valid JSON") if problem.syntax else what
        raise input_error(file, f"{label}: {problem.reason}", problem.line, problem.col) from problem


def _within_bounds(value: Any) -> bool:
    """No container nested deeper than MAX_DEPTH and no integer longer than MAX_INTEGER_DIGITS:
    what `_walk_bounds` checks in the text, checked in the value it reads as."""
    limit = 10**MAX_INTEGER_DIGITS
    if type(value) is int and not -limit < value < limit:
        return False
    pending: list[tuple[Any, int]] = [(value, 1)] if type(value) in _CONTAINERS else []
    while pending:
        node, depth = pending.pop()
        items = node.values() if type(node) is dict else node
        if depth > MAX_DEPTH:
            return False
        for item in items:
            kind = type(item)
            if kind is int:
                if not -limit < item < limit:
                    return False
            elif kind in _CONTAINERS:
                pending.append((item, depth + 1))
    return True


# What the C reader makes of an object and an array (exactly these types: no hook makes others).
_CONTAINERS = frozenset({dict, list})


def _walk_bounds(text: str) -> None:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JsonProblem(f"nested deeper than {MAX_DEPTH} levels", *_position(text, match.start()))
        elif token in "]}":
            depth -= 1
        elif token[0] != '"' and not any(c in token for c in ".eE"):
            digits = len(token.lstrip("-"))
            if digits > MAX_INTEGER_DIGITS:
                raise JsonProblem(
                    f"an integer of {digits} digits (at most {MAX_INTEGER_DIGITS})", *_position(text, match.start())
                )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) == len(pairs):  # the usual object, built in C; else the first key that repeats is named
        return data
    data = {}
    for key, value in pairs:
        if key in data:
            raise _DuplicateKey(key)
        data[key] = value
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _duplicate_at(text: str, key: str) -> int:
    """Offset of the first key that repeats within its object (only called once one is known)."""
    objects: list[set[str] | None] = []
    for match in _KEY.finditer(text):
        token = match.group()
        if token in "[{":
            objects.append(set() if token == "{" else None)
        elif token in "]}":
            if objects:
                objects.pop()
        elif objects and objects[-1] is not None:
            name = json.loads(token)
            if name in objects[-1] and name == key:
                return match.start()
            objects[-1].add(name)
    return 0


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
