"""Rate-limit accounting: every authenticated REST request spends one point of its resource, a
GraphQL query its cost by GitHub's formula (`graphql_cost.py`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from tests.github_double.graphql_cost import Cost

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
