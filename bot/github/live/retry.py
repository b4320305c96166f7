"""The retry policy handed to githubkit's `auto_retry`: reads retry, writes never repeat blindly.

- A read (GraphQL query, GET) is tried up to three times on a 5xx, a timeout or a lost
  connection, with backoff.
- A rate-limited request was refused, not applied, so it is retried once after the wait GitHub
  asks for (`retry-after`, else `x-ratelimit-reset`), when that wait is at most two minutes.
- A write that failed any other way is not retried: its outcome may be unknown, and the next
  run's read (markers, reactions, the PR branch) finds what landed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import httpx
from githubkit.exception import GitHubException, RateLimitExceeded, RequestError, RequestFailed, RequestTimeout
from githubkit.retry import RetryOption

from bot.github.live.traffic import is_read

READ_TRIES = 3
LIMIT_RETRIES = 1
MAX_WAIT_SECONDS = 120.0
# githubkit sleeps 60 s for a zero (falsy) delay, so the policy waits itself and hands back a
# delay too small to matter: the wait stays injectable and testable.
_ALREADY_WAITED = dt.timedelta(microseconds=1)


def request_of(exc: GitHubException) -> httpx.Request | None:
    if isinstance(exc, RequestFailed | RequestTimeout):
        return exc.request
    if isinstance(exc, RequestError) and isinstance(exc.exc, httpx.RequestError):
        try:
            return exc.exc.request
        except RuntimeError:  # httpx raises when the error has no request
            return None
    return None


def transient(exc: GitHubException) -> bool:
    """A failure worth another try: a server error, a timeout, or a network error."""
    if isinstance(exc, RequestFailed):
        return exc.response.status_code >= 500
    return isinstance(exc, RequestError)


class RetryPolicy:
    """`(exception, retries so far) -> RetryOption`, waiting through the injected `wait`."""

    def __init__(self, wait: Callable[[float], None], backoff_seconds: float = 1.0) -> None:
        self.wait = wait
        self.backoff_seconds = backoff_seconds

    def __call__(self, exc: GitHubException, retry_count: int) -> RetryOption:
        if isinstance(exc, RateLimitExceeded):
            delay = exc.retry_after.total_seconds()
            if retry_count < LIMIT_RETRIES and delay <= MAX_WAIT_SECONDS:
                return self._again(delay)
            return RetryOption(False)
        request = request_of(exc)
        if request is not None and is_read(request) and transient(exc) and retry_count < READ_TRIES - 1:
            return self._again(self.backoff_seconds * (retry_count + 1) ** 2)
        return RetryOption(False)

    def _again(self, delay: float) -> RetryOption:
        self.wait(delay)
        return RetryOption(True, _ALREADY_WAITED)
