"""Rate-limit accounting: every authenticated REST request spends one point of its resource, a
GraphQL query its cost by GitHub's formula (`graphql_cost.py`); and, when switched on, GitHub's
secondary limits on content-creating requests (`ContentLimits`)."""

from __future__ import annotations

import datetime as dt
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.github_double.graphql_cost import Cost
from tests.github_double.protocol import HttpError, Request, error_body

LIMIT = 5000
WINDOW = dt.timedelta(hours=1)


class RateLimits:
    def __init__(self, clock: Callable[[], dt.datetime]) -> None:
        self.clock = clock
        self.used = {"core": 0, "graphql": 0}
        self.reset_at = clock() + WINDOW
        self.cost = Cost()

    def spend(self, resource: str) -> None:
        if self.clock() >= self.reset_at:
            self.used = dict.fromkeys(self.used, 0)
            self.reset_at = self.clock() + WINDOW
        self.used[resource] += 1

    def headers(self, resource: str) -> dict[str, str]:
        used = self.used[resource]
        return {
            "x-ratelimit-limit": str(LIMIT),
            "x-ratelimit-remaining": str(max(LIMIT - used, 0)),
            "x-ratelimit-reset": str(int(self.reset_at.timestamp())),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": resource,
        }

    def charge(self, cost: Cost) -> None:
        """A GraphQL query spends its cost in points (one was spent when it came in)."""
        self.cost = cost
        self.used["graphql"] += cost.points - 1

    def graphql(self) -> dict[str, object]:
        """The `rateLimit` object of a GraphQL query: what this one cost, and what is left."""
        used = self.used["graphql"]
        reset = self.reset_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        points, nodes = self.cost.points, self.cost.nodes
        return {
            "cost": points,
            "limit": LIMIT,
            "nodeCount": nodes,
            "remaining": LIMIT - used,
            "resetAt": reset,
            "used": used,
        }


# GitHub's secondary limits on content creation ("Rate limits for the REST API", "About secondary
# rate limits"): in general no more than 80 content-generating requests per minute and no more
# than 500 per hour. Windows are sliding here, the strictest reading of "per minute" and "per hour".
CONTENT_WINDOWS = ((dt.timedelta(minutes=1), 80), (dt.timedelta(hours=1), 500))
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID."
)
SECONDARY_DOCS = (
    "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)
# The ways GitHub documents answering a request over a secondary limit: 403 or 429 with
# `retry-after`; with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`; or with neither header
# (then a client waits at least a minute).
ANSWERS = ("retry-after", "reset", "no header")


@dataclass
class Refusal:
    """A content-creating request refused, and the earliest time GitHub said to send again."""

    at: dt.datetime
    again_at: dt.datetime


@dataclass
class ContentLimits:
    """Content-creating requests (REST writes, GraphQL mutations) counted against GitHub's
    secondary limits; off until `on` is set (a test whose clock never moves would reach them)."""

    clock: Callable[[], dt.datetime]
    on: bool = False
    status: int = 403
    answer: str = "retry-after"
    sent: deque[dt.datetime] = field(default_factory=deque)
    refusals: list[Refusal] = field(default_factory=list)
    # Requests sent before the wait a refusal named had passed: a client that did not wait it out.
    early: int = 0

    def admit(self) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        """None when the request may create content (it is counted), else GitHub's refusal:
        status, body and headers. A refused request is not applied and not counted."""
        if not self.on:
            return None
        now = self.clock()
        if any(now < refusal.again_at for refusal in self.refusals):
            self.early += 1
        while self.sent and now - self.sent[0] >= CONTENT_WINDOWS[-1][0]:
            self.sent.popleft()
        free_at = self._free_at(now)
        if free_at is None:
            self.sent.append(now)
            return None
        return self._refuse(now, free_at)

    def _free_at(self, now: dt.datetime) -> dt.datetime | None:
        """When a request would fit every window again; None when it fits now."""
        latest: dt.datetime | None = None
        for window, most in CONTENT_WINDOWS:
            inside = [moment for moment in self.sent if now - moment < window]
            if len(inside) >= most:
                free = inside[len(inside) - most] + window
                latest = free if latest is None else max(latest, free)
        return latest

    def _refuse(self, now: dt.datetime, free_at: dt.datetime) -> tuple[int, dict[str, Any], dict[str, str]]:
        seconds = math.ceil((free_at - now).total_seconds())
        headers: dict[str, str] = {}
        if self.answer == "retry-after":
            headers = {"retry-after": str(seconds)}
        elif self.answer == "reset":
            reset = math.ceil(free_at.timestamp())
            headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
        else:
            seconds = max(seconds, 60)  # GitHub: "wait for at least one minute before retrying"
        self.refusals.append(Refusal(now, now + dt.timedelta(seconds=seconds)))
        return self.status, error_body(self.status, SECONDARY_MESSAGE, SECONDARY_DOCS), headers


def creates_content(request: Request, kind: str) -> bool:
    """A REST write, or a GraphQL mutation: what the content limits count."""
    if kind != "graphql":
        return kind == "rest_write"
    try:
        query = request.object().get("query", "")
    except HttpError:
        return False
    return isinstance(query, str) and query.lstrip().startswith("mutation")
