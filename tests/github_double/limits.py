"""Rate-limit accounting: every authenticated request spends one point of its resource."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

LIMIT = 5000
WINDOW = dt.timedelta(hours=1)


class RateLimits:
    def __init__(self, clock: Callable[[], dt.datetime]) -> None:
        self.clock = clock
        self.used = {"core": 0, "graphql": 0}
        self.reset_at = clock() + WINDOW

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

    def graphql(self) -> dict[str, object]:
        """The `rateLimit` object of a GraphQL query."""
        used = self.used["graphql"]
        reset = self.reset_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"cost": 1, "limit": LIMIT, "nodeCount": 0, "remaining": LIMIT - used, "resetAt": reset, "used": used}
