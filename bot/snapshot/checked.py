"""The snapshot as a run reads it: loaded, and checked against every invariant, every problem
located. Apart from `bot/reconcile/gather.py`, so `perfbot validate` imports no reconcile module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.errors import InputError, Problem
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded, load_snapshot, parse_model
from bot.snapshot.validation import validate

if TYPE_CHECKING:
    from bot.config import Settings


def checked(loaded: Loaded[Snapshot]) -> Loaded[Snapshot]:
    """The loaded snapshot if it satisfies every invariant; else every problem, located."""
    findings = validate(loaded.model)
    if findings:
        problems = [Problem(loaded.file, *loaded.locate(f.loc), f.message) for f in findings]
        raise InputError(sorted(problems))
    return loaded


def snapshot(settings: Settings) -> Loaded[Snapshot]:
    return checked(load_snapshot(settings.snapshot_path))


def snapshot_from_text(text: str, file: str) -> Loaded[Snapshot]:
    return checked(parse_model(text, file, Snapshot))
