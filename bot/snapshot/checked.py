"""The snapshot as a run reads it: loaded, and checked against every invariant, every problem
located. Apart from `bot/reconcile/gather.py`, so `perfbot validate` imports no reconcile module."""

from __future__ import annotations

from bot.errors import InputError, Problem
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded, parse_model
from bot.snapshot.validation import own_repository_findings, validate


def checked(loaded: Loaded[Snapshot]) -> Loaded[Snapshot]:
    """The loaded snapshot if it satisfies every invariant; else every problem, located."""
    findings = validate(loaded.model)
    if findings:
        problems = [Problem(loaded.file, *loaded.locate(f.loc), f.message) for f in findings]
        raise InputError(sorted(problems))
    return loaded


def named_from(loaded: Loaded[Snapshot], repository: str) -> Loaded[Snapshot]:
    """The loaded snapshot if it names no issue of `repository`, the bot's own, as another
    repository's; else every such place, located."""
    findings = own_repository_findings(loaded.model, repository)
    if findings:
        raise InputError(sorted(Problem(loaded.file, *loaded.locate(f.loc), f.message) for f in findings))
    return loaded


def checked_text(text: str, file: str) -> Loaded[Snapshot]:
    return checked(parse_model(text, file, Snapshot))
