"""The one place that chooses the GitHub adapter for a run: offline over a state file, or live."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from bot.context import RunContext
from bot.github.offline import OfflineGitHub
from bot.github.port import GitHubPort, ReadbackPublisher, ReadScope


@contextmanager
def open_port(
    context: RunContext,
    offline: Path | None,
    now: dt.datetime,
    scope: ReadScope,
    sent: Sequence[dt.datetime] = (),
) -> Iterator[GitHubPort]:
    """The offline adapter when a state file is given (its writes journalled and folded into the
    file when the run ends), else the live adapter for the context, open for the run (one HTTP
    client, closed when the run ends), pacing its writes on from those earlier runs `sent`."""
    if offline is not None:
        github = OfflineGitHub.open(offline, now, scope.branch_files, journal=True)
        yield github
        # Not reached when the run raised: the journal keeps the writes it made for the next reader.
        github.fold()
        return
    # githubkit takes ~0.3 s to import: only a live run pays for it.
    from bot.github.live.adapter import open_live

    with open_live(context, scope, now, sent=sent) as port:
        yield port


@contextmanager
def open_publisher(context: RunContext, offline: Path | None, now: dt.datetime) -> Iterator[ReadbackPublisher]:
    """Where `publish-leases` writes: the state file, or the repository through the live API."""
    if offline is not None:
        yield OfflineGitHub.open(offline, now)
        return
    from bot.github.live.publish import open_live_publisher

    with open_live_publisher(context, now) as publisher:
        yield publisher
