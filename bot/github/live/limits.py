"""GitHub's rate limits as they really arrive, and how long one run may wait them out.

GitHub refuses a rate-limited request without applying it, so it is always safe to send again.
It says so in several shapes (REST docs, "Rate limits for the REST API"):

- a primary limit: 403 or 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
  (githubkit raises `PrimaryRateLimitExceeded` with the wait until the reset);
- a secondary limit with `retry-after` (githubkit raises `SecondaryRateLimitExceeded`);
- a secondary limit with neither header: 403 whose message names the secondary limit, or a
  bare 429. GitHub then asks for at least a minute, and longer on each repeat; githubkit sees a
  plain `RequestFailed`, which without this module reads as a refused token.

One run waits at most `BUDGET_SECONDS` in all; a limit that needs more stops the run with the
time to run it again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from githubkit.exception import GitHubException, RateLimitExceeded, RequestFailed

from bot.github.live.bodies import error_body
from bot.github.live.traffic import server_time

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


def _says_secondary(exc: RequestFailed) -> bool:
    body = error_body(exc.response.raw_response)
    for said in (body.get("message"), body.get("documentation_url")):
        if isinstance(said, str) and ("secondary rate limit" in said.lower() or "secondary-rate-limit" in said):
            return True
    return False


def _named_wait(exc: RateLimitExceeded) -> dt.timedelta:
    """The wait GitHub named: `retry-after`, else `x-ratelimit-reset` counted from the answer's
    own `Date` (GitHub's clock: githubkit counts it from the local one, which may be skewed)."""
    headers = exc.response.headers
    reset, date = headers.get("x-ratelimit-reset", ""), server_time(headers.get("date", ""))
    if "retry-after" in headers or not reset.isdecimal() or date is None:
        return exc.retry_after
    return max(dt.datetime.fromtimestamp(int(reset), dt.UTC) - date, dt.timedelta())


def limited(exc: GitHubException) -> Limited | None:
    """The rate limit this failure is, or None when it is not one."""
    if isinstance(exc, RateLimitExceeded):
        secondary = "retry-after" in exc.response.headers or _says_secondary(exc)
        return Limited(_named_wait(exc), secondary)
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
