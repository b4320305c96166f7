"""Upstream's JSON as a test writes it (two-space indent, as Go's encoder does), through a reader."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from bot.errors import InputError

T = TypeVar("T")
Reader = Callable[[Any, str, str], T]


def through(reader: Reader[T], data: Any, file: str) -> T:
    text = json.dumps(data, indent=2)
    return reader(json.loads(text), text, file)


def refusals(reader: Reader[Any], data: Any, file: str) -> list[str]:
    """Each problem the reader refuses `data` with, as printed."""
    with pytest.raises(InputError) as error:
        through(reader, data, file)
    return [str(p) for p in error.value.problems]
