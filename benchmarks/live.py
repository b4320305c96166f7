"""The GitHub double on a loopback port, for the benchmark's live cases.

A live run imports githubkit and httpx and reads GitHub in one GraphQL query, so it costs more
than an offline run over the same world: the benchmark times it as a fresh `python -m bot` that
reaches the double over HTTP, as the Action reaches GitHub. The double serves from this process's
threads while the child is timed by its own CPU time, so the double's work is not counted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.worlds import NOW
from tests.github_double import DEFAULT_TOKEN, GitHubDouble
from tests.github_double.server import serve


@contextmanager
def double_on(state: Path, root: Path) -> Iterator[dict[str, str]]:
    """A double serving `state` (the default branch's files are `root`'s), with its clock at
    `worlds.NOW`; yields the environment that points a live run at it."""
    now = dt.datetime.fromisoformat(NOW)
    double = GitHubDouble(state_path=state, repo_dir=root, clock=lambda: now)
    server = serve(double, 0)
    double.api_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield {
            "GITHUB_TOKEN": DEFAULT_TOKEN,
            "GITHUB_REPOSITORY": double.world.repository,
            "GITHUB_API_URL": double.api_url,
        }
    finally:
        server.shutdown()
        server.server_close()
