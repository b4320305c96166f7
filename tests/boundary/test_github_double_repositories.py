"""The double serves several repositories: the state's own, and each other one it holds issues of
(`repositories`), with what the token may do in each and every person's permission there. Every
exchange is held to GitHub's OpenAPI description and every query to its published GraphQL schema,
as for the state's own repository (`double_held_to_openapi`, `graphql_api.checked`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import githubkit
import pytest
from githubkit.exception import RequestFailed

from tests.github_double import GitHubDouble
from tests.support.double_support import BOT, client, example_state, graphql, make_double

KERNEL, SERVING, SECRET = ("acme", "kernel"), ("acme", "serving"), ("acme", "secret")


def three(**tokens: str) -> GitHubDouble:
    state = example_state()
    state["issues"] += [
        {"number": 12, "repository": "acme/kernel", "title": "k", "state": "open"},
        {"number": 7, "repository": "acme/serving", "title": "s", "state": "open"},
        {"number": 12, "repository": "acme/secret", "title": "x", "state": "open"},
    ]
    state["repositories"] = {
        "acme/kernel": {"token": tokens.get("kernel", "write"), "permissions": {"alice": "triage"}},
        "acme/serving": {"token": tokens.get("serving", "read")},
        "acme/secret": {"token": tokens.get("secret", "none")},
    }
    return make_double(state)


@pytest.fixture
def served() -> GitHubDouble:
    return three()


@pytest.fixture
def gh(served: GitHubDouble) -> Iterator[githubkit.GitHub[Any]]:
    with client(served) as github:
        yield github


def test_each_repository_answers_for_its_own_issue_of_the_same_number(gh: githubkit.GitHub[Any]) -> None:
    assert gh.rest.issues.get(*KERNEL, 12).parsed_data.title == "k"
    found = graphql(
        gh,
        "query($o: String!, $n: String!) { repository(owner: $o, name: $n) { nameWithOwner "
        "issue(number: 12) { title viewerCanUpdate viewerCanLabel repository { nameWithOwner } } } }",
        o="acme",
        n="kernel",
    )["repository"]
    assert found["issue"] == {
        "title": "k",
        "viewerCanUpdate": True,
        "viewerCanLabel": True,
        "repository": {"nameWithOwner": "acme/kernel"},
    }


def test_a_write_lands_in_the_issues_own_repository(gh: githubkit.GitHub[Any], served: GitHubDouble) -> None:
    made = gh.rest.issues.create_comment(*KERNEL, 12, body="here").parsed_data
    gh.rest.issues.create_label(*KERNEL, name="perf/only-there", color="1a7f37")
    gh.rest.issues.add_labels(*KERNEL, 12, labels=["perf/only-there"])
    state = served.state()
    assert [c["issue"] for c in state["comments"] if c["id"] == made.id] == ["acme/kernel#12"]
    assert [i["labels"] for i in state["issues"] if i.get("repository") == "acme/kernel"] == [["perf/only-there"]]
    assert [label["name"] for label in state["repositories"]["acme/kernel"]["labels"]] == ["perf/only-there"]
    assert all(label["name"] != "perf/only-there" for label in state.get("labels", []))


def test_a_repository_the_token_may_only_read_refuses_every_write(
    gh: githubkit.GitHub[Any], served: GitHubDouble
) -> None:
    assert gh.rest.issues.get(*SERVING, 7).parsed_data.number == 7
    before = served.state()
    for write in (
        lambda: gh.rest.issues.create_comment(*SERVING, 7, body="no"),
        lambda: gh.rest.issues.add_labels(*SERVING, 7, labels=["perf/ready"]),
        lambda: gh.rest.issues.create_label(*SERVING, name="perf/ready", color="1a7f37"),
    ):
        with pytest.raises(RequestFailed) as refused:
            write()
        # 403 where GitHub's description documents one for the operation, else its 404.
        assert refused.value.response.status_code in (403, 404)
    assert served.state() == before
    access = graphql(gh, '{ repository(owner: "acme", name: "serving") { issue(number: 7) { viewerCanUpdate } } }')
    assert access["repository"]["issue"]["viewerCanUpdate"] is False


def test_a_repository_the_token_cannot_see_is_not_found_in_rest_and_graphql(gh: githubkit.GitHub[Any]) -> None:
    with pytest.raises(RequestFailed) as missing:
        gh.rest.issues.get(*SECRET, 12)
    assert missing.value.response.status_code == 404
    answer = gh.graphql.request  # the raw answer: data with null, and GitHub's NOT_FOUND error
    with pytest.raises(Exception, match="Could not resolve to a Repository with the name 'acme/secret'"):
        answer('{ repository(owner: "acme", name: "secret") { nameWithOwner } }')


def test_a_person_acts_by_their_permission_in_that_repository() -> None:
    double = three()
    double.tokens["alice-token"] = "alice"
    with client(double, token="alice-token") as alice:
        alice.rest.issues.create_comment(*KERNEL, 12, body="triage may comment")
        with pytest.raises(RequestFailed) as refused:
            alice.rest.issues.get(*SECRET, 12)
        assert refused.value.response.status_code == 404
    assert BOT not in [c["user"] for c in double.state()["comments"] if c["issue"] == "acme/kernel#12"]
