"""JSON written for people to read: exactly the text of `json.dumps(value, indent=2)`, made faster.

The standard library writes indented JSON with its Python encoder, a chain of generators that
yields every bracket, key and value on its own (its C encoder writes only the compact form). The
offline state file is written so at the end of every run: at 10,000 comments that took about a
twentieth of the run. `indented` writes the same text in one recursive pass, each string escaped
by the standard library's own C function, and hands any value it does not know exactly (a key
that is not a string, a subclass, a circle) to `json.dumps` itself, so the text never differs.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

_INDENT = "  "
_CONSTANTS = {True: "true", False: "false", None: "null"}


class _Unknown(Exception):
    """A value whose text `json.dumps` decides on its own terms."""


def indented(value: Any) -> str:
    """`json.dumps(value, indent=2)`: ASCII escapes, keys in their order, `NaN` and `Infinity` as
    the standard library writes them."""
    parts: list[str] = []
    try:
        _write(value, "\n", parts)
    except (_Unknown, RecursionError):
        return json.dumps(value, indent=2)
    return "".join(parts)


def _write(value: Any, newline: str, parts: list[str]) -> None:
    """`value` appended to `parts`; `newline` is a line end and the indent of the line it is on."""
    kind = type(value)
    if kind is str:
        parts.append(encode_basestring_ascii(value))
    elif kind is dict:
        _write_object(value, newline, parts)
    elif kind is list or kind is tuple:
        _write_array(value, newline, parts)
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is bool or value is None:
        parts.append(_CONSTANTS[value])
    elif kind is float:
        parts.append(_float(value))
    else:
        raise _Unknown


def _write_object(value: dict[Any, Any], newline: str, parts: list[str]) -> None:
    if not value:
        parts.append("{}")
        return
    inner = newline + _INDENT
    separator = "{" + inner
    for key, item in value.items():
        if type(key) is not str:
            raise _Unknown
        if type(item) is str:  # most values: written here, without a call
            parts.append(separator + encode_basestring_ascii(key) + ": " + encode_basestring_ascii(item))
        else:
            parts.append(separator + encode_basestring_ascii(key) + ": ")
            _write(item, inner, parts)
        separator = "," + inner
    parts.append(newline + "}")


def _write_array(value: list[Any] | tuple[Any, ...], newline: str, parts: list[str]) -> None:
    if not value:
        parts.append("[]")
        return
    inner = newline + _INDENT
    separator = "[" + inner
    for item in value:
        parts.append(separator)
        _write(item, inner, parts)
        separator = "," + inner
    parts.append(newline + "]")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)
