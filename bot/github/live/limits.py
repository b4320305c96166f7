"""GitHub's rate limits as they really arrive, and how long one run may wait them out.

GitHub refuses a rate-limited request without applying it, so it is always safe to send again.
It says so in several shapes (REST docs, "Rate limits for the REST API"):

- a primary limit: 403 or 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
  (githubkit raises `PrimaryRateLimitExceeded` with the wait until the reset);
- a secondary limit with `retry-after` (githubkit raises `SecondaryRateLimitExceeded`);
- a secondary limit with neither header: 403 whose message names the secondary limit, or a
  bare 429. GitHub then asks for at least a minute, and longer on each repeat; githubkit sees a
  plain `RequestFailed`, which without this module reads as a refused token;
- GraphQL's secondary limit as HTTP 200 whose error says "secondary rate limit" (GraphQL docs,
  "Rate limits and query limits for the GraphQL API", "Exceeding the rate limit": "the response
  status will be `200` or `403`", honour `retry-after`, else `x-ratelimit-reset` when
  `x-ratelimit-remaining` is 0, else at least a minute, longer on each repeat). The error's
  `type` is not documented, so its message is read. githubkit reads such an answer as a plain
  `GraphQLFailed` after its retry loop; the client raises `GraphQLSecondaryLimit` inside it instead
  (`client.CheckedGitHub`), so the retry policy waits it out like any other limit.

One run waits at most `BUDGET_SECONDS` in all; a limit that needs more stops the run with the
time to run it again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from githubkit import Response
from githubkit.exception import GitHubException, RateLimitExceeded, RequestFailed, SecondaryRateLimitExceeded
from githubkit.graphql import GraphQLResponse

from bot.github.live.bodies import error_body

# The first wait for a secondary limit that names none; each repeat in the run doubles it.
SECONDARY_FIRST_WAIT = dt.timedelta(seconds=60)
# All the waiting one run may do for rate limits: a scheduled run that sleeps longer than this
# spends Actions minutes that the next run would spend better.
BUDGET_SECONDS = 600.0


@dataclass(frozen=True)
class Limited:
    """A rate-limited request: the wait GitHub asked for (None when it named none)."""

    wait: dt.timedelta | None
    secondary: bool


class GraphQLSecondaryLimit(SecondaryRateLimitExceeded):
    """A GraphQL answer of 200 whose errors say a secondary limit was hit; `named` when GitHub
    named the wait (`retry-after`, or `x-ratelimit-reset` with nothing remaining)."""

    def __init__(self, response: Response[Any], retry_after: dt.timedelta) -> None:
        super().__init__(response, retry_after)
        headers = response.headers
        self.named = "retry-after" in headers or headers.get("x-ratelimit-remaining") == "0"


def graphql_says_secondary(answer: GraphQLResponse) -> bool:
    """Whether a GraphQL answer's errors say that a secondary rate limit refused the query."""
    return any(_names_secondary(error.message) for error in answer.errors or [])


def _names_secondary(said: object) -> bool:
    return isinstance(said, str) and ("secondary rate limit" in said.lower() or "secondary-rate-limit" in said)


def _says_secondary(exc: RequestFailed) -> bool:
    body = error_body(exc.response.raw_response)
    return any(_names_secondary(body.get(key)) for key in ("message", "documentation_url"))


def limited(exc: GitHubException) -> Limited | None:
    """The rate limit this failure is, or None when it is not one."""
    if isinstance(exc, GraphQLSecondaryLimit):
        return Limited(exc.retry_after if exc.named else None, secondary=True)
    if isinstance(exc, RateLimitExceeded):
        secondary = "retry-after" in exc.response.headers or _says_secondary(exc)
        return Limited(exc.retry_after, secondary)
    if isinstance(exc, RequestFailed):
        code = exc.response.status_code
        if code == 429 or (code == 403 and _says_secondary(exc)):
            return Limited(None, secondary=True)
    return None


@dataclass
class LimitBudget:
    """The run's waiting for rate limits: how much it has waited, and how often without a named wait."""

    waited: float = 0.0
    unnamed: int = 0

    def wait_for(self, limit: Limited) -> dt.timedelta:
        """The wait this limit needs: GitHub's, else a minute doubled for each earlier unnamed one."""
        if limit.wait is not None:
            return limit.wait
        return SECONDARY_FIRST_WAIT * (1 << self.unnamed)

    def take(self, limit: Limited) -> float | None:
        """Seconds to wait before sending again, counted against the budget; None when over it."""
        seconds = self.wait_for(limit).total_seconds()
        if self.waited + seconds > BUDGET_SECONDS:
            return None
        self.waited += seconds
        if limit.wait is None:
            self.unnamed += 1
        return seconds
