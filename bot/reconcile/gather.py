"""Gather: read every input a run decides on, validated, before anything is decided."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bot.config import Settings
from bot.errors import InputError, Problem
from bot.evidence.leases import LeaseReadback, parse_leases
from bot.files import read_text
from bot.github.observed import Observed
from bot.reconcile.plan import Inputs
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded, load_snapshot, parse_model
from bot.snapshot.validation import validate


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


def leases(path: Path) -> LeaseReadback:
    return parse_leases(read_text(path), str(path))


def committed_files(settings: Settings) -> dict[str, str]:
    """The default branch's snapshot and page, keyed by repository path (a missing page is "")."""
    page = settings.page_path
    return {
        settings.config.snapshot: read_text(settings.snapshot_path),
        settings.config.page: read_text(page) if page.exists() else "",
    }


def inputs(settings: Settings, observed: Observed, now: dt.datetime, leases_path: Path | None = None) -> Inputs:
    """Everything a run decides on, read from the repository and the given observations (the
    lease readback first: it is the cheaper to refuse)."""
    readback = leases(leases_path or settings.leases_path)
    return Inputs(
        snapshot=snapshot(settings),
        snapshot_path=settings.config.snapshot,
        page_path=settings.config.page,
        committed=committed_files(settings),
        readback=readback,
        observed=observed,
        config=settings.config,
        renderer=Renderer.from_directory(settings.templates_path),
        now=now,
    )
