"""The one place that chooses the GitHub adapter for a run: offline over a state file, or live."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bot.context import RunContext
from bot.github.offline import OfflineGitHub
from bot.github.port import GitHubError, GitHubPort


def open_port(context: RunContext, offline: Path | None, now: dt.datetime) -> GitHubPort:
    """The offline adapter when a state file is given, else the live adapter for the context."""
    if offline is not None:
        return OfflineGitHub.open(offline, now)
    raise GitHubError("perfbot reconcile needs --offline STATE.json: the live GitHub adapter is not available yet")
