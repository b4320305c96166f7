"""Injected faults, as githubkit sees them: lost responses, rate limits, timeouts, partial errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import githubkit
import httpx
import pytest
from githubkit.exception import (
    GraphQLFailed,
    PrimaryRateLimitExceeded,
    RequestFailed,
    RequestTimeout,
    SecondaryRateLimitExceeded,
)

from tests.github_double import GitHubDouble
from tests.github_double.faults import GRAPHQL, REST_WRITES
from tests.support import double_queries as q
from tests.support.double_support import NAME, NOW, OWNER, double, github, graphql

__all__ = ["double", "github"]  # fixtures
COMMENTS = r"/repos/[^/]+/[^/]+/issues/\d+/comments"


def comments(double: GitHubDouble) -> list[str]:
    return [c["body"] for c in double.state()["comments"]]


def test_a_lost_response_lands_the_write_and_answers_502(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.lost_response("POST", COMMENTS)
    with pytest.raises(RequestFailed) as lost:
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="once")
    assert lost.value.response.status_code == 502
    assert comments(double) == ["once"]
    github.rest.issues.create_comment(OWNER, NAME, 8325, body="twice")  # the fault was used up
    assert comments(double) == ["once", "twice"]
    assert [r["status"] for r in double.requests] == [502, 201]


def test_an_answer_fault_replaces_the_handling(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    body = {"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest"}
    double.faults.answer("POST", COMMENTS, 403, body)
    with pytest.raises(RequestFailed) as refused:
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="x")
    assert (refused.value.response.status_code, refused.value.response.json()) == (403, body)
    assert comments(double) == []


def test_a_secondary_rate_limit_says_when_to_retry(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.secondary_rate_limit("POST", COMMENTS, retry_after=7)
    with pytest.raises(SecondaryRateLimitExceeded) as limited:
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="x")
    assert limited.value.retry_after == dt.timedelta(seconds=7)
    assert limited.value.response.status_code == 403
    assert comments(double) == []


@pytest.mark.parametrize("status", [403, 429])
def test_an_exhausted_primary_limit_names_its_reset(status: int, double: GitHubDouble) -> None:
    double.faults.primary_rate_limit("GET", r"/repos/[^/]+/[^/]+", status=status, reset_in=600)
    answer = double.transport().handle_request(_get(f"/repos/{OWNER}/{NAME}"))
    assert answer.status_code == status
    assert answer.headers["x-ratelimit-remaining"] == "0"
    assert int(answer.headers["x-ratelimit-reset"]) == int((NOW + dt.timedelta(seconds=600)).timestamp())
    double.faults.primary_rate_limit("GET", r"/repos/[^/]+/[^/]+", status=status)
    gh = githubkit.GitHub("test-token", transport=double.transport(), auto_retry=False, http_cache=False)
    with gh, pytest.raises(PrimaryRateLimitExceeded):
        gh.rest.repos.get(OWNER, NAME)


def _get(path: str) -> httpx.Request:
    return httpx.Request("GET", f"https://api.github.com{path}", headers={"authorization": "token test-token"})


def test_graphql_rate_limited_is_http_200_with_an_error(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.graphql_rate_limited(reset_in=60)
    with pytest.raises(PrimaryRateLimitExceeded) as limited:
        github.graphql(q.VIEWER)
    assert limited.value.response.status_code == 200
    assert limited.value.response.headers["x-ratelimit-remaining"] == "0"


@pytest.mark.parametrize("apply", [False, True])
def test_a_timeout_sends_no_answer(apply: bool, github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.timeout("POST", COMMENTS, apply=apply)
    with pytest.raises(RequestTimeout):
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="maybe")
    assert comments(double) == (["maybe"] if apply else [])
    assert double.requests[-1]["status"] is None


def test_graphql_partial_errors_null_one_path(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.graphql_partial(("repository", "i9420"), "FORBIDDEN", "Resource not accessible by integration")
    with pytest.raises(GraphQLFailed) as partial:
        graphql(github, q.RUN, branch="perfbot/update", snapshot="HEAD:config/snapshot.yaml", page="HEAD:x")
    answer = partial.value.response
    assert answer.data is not None
    assert answer.data["repository"]["i9420"] is None
    assert answer.data["repository"]["i8325"]["number"] == 8325
    assert [(e.type, e.path) for e in answer.errors or []] == [("FORBIDDEN", ["repository", "i9420"])]


def test_faults_match_only_their_method_and_path(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    fault = double.faults.answer(*GRAPHQL, 502)
    github.rest.issues.create_comment(OWNER, NAME, 8325, body="untouched")
    assert double.faults.pending == [fault]
    with pytest.raises(RequestFailed):
        github.graphql(q.VIEWER)
    assert double.faults.pending == []


def test_a_run_can_die_after_its_kth_write(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.faults.timeout(*REST_WRITES, after=2)
    github.rest.issues.create_comment(OWNER, NAME, 8325, body="one")
    github.graphql(q.VIEWER)  # reads do not count
    github.rest.issues.add_assignees(OWNER, NAME, 8325, assignees=["alice"])
    with pytest.raises(RequestTimeout):
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="three")
    assert comments(double) == ["one"]
    assert [r["status"] for r in double.requests] == [201, 200, 201, None]
