"""The double's GraphQL: the one-query read, pages of comments, GitHub's errors, the CAS mutation."""

from __future__ import annotations

import base64
from typing import Any

import githubkit
import pytest
from githubkit.exception import GraphQLFailed

from tests.boundary.test_github_double_rest import BRANCH, PAGE, SNAPSHOT, open_pull
from tests.github_double import GitHubDouble
from tests.support import double_queries as q
from tests.support.double_support import (
    BOT,
    NAME,
    OWNER,
    REPO,
    client,
    comment,
    double,
    example_state,
    github,
    graphql,
    make_double,
)
from tests.support.paths import ROOT

__all__ = ["double", "github"]  # fixtures
FILES = {SNAPSHOT: "snapshot: next\n", PAGE: "# next page\n"}


def failure(
    gh: githubkit.GitHub[Any], query: str, **variables: Any
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The partial data and the errors of a query that GitHub answers with errors."""
    with pytest.raises(GraphQLFailed) as failed:
        graphql(gh, query, **variables)
    answer = failed.value.response
    return answer.data, [e.model_dump() for e in answer.errors or []]


def run(gh: githubkit.GitHub[Any]) -> dict[str, Any]:
    head = f"{BRANCH}"
    return graphql(gh, q.RUN, branch=head, snapshot=f"HEAD:{SNAPSHOT}", page=f"HEAD:{PAGE}")


def test_one_query_reads_everything_a_run_decides_on(double: GitHubDouble) -> None:
    alice = comment(2**31 + 1, 8325, "alice", "/perf claim x")
    ours = comment(2**31 + 2, 8325, BOT, "<!-- perfbot:command-reply 1 -->", user_type="Bot")
    state = example_state(comments=[alice, ours], reactions=[{"comment_id": 2**31 + 1, "user": BOT, "content": "eyes"}])
    double.load(state)
    with client(double) as gh:
        data = run(gh)
    repository = data["repository"]
    assert data["viewer"] == {"login": BOT}
    assert repository["defaultBranchRef"]["target"]["oid"] == double.tip()
    assert repository["snapshot"]["text"] == (ROOT / SNAPSHOT).read_text(encoding="utf-8")
    assert repository["snapshot"]["isTruncated"] is False
    assert repository["pullRequests"]["nodes"] == []
    nodes = repository["i8325"]["comments"]["nodes"]
    assert [n["fullDatabaseId"] for n in nodes] == [str(2**31 + 1), str(2**31 + 2)]
    assert [n["author"] for n in nodes] == [
        {"__typename": "User", "login": "alice"},
        {"__typename": "Bot", "login": "perfbot"},
    ]
    eyes = next(g for g in nodes[0]["reactionGroups"] if g["content"] == "EYES")
    assert eyes == {"content": "EYES", "viewerHasReacted": True, "reactors": {"totalCount": 1}}
    assert repository["i9420"]["assignees"]["nodes"] == [{"login": "anthony-chaudhary"}]
    assert double.kinds() == {"graphql": 1, "rest_read": 0, "rest_write": 0}


def test_the_open_pr_shows_its_head_and_commits(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    double.push(BRANCH, {"notes.md": "mine\n"}, login="alice")
    pull = run(github)["repository"]["pullRequests"]["nodes"][0]
    assert (pull["number"], pull["state"], pull["headRefOid"], pull["baseRefName"]) == (
        number,
        "OPEN",
        double.tip(BRANCH),
        "main",
    )
    authors = [(n["commit"]["author"]["name"], n["commit"]["author"]["user"]) for n in pull["commits"]["nodes"]]
    # A GitActor's `user` is a User: GitHub gives null for a Bot, whose name is its login.
    assert authors == [(BOT, None), ("alice", {"login": "alice"})]
    at_head = graphql(github, q.OBJECT, expression=f"{BRANCH}:{SNAPSHOT}")["repository"]["object"]
    assert (at_head["__typename"], at_head["text"]) == ("Blob", FILES[SNAPSHOT])


def test_comments_page_on_with_after(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.load(example_state(comments=[comment(i, 8325, "alice", f"c{i}") for i in range(1, 6)]))
    seen, after, pages = [], None, 0
    while True:
        found = graphql(github, q.COMMENTS_PAGE, number=8325, after=after)["repository"]["issue"]["comments"]
        seen += [n["body"] for n in found["nodes"]]
        pages += 1
        if not found["pageInfo"]["hasNextPage"]:
            break
        after = found["pageInfo"]["endCursor"]
    assert (seen, pages, found["totalCount"]) == (["c1", "c2", "c3", "c4", "c5"], 3, 5)


def test_a_missing_issue_is_null_with_a_not_found_error(github: githubkit.GitHub[Any]) -> None:
    data, errors = failure(github, q.MISSING_ISSUE)
    assert data == {"repository": {"present": {"number": 8325}, "absent": None}}
    assert [(e["type"], e["path"]) for e in errors] == [("NOT_FOUND", ["repository", "absent"])]
    assert errors[0]["message"] == "Could not resolve to an Issue with the number of 99999."
    data, errors = failure(github, q.MISSING_REPOSITORY)
    assert (data, errors[0]["type"]) == ({"repository": None}, "NOT_FOUND")


def test_database_id_fails_past_two_to_the_31_and_full_database_id_does_not(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    double.load(example_state(comments=[comment(2**31 + 7, 8325, "alice", "hi")]))
    ids = graphql(github, q.ISSUE_IDS, number=8325)["repository"]["issue"]["comments"]["nodes"]
    assert ids == [{"fullDatabaseId": str(2**31 + 7)}]
    _, errors = failure(github, q.DATABASE_IDS, number=8325)
    assert "32-bit" in errors[0]["message"]


def test_pagination_bounds_are_githubs(github: githubkit.GitHub[Any]) -> None:
    _, errors = failure(github, q.TOO_MANY)
    assert (errors[0]["type"], errors[0]["message"]) == (
        "EXCESSIVE_PAGINATION",
        "Requesting 101 records on the `comments` connection exceeds the `first` limit of 100 records.",
    )
    _, errors = failure(github, q.UNBOUNDED)
    assert errors[0]["type"] == "MISSING_PAGINATION_BOUNDARIES"


def test_an_unknown_field_is_a_validation_error(github: githubkit.GitHub[Any]) -> None:
    data, errors = failure(github, q.UNKNOWN_FIELD)
    assert data is None
    assert "favouriteColour" in errors[0]["message"]


def test_object_expressions_resolve_branches_oids_and_paths(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    tip = double.tip() or ""
    commit = graphql(github, q.OBJECT, expression="main")["repository"]["object"]
    assert (commit["__typename"], commit["oid"], commit["parents"]["nodes"]) == ("Commit", tip, [])
    by_oid = graphql(github, q.OBJECT, expression=f"{tip}:{PAGE}")["repository"]["object"]
    assert by_oid["text"] == (ROOT / PAGE).read_text(encoding="utf-8")
    folder = graphql(github, q.OBJECT, expression="refs/heads/main:config")["repository"]["object"]
    assert folder["__typename"] == "Tree"
    assert graphql(github, q.OBJECT, expression="main:no/such/file")["repository"]["object"] is None
    # Any file of the working tree can be read at the tip derived from it.
    readme = graphql(github, q.OBJECT, expression="HEAD:README.md")["repository"]["object"]
    assert readme["text"] == (ROOT / "README.md").read_text(encoding="utf-8")
    ref = graphql(github, q.REF, qualifiedName="refs/heads/main")["repository"]["ref"]
    assert ref == {"name": "main", "prefix": "refs/heads/", "target": {"oid": tip}}


def test_pull_requests_filter_by_head_and_state(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    github.rest.pulls.update(OWNER, NAME, number, state="closed")
    closed = graphql(github, q.PULLS, branch=BRANCH, states=["CLOSED"])["repository"]["pullRequests"]
    assert [(n["number"], n["state"]) for n in closed["nodes"]] == [(number, "CLOSED")]
    assert graphql(github, q.PULLS, branch=BRANCH, states=["OPEN"])["repository"]["pullRequests"]["totalCount"] == 0


def commit_input(double: GitHubDouble, expected: str, **files: str) -> dict[str, Any]:
    additions = [{"path": p, "contents": base64.b64encode(t.encode()).decode()} for p, t in files.items()]
    return {
        "branch": {"repositoryNameWithOwner": REPO, "branchName": BRANCH},
        "expectedHeadOid": expected,
        "message": {"headline": "perfbot: regenerate", "body": "why"},
        "fileChanges": {"additions": additions},
        "clientMutationId": "run-1",
    }


def test_create_commit_on_branch_is_a_compare_and_swap(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    open_pull(github, double, FILES)
    before = double.tip(BRANCH) or ""
    made = github.graphql(q.COMMIT_ON_BRANCH, {"input": commit_input(double, before, **{PAGE: "# page 2\n"})})
    payload = made["createCommitOnBranch"]
    assert payload["ref"]["target"]["oid"] == payload["commit"]["oid"] == double.tip(BRANCH)
    assert (payload["clientMutationId"], payload["commit"]["message"]) == ("run-1", "perfbot: regenerate\n\nwhy")
    assert payload["commit"]["author"]["user"] is None  # a Bot is no User
    assert double.state()["pulls"][0]["files"][PAGE] == "# page 2\n"
    data, errors = failure(github, q.COMMIT_ON_BRANCH, input=commit_input(double, before, **{PAGE: "# page 3\n"}))
    error = errors[0]
    assert data == {"createCommitOnBranch": None}
    assert (error["type"], error["path"]) == ("STALE_DATA", ["createCommitOnBranch"])
    assert error["message"] == f'Expected branch to point to "{before}" but it did not. Pull and try again.'
    assert double.files(BRANCH)[PAGE] == "# page 2\n"


def test_rate_limit_is_readable(github: githubkit.GitHub[Any]) -> None:
    first = run(github)["rateLimit"]
    second = run(github)["rateLimit"]
    assert first["remaining"] - second["remaining"] == 1


def test_ghes_paths_serve_the_same_api() -> None:
    double = make_double()
    with client(double, base_url="https://ghe.example/api/v3") as gh:
        assert gh.graphql(q.VIEWER) == {"viewer": {"login": BOT}}
        assert gh.rest.repos.get(OWNER, NAME).parsed_data.full_name == REPO
    assert [r["path"] for r in double.requests] == ["/api/graphql", f"/api/v3/repos/{REPO}"]


ISSUE_RECORDS = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      comments(first: 100) { nodes { fullDatabaseId } }
      subIssues(first: 50) { nodes { number } }
      timelineItems(first: 100, itemTypes: [LABELED_EVENT]) { nodes { ... on LabeledEvent { label { name } } } }
    }
  }
}
"""


def test_each_answer_reads_the_records_as_they_are_at_its_request(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    """An answer indexes each issue's records once (`record_index`); the next request reads them
    again, however they changed in between (here in place, with no write through the API)."""

    def records() -> tuple[list[str], list[int], list[str]]:
        issue = graphql(github, ISSUE_RECORDS, owner=OWNER, name=NAME, number=9430)["repository"]["issue"]
        comments = [n["fullDatabaseId"] for n in issue["comments"]["nodes"]]
        labels = [n["label"]["name"] for n in issue["timelineItems"]["nodes"]]
        return comments, [n["number"] for n in issue["subIssues"]["nodes"]], labels

    labelled = ["perf/capacity-hold", "perf/waiting-dependency"]
    assert records() == ([], [8324, 8325, 8395, 9216, 9230], labelled)
    raw = double.world.raw
    raw["comments"].append(comment(999, 9430, "alice", "later"))
    raw["label_events"].append(
        {
            "issue": 9430,
            "label": "perf/ready",
            "action": "labeled",
            "actor": "alice",
            "created_at": "2026-08-27T17:00:00Z",
        }
    )
    next(i for i in raw["issues"] if i["number"] == 8635)["parent"] = 9430
    assert records() == (["999"], [8324, 8325, 8395, 8635, 9216, 9230], [*labelled, "perf/ready"])
