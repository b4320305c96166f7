"""GitHub's rate limits as they arrive, and the run's budget for waiting them out (`limits.py`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest
from githubkit.exception import (
    GitHubException,
    PrimaryRateLimitExceeded,
    RequestFailed,
    RequestTimeout,
    SecondaryRateLimitExceeded,
)
from githubkit.response import Response

from bot.github.live.client import BUDGET_SECONDS, LimitBudget, Limited, limited

SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
DOCS = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"


def response(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Response[Any, Any]:
    request = httpx.Request("POST", "https://api.github.com/repos/o/n/issues/1/comments")
    raw = (
        httpx.Response(status, json=body, headers=headers, request=request)
        if body is not None
        else httpx.Response(status, content=b"<html>busy</html>", headers=headers, request=request)
    )
    return Response(raw, object)


def failed(status: int, body: Any = None, headers: dict[str, str] | None = None) -> RequestFailed:
    return RequestFailed(response(status, body, headers))


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        # githubkit's own: a named wait
        (
            SecondaryRateLimitExceeded(response(403, {}, {"retry-after": "30"}), dt.timedelta(seconds=30)),
            Limited(dt.timedelta(seconds=30), True),
        ),
        (
            PrimaryRateLimitExceeded(
                response(403, {"message": "API rate limit exceeded"}, {"x-ratelimit-remaining": "0"}),
                dt.timedelta(minutes=50),
            ),
            Limited(dt.timedelta(minutes=50), False),
        ),
        (
            PrimaryRateLimitExceeded(
                response(403, {"message": SECONDARY}, {"x-ratelimit-remaining": "0"}), dt.timedelta(minutes=5)
            ),
            Limited(dt.timedelta(minutes=5), True),
        ),
        # GitHub's secondary limit naming no wait, which githubkit sees as a plain refusal
        (failed(403, {"message": SECONDARY, "documentation_url": DOCS}), Limited(None, True)),
        (
            failed(403, {"message": "Forbidden", "documentation_url": f"{DOCS}#about-secondary-rate-limits"}),
            Limited(None, True),
        ),
        (failed(403, {"message": "You have exceeded a Secondary Rate Limit."}), Limited(None, True)),
        (failed(429, {"message": "Too Many Requests"}), Limited(None, True)),
        (failed(429), Limited(None, True)),
    ],
)
def test_every_shape_of_a_rate_limit_is_one(exc: GitHubException, expected: Limited) -> None:
    assert limited(exc) == expected


@pytest.mark.parametrize(
    "exc",
    [
        failed(403, {"message": "Resource not accessible by integration", "documentation_url": DOCS}),
        failed(403),  # an HTML page: no message to read
        failed(403, ["secondary rate limit"]),  # not GitHub's error object
        failed(404, {"message": SECONDARY}),
        failed(422, {"message": "Validation Failed"}),
        failed(500, {"message": SECONDARY}),
        RequestTimeout(httpx.ReadTimeout("no answer", request=httpx.Request("GET", "https://api.github.com/"))),
    ],
)
def test_a_refusal_or_a_failure_is_not_a_rate_limit(exc: GitHubException) -> None:
    assert limited(exc) is None


def test_an_unnamed_wait_is_a_minute_doubled_on_each_repeat() -> None:
    budget, unnamed = LimitBudget(), Limited(None, True)
    assert [budget.take(unnamed) for _ in range(3)] == [60.0, 120.0, 240.0]
    assert budget.wait_for(unnamed) == dt.timedelta(seconds=480)  # the next, which would pass the budget
    assert budget.take(unnamed) is None
    assert (budget.waited, budget.unnamed) == (420.0, 3)  # a refused wait is not counted


def test_a_named_wait_is_github_s_and_does_not_lengthen_the_unnamed_ones() -> None:
    budget = LimitBudget()
    assert budget.take(Limited(dt.timedelta(seconds=30), True)) == 30.0
    assert budget.take(Limited(None, True)) == 60.0
    assert budget.take(Limited(dt.timedelta(seconds=7), False)) == 7.0
    assert (budget.waited, budget.unnamed) == (97.0, 1)


def test_the_budget_is_all_the_waiting_of_a_run() -> None:
    budget = LimitBudget()
    assert budget.take(Limited(dt.timedelta(seconds=BUDGET_SECONDS), False)) == BUDGET_SECONDS  # up to it
    assert budget.take(Limited(dt.timedelta(seconds=1), True)) is None  # and not a second past
    assert LimitBudget().take(Limited(dt.timedelta(seconds=BUDGET_SECONDS + 1), False)) is None
