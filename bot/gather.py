"""Gather: read every input a run decides on, validated, before anything is decided."""

from __future__ import annotations

from bot.config import Settings
from bot.errors import InputError, Problem
from bot.snapshot import Snapshot
from bot.store import Loaded, load_snapshot, parse_model
from bot.validation import validate


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
