"""Request accounting and pacing at the HTTP layer (httpx event hooks): what a run asked of GitHub.

Every request is counted as it is sent, retries included, as `graphql`, `rest_read` or
`rest_write`, with the points GitHub charged for the GraphQL ones (`rateLimit.cost`). Writes
are spaced at least a second apart (GitHub's REST docs, best practices: "wait at least one
second between each" write), and every content-creating request (a REST write, a GraphQL
mutation) is paced within GitHub's secondary limits (`pacing.py`). The `Date` of each GraphQL
answer is kept: GitHub's own clock, which dates the observation cache's watermark (never the
local clock, which may be skewed).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from bot.github.live.pacing import Pacer

WRITE_SPACING_SECONDS = 1.0


def kind_of(request: httpx.Request) -> str:
    """`graphql` (perfbot only queries there), `rest_read` (GET) or `rest_write` (anything else)."""
    if request.url.path.endswith("/graphql"):
        return "graphql"
    return "rest_read" if request.method in ("GET", "HEAD") else "rest_write"


def is_read(request: httpx.Request) -> bool:
    return kind_of(request) != "rest_write"


def creates_content(request: httpx.Request) -> bool:
    """A REST write, or a GraphQL request that is a mutation: what GitHub's content limits count."""
    kind = kind_of(request)
    if kind != "graphql":
        return kind == "rest_write"
    try:
        query = json.loads(request.content).get("query", "")
    except (ValueError, AttributeError, httpx.RequestNotRead):
        return False
    return isinstance(query, str) and query.lstrip().startswith("mutation")


@dataclass
class Traffic:
    """Counts requests by kind and keeps writes apart; the clock and the wait are arguments."""

    monotonic: Callable[[], float]
    wait: Callable[[float], None]
    pacer: Pacer | None = None
    counts: dict[str, int] = field(default_factory=dict)
    last_write: float | None = None
    # GitHub's time (the `Date` header) of each successful GraphQL answer, in order.
    graphql_dates: list[dt.datetime] = field(default_factory=list)
    graphql_points: int = 0

    def on_request(self, request: httpx.Request) -> None:
        kind = kind_of(request)
        if kind == "rest_write":
            if self.last_write is not None:
                gap = self.monotonic() - self.last_write
                if gap < WRITE_SPACING_SECONDS:
                    self.wait(WRITE_SPACING_SECONDS - gap)
            self.last_write = self.monotonic()
        if self.pacer is not None and creates_content(request):
            self.pacer.before_request()
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def on_response(self, response: httpx.Response) -> None:
        if response.status_code == 200 and kind_of(response.request) == "graphql":
            moment = server_time(response.headers.get("date", ""))
            if moment is not None:
                self.graphql_dates.append(moment)

    def cost(self, points: object) -> None:
        """A GraphQL answer's `rateLimit.cost`: the points GitHub charged for the query."""
        if isinstance(points, int) and not isinstance(points, bool):
            self.graphql_points += points

    def summary(self) -> dict[str, int]:
        """Every kind, zero included, in a fixed order, and the GraphQL points spent (the plan JSON's `api`)."""
        counts = {kind: self.counts.get(kind, 0) for kind in ("graphql", "rest_read", "rest_write")}
        return counts | {"graphql_points": self.graphql_points}


def server_time(header: str) -> dt.datetime | None:
    """An HTTP `Date` header (RFC 9110's IMF-fixdate) as an aware UTC time; None when absent or bad."""
    try:
        moment = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return None
    return moment.astimezone(dt.UTC) if moment.tzinfo is not None else None
