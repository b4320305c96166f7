"""Request accounting and pacing at the HTTP layer (httpx event hooks): what a run asked of GitHub.

Every request is counted as it is sent, retries included, as `graphql`, `rest_read` or
`rest_write`. Writes are spaced at least a second apart: GitHub's secondary limits punish bursts
of content-creating requests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

WRITE_SPACING_SECONDS = 1.0


def kind_of(request: httpx.Request) -> str:
    """`graphql` (perfbot only queries there), `rest_read` (GET) or `rest_write` (anything else)."""
    if request.url.path.endswith("/graphql"):
        return "graphql"
    return "rest_read" if request.method in ("GET", "HEAD") else "rest_write"


def is_read(request: httpx.Request) -> bool:
    return kind_of(request) != "rest_write"


@dataclass
class Traffic:
    """Counts requests by kind and keeps writes apart; the clock and the wait are arguments."""

    monotonic: Callable[[], float]
    wait: Callable[[float], None]
    counts: dict[str, int] = field(default_factory=dict)
    last_write: float | None = None

    def on_request(self, request: httpx.Request) -> None:
        kind = kind_of(request)
        if kind == "rest_write":
            if self.last_write is not None:
                gap = self.monotonic() - self.last_write
                if gap < WRITE_SPACING_SECONDS:
                    self.wait(WRITE_SPACING_SECONDS - gap)
            self.last_write = self.monotonic()
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def summary(self) -> dict[str, int]:
        """Every kind, zero included, in a fixed order (the plan JSON's `api`)."""
        return {kind: self.counts.get(kind, 0) for kind in ("graphql", "rest_read", "rest_write")}
