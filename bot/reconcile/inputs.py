"""What one run decides on: the gathered inputs of `decide`, in a module of their own so that
gathering, deciding and the views of a decision (`view`) can all name them without importing
each other."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from bot.config import BotConfig
from bot.evidence.leases import LeaseReadback
from bot.github.actions import TipReport
from bot.github.observed import Observed
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded


class Told(NamedTuple):
    """What perfbot last told people beyond the default branch's record: the states its own open
    regeneration PR records (each packet's state and `state_revision`), and a key naming that
    record (the PR and its snapshot's text), so a ready episode the PR opened is told once."""

    states: dict[str, tuple[str, int]]
    key: str


class Inputs(NamedTuple):
    """Everything one run decides on (the default branch's files, leases, GitHub, the clock)."""

    snapshot: Loaded[Snapshot]
    snapshot_path: str
    page_path: str
    committed: dict[str, str]
    readback: LeaseReadback
    observed: Observed
    config: BotConfig
    renderer: Renderer
    now: dt.datetime
    # The default branch's tip, when its files (not the local checkout's) were decided on.
    decided_on: TipReport | None = None
    # The run's write budget (`--max-writes`); None plans every write for this run.
    max_writes: int | None = None
    # The states perfbot's own open regeneration PR records (None: no such PR, or one it leaves).
    told: Told | None = None
