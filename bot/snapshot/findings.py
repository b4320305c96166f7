"""A validation finding: where in the snapshot (a key path) and what is wrong."""

from __future__ import annotations

from typing import NamedTuple


class Finding(NamedTuple):
    loc: tuple[str | int, ...]
    message: str
