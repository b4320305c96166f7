"""githubkit's exceptions as perfbot's errors: one line a person can act on, and whether a write
may have landed (`AmbiguousWriteError`) or certainly did not (`GitHubError`). A message that says
how often a request was tried counts the tries that were made (`RetryPolicy.tries`)."""

from __future__ import annotations

import datetime as dt

import httpx
from githubkit.exception import GitHubException, RequestError, RequestFailed, RequestTimeout

from bot.github.live.bodies import Malformed, error_body
from bot.github.live.client import Session
from bot.github.live.limits import limited
from bot.github.live.traffic import is_read
from bot.github.port import AmbiguousWriteError, GitHubError
from bot.untrusted import neutral

PERMISSIONS = "issues: write, pull-requests: write and contents: write"
LANDED = "this run makes no further writes, and the next run reads what landed and finishes the rest"


def github_message(exc: RequestFailed) -> str:
    """GitHub's own `message` from an error body, made inert for a terminal or an Actions log."""
    message = error_body(exc.response.raw_response).get("message")
    return neutral(str(message), 200) if message else ""


def github_details(exc: RequestFailed) -> list[str]:
    """What a 422 says beyond `Validation Failed`: each `errors[].message` (or its code), as sent."""
    errors = error_body(exc.response.raw_response).get("errors")
    found = []
    for error in errors if isinstance(errors, list) else []:
        said = error.get("message") or error.get("code") if isinstance(error, dict) else error
        if said:
            found.append(str(said))
    return found


def rate_limited(what: str, wait: dt.timedelta, now: dt.datetime, *, secondary: bool = False) -> GitHubError:
    when = (now + wait).astimezone(dt.UTC)
    minutes = max(1, round(wait.total_seconds() / 60))
    which = (
        "secondary rate limit (too many requests in a short time) refused the request"
        if secondary
        else ("rate limit is exhausted")
    )
    return GitHubError(
        f"{what}: GitHub's {which}; run perfbot again after {when:%Y-%m-%d %H:%M} UTC "
        f"(in about {minutes} min). Nothing after this point was written."
    )


def _status(exc: RequestFailed, what: str, needs: str) -> GitHubError:
    code = exc.response.status_code
    said = "; ".join([github_message(exc), *(neutral(d, 200) for d in github_details(exc))][:4])
    detail = f"{code} {said}".strip()
    if code == 401:
        return GitHubError(f"{what}: GitHub refused the token ({detail}); set GITHUB_TOKEN to a valid token")
    if code == 403:
        return GitHubError(f"{what}: GitHub refused ({detail}); the token needs {needs}")
    if code == 404:
        return GitHubError(f"{what}: not found ({detail}); check the repository name and that the token can see it")
    return GitHubError(f"{what}: GitHub refused ({detail})")


def _reason(exc: GitHubException) -> str:
    if isinstance(exc, RequestFailed):
        return f"{exc.response.status_code} {github_message(exc)}".strip()
    if isinstance(exc, RequestTimeout):
        return "timed out"
    if isinstance(exc, RequestError):
        return neutral(str(exc.exc) or type(exc.exc).__name__, 200)
    return neutral(repr(exc), 200)


def not_sent(exc: GitHubException) -> bool:
    """The request never left: nothing can have been applied."""
    return isinstance(exc, RequestError) and isinstance(exc.exc, httpx.ConnectError | httpx.ConnectTimeout)


def failure(
    exc: GitHubException, what: str, session: Session, *, repeatable: bool = True, needs: str = PERMISSIONS
) -> GitHubError:
    """The error for a request that failed for good (after the retry policy gave up).

    `repeatable` is False for writes that would be duplicated if sent twice (a comment, a commit,
    a new branch, a new PR): when such a write may have landed, the run must stop writing.
    `needs` is the permissions a refusal (403) asks the token for; a rate limit, which GitHub
    also answers with 403, is never taken for one.
    """
    limit = limited(exc)
    if limit is not None:
        return rate_limited(what, session.limits.wait_for(limit), session.now, secondary=limit.secondary)
    if isinstance(exc, Malformed):
        return _malformed(exc, what, session)
    if isinstance(exc, RequestFailed) and exc.response.status_code < 500:
        return _status(exc, what, needs)
    if not repeatable and not not_sent(exc):
        lost = f"{what}: GitHub's answer was lost ({_reason(exc)})"
        return AmbiguousWriteError(f"{lost}, so it may have been applied; {LANDED}")
    if not_sent(exc):
        return GitHubError(f"{what}: cannot reach GitHub ({_reason(exc)})")
    return GitHubError(f"{what}: GitHub failed ({_reason(exc)}){_after(exc, session)}; run perfbot again later")


def _after(exc: GitHubException, session: Session) -> str:
    tries = session.retry.tries(exc)
    return f" after {tries} tries" if tries > 1 else ""


def _malformed(exc: Malformed, what: str, session: Session) -> GitHubError:
    """A broken answer to a read was tried again and stayed broken; one to a write may have landed."""
    said = f"{what}: GitHub's answer was not the JSON expected ({exc})"
    if is_read(exc.request):
        return GitHubError(f"{said}{_after(exc, session)}; run perfbot again later")
    return AmbiguousWriteError(f"{said}, so it may have been applied; {LANDED}")
