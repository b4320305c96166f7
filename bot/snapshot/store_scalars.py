"""Round-trip storage, one value: the scalar written back for a changed leaf, in a style that carries it.

A value keeps the style it was written in (plain, quoted, literal, folded) when that style can
carry the new text unchanged; otherwise it is double-quoted, the one style whose escapes carry
any text. Part of the store: only `store*.py` touches ruamel.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from typing import Any

from ruamel.yaml.scalarstring import DoubleQuotedScalarString, FoldedScalarString, LiteralScalarString, ScalarString

from bot.snapshot.store import PlainDate


# Anything but YAML's printable characters, and the ones it reads as line breaks (or folds into
# spaces) in other styles: only a double-quoted scalar, with escapes, carries them unchanged.
# Compiled on first use (it takes milliseconds): most runs write no snapshot value.
@cache
def _needs_escapes() -> re.Pattern[str]:
    return re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


def needs_escapes(value: str) -> bool:
    """Whether only a double-quoted scalar, with escapes, carries `value` unchanged."""
    return _needs_escapes().search(value) is not None


def text_scalar(value: str) -> str:
    """A new text value: plain (ruamel quotes it if it must), or double-quoted when only escapes carry it."""
    if needs_escapes(value):
        quoted: str = DoubleQuotedScalarString(value)
        return quoted
    return value


def _styled(old: ScalarString, new: str) -> str:
    """`new` in the style `old` was written in, where that style can carry it; else double-quoted."""
    block = isinstance(old, LiteralScalarString | FoldedScalarString)
    if _needs_escapes().search(new) or (block and not _block_safe(new)):
        quoted: str = DoubleQuotedScalarString(new)
        return quoted
    restyled: str = type(old)(new)
    return restyled


def _block_safe(text: str) -> bool:
    """Text a block scalar gives back unchanged: one line, no edge spaces (folding and chomping eat them)."""
    return bool(text) and "\n" not in text and text == text.strip(" ")


def scalar(old: Any, new: Any) -> Any:
    """The node for `new` where the tree held `old`: `old` itself when unchanged, else in its style if it can."""
    if isinstance(new, str) and not isinstance(old, str):
        return text_scalar(new)
    if isinstance(new, dt.date):
        return old if isinstance(old, str) and old == new.isoformat() else PlainDate(new.isoformat())
    if type(old) is not type(new) and not (isinstance(old, str) and isinstance(new, str)):
        return new
    if old == new:
        return old
    if isinstance(old, ScalarString) and isinstance(new, str):
        return _styled(old, new)
    return text_scalar(new) if isinstance(new, str) else new
