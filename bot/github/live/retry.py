"""The retry policy handed to githubkit's `auto_retry`: reads retry, writes never repeat blindly.

- A read (GraphQL query, GET) is tried up to three times on a 5xx, a timeout, a lost
  connection or an answer that is not the JSON expected (`bodies.Malformed`), with backoff.
- A rate-limited request was refused, not applied, so it is sent again after the wait GitHub
  asks for, or a minute doubled on each repeat when it names none (`limits.py`), while the run's
  waiting stays within its budget and the request has been limited at most `LIMIT_RETRIES` times.
- A write that failed any other way is not retried: its outcome may be unknown, and the next
  run's read (markers, reactions, the PR branch) finds what landed.

The policy keeps how often the request that failed last was sent, so a message counts the tries
that were made (`tries`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import httpx
from githubkit.exception import GitHubException, RequestError, RequestFailed, RequestTimeout
from githubkit.retry import RetryOption

from bot.github.live.bodies import Malformed
from bot.github.live.limits import LimitBudget, limited
from bot.github.live.traffic import is_read

READ_TRIES = 3
LIMIT_RETRIES = 3
# githubkit sleeps 60 s for a zero (falsy) delay, so the policy waits itself and hands back a
# delay too small to matter: the wait stays injectable and testable.
_ALREADY_WAITED = dt.timedelta(microseconds=1)


def request_of(exc: GitHubException) -> httpx.Request | None:
    if isinstance(exc, RequestFailed | RequestTimeout | Malformed):
        return exc.request
    if isinstance(exc, RequestError) and isinstance(exc.exc, httpx.RequestError):
        try:
            return exc.exc.request
        except RuntimeError:  # httpx raises when the error has no request
            return None
    return None


def transient(exc: GitHubException) -> bool:
    """A failure worth another try: a server error, a timeout, a network error, a broken answer."""
    if isinstance(exc, RequestFailed):
        return exc.response.status_code >= 500
    return isinstance(exc, RequestError | Malformed)


class RetryPolicy:
    """`(exception, retries so far) -> RetryOption`, waiting through the injected `wait`."""

    def __init__(self, wait: Callable[[float], None], budget: LimitBudget, backoff_seconds: float = 1.0) -> None:
        self.wait = wait
        self.budget = budget
        self.backoff_seconds = backoff_seconds
        self.last: tuple[GitHubException, int] | None = None

    def tries(self, exc: GitHubException) -> int:
        """How often the request that ended in `exc` was sent: 1 when the policy never saw it."""
        return self.last[1] if self.last is not None and self.last[0] is exc else 1

    def __call__(self, exc: GitHubException, retry_count: int) -> RetryOption:
        self.last = (exc, retry_count + 1)  # githubkit raises the last exception it asked about
        limit = limited(exc)
        if limit is not None:
            delay = self.budget.take(limit) if retry_count < LIMIT_RETRIES else None
            return RetryOption(False) if delay is None else self._again(delay)
        request = request_of(exc)
        if request is not None and is_read(request) and transient(exc) and retry_count < READ_TRIES - 1:
            return self._again(self.backoff_seconds * (retry_count + 1) ** 2)
        return RetryOption(False)

    def _again(self, delay: float) -> RetryOption:
        self.wait(delay)
        return RetryOption(True, _ALREADY_WAITED)
