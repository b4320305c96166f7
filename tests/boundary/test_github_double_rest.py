"""The double's REST endpoints: githubkit drives them, and the state changes as OfflineGitHub's do."""

from __future__ import annotations

import copy
import datetime as dt
import json
from typing import Any

import githubkit
import httpx
import pytest
from githubkit.exception import RequestFailed

from bot.github.actions import AssignAction, CommentAction, PullRequestAction, ReactAction
from bot.github.offline import OfflineGitHub, parse_state
from tests.github_double import GitHubDouble, openapi_check
from tests.support.double_support import (
    BOT,
    NAME,
    NOW,
    OWNER,
    client,
    comment,
    double,
    example_state,
    github,
    make_double,
)

__all__ = ["double", "github"]  # fixtures
BRANCH = "perfbot/update"
SNAPSHOT, PAGE = "config/snapshot.yaml", "docs/current-constraints.md"


def open_pull(gh: githubkit.GitHub[Any], double: GitHubDouble, files: dict[str, str], title: str = "t") -> int:
    """The regeneration PR through the git data API, as the live adapter makes it."""
    tip = gh.rest.git.get_ref(OWNER, NAME, "heads/main").parsed_data.object_.sha
    base_tree = gh.rest.git.get_commit(OWNER, NAME, tip).parsed_data.tree.sha
    entries: list[Any] = [{"path": p, "mode": "100644", "type": "blob", "content": t} for p, t in files.items()]
    tree = gh.rest.git.create_tree(OWNER, NAME, base_tree=base_tree, tree=entries).parsed_data.sha
    # as perfbot writes it: the commit message is the title (then any records of quiet answers)
    made = gh.rest.git.create_commit(OWNER, NAME, message=title, tree=tree, parents=[tip])
    if double.tip(BRANCH) is None:
        gh.rest.git.create_ref(OWNER, NAME, ref=f"refs/heads/{BRANCH}", sha=made.parsed_data.sha)
    else:
        gh.rest.git.update_ref(OWNER, NAME, f"heads/{BRANCH}", sha=made.parsed_data.sha, force=True)
    return gh.rest.pulls.create(OWNER, NAME, title=title, head=BRANCH, base="main", body="b").parsed_data.number


def test_githubkit_calls_the_double_through_its_transport(double: GitHubDouble) -> None:
    gh = githubkit.GitHub(
        "test-token",
        base_url="https://api.github.com",
        transport=double.transport(),
        auto_retry=False,
        http_cache=False,
    )
    with gh:
        assert gh.graphql("query { viewer { login } }") == {"viewer": {"login": BOT}}
        assert gh.rest.repos.get(OWNER, NAME).parsed_data.default_branch == "main"
    assert double.requests == [
        {"method": "POST", "path": "/graphql", "status": 200, "kind": "graphql", "write": False},
        {"method": "GET", "path": f"/repos/{OWNER}/{NAME}", "status": 200, "kind": "rest_read", "write": False},
    ]


def test_writes_change_the_state_exactly_as_the_offline_adapter_does(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    start = example_state(comments=[comment(101, 8325, "alice", "/perf claim x")], permissions={"alice": "write"})
    double.load(start)
    raw, observed = parse_state(json.dumps(copy.deepcopy(start)), "offline")
    offline = OfflineGitHub(raw, observed, NOW)
    files = {SNAPSHOT: "snapshot: new\n", PAGE: "# page\n"}
    offline.react(ReactAction(issue=8325, comment_id=101, content="eyes"))
    offline.comment(CommentAction(issue=8325, topic="command-reply", body="done"))
    offline.assign(AssignAction(issue=8325, login="alice", add=True))
    offline.pull_request(PullRequestAction(operation="create", branch=BRANCH, title="t", body="b", files=files))
    offline.pull_request(
        PullRequestAction(operation="update", number=9499, branch=BRANCH, title="t2", body="b", files=files)
    )

    github.rest.reactions.create_for_issue_comment(OWNER, NAME, 101, content="eyes")
    made = github.rest.issues.create_comment(OWNER, NAME, 8325, body="done").parsed_data
    github.rest.issues.add_assignees(OWNER, NAME, 8325, assignees=["alice"])
    number = open_pull(github, double, files)
    github.rest.pulls.update(OWNER, NAME, number, title="t2")

    state = double.state()
    state.pop("git")
    assert made.id == 102
    assert number == 9499
    assert state == offline.raw


def test_a_repeated_reaction_answers_200_and_records_one(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    double.load(example_state(comments=[comment(7, 8325, "alice", "hi")]))
    first = github.rest.reactions.create_for_issue_comment(OWNER, NAME, 7, content="rocket")
    again = github.rest.reactions.create_for_issue_comment(OWNER, NAME, 7, content="rocket")
    other = github.rest.reactions.create_for_issue_comment(OWNER, NAME, 7, content="heart")
    assert (first.status_code, again.status_code, other.status_code) == (201, 200, 201)
    assert first.parsed_data.id == again.parsed_data.id
    assert double.state()["reactions"] == [
        {"comment_id": 7, "user": BOT, "content": "rocket"},
        {"comment_id": 7, "user": BOT, "content": "heart"},
    ]


def test_assignees_are_added_and_removed(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    added = github.rest.issues.add_assignees(OWNER, NAME, 9420, assignees=["alice"])
    assert added.status_code == 201
    assert [a.login for a in added.parsed_data.assignees or []] == ["anthony-chaudhary", "alice"]
    removed = github.rest.issues.remove_assignees(OWNER, NAME, 9420, assignees=["anthony-chaudhary"])
    assert [a.login for a in removed.parsed_data.assignees or []] == ["alice"]
    assert next(i for i in double.state()["issues"] if i["number"] == 9420)["assignees"] == ["alice"]


@pytest.mark.parametrize(
    ("role", "legacy"),
    [
        ("admin", "admin"),
        ("maintain", "write"),
        ("write", "write"),
        ("triage", "read"),
        ("read", "read"),
        (None, "none"),
    ],
)
def test_collaborator_permission_reports_the_legacy_name_and_the_role(role: str | None, legacy: str) -> None:
    double = make_double(example_state(permissions={"alice": role} if role else {}))
    with client(double) as gh:
        found = gh.rest.repos.get_collaborator_permission_level(OWNER, NAME, "alice").parsed_data
    assert (found.permission, found.role_name) == (legacy, role or "none")


def test_without_a_token_the_answer_is_401_bad_credentials(double: GitHubDouble) -> None:
    for token in (None, "wrong-token"):
        headers = {"authorization": f"token {token}"} if token else {}
        with httpx.Client(transport=double.transport(), base_url="https://api.github.com") as http:
            answer = http.get(f"/repos/{OWNER}/{NAME}", headers=headers)
        assert answer.status_code == 401
        assert answer.json()["message"] == "Bad credentials"


def test_the_accepted_tokens_are_configurable() -> None:
    double = make_double(example_state(comments=[]), token="bot-secret", tokens={"alice-secret": "alice"})
    with client(double, "alice-secret") as gh:
        assert gh.graphql("query { viewer { login } }")["viewer"]["login"] == "alice"
        gh.rest.issues.create_comment(OWNER, NAME, 8325, body="/perf claim x")
    with client(double, "bot-secret") as gh:
        assert gh.graphql("query { viewer { login } }")["viewer"]["login"] == BOT
    with client(double, "test-token") as gh, pytest.raises(RequestFailed) as refused:
        gh.rest.repos.get(OWNER, NAME)
    assert refused.value.response.status_code == 401
    (made,) = double.state()["comments"]
    assert (made["user"], "user_type" in made) == ("alice", False)  # a person's comment, as the state holds them


def test_unknown_endpoints_and_repositories_get_githubs_404(double: GitHubDouble) -> None:
    paths = [f"/repos/{OWNER}/{NAME}/actions/runs", "/repos/someone/else", f"/repos/{OWNER}/{NAME}/issues/1", "/"]
    headers = {"authorization": "token test-token"}
    with (
        httpx.Client(transport=double.transport(), base_url="https://api.github.com", headers=headers) as http,
        openapi_check.unserved(),
    ):
        answers = [http.get(path) for path in paths] + [http.delete(f"/repos/{OWNER}/{NAME}/pulls")]
    for answer in answers:
        assert answer.status_code == 404
        assert answer.json()["message"] == "Not Found"
        assert answer.json()["documentation_url"].startswith("https://docs.github.com/rest")


def test_rate_limit_headers_count_down_per_resource(github: githubkit.GitHub[Any]) -> None:
    first = github.rest.repos.get(OWNER, NAME).headers
    second = github.rest.repos.get(OWNER, NAME).headers
    assert int(first["x-ratelimit-remaining"]) - int(second["x-ratelimit-remaining"]) == 1
    assert int(second["x-ratelimit-reset"]) == int((NOW + dt.timedelta(hours=1)).timestamp())
    assert second["x-ratelimit-resource"] == "core"


def test_comment_ids_above_two_to_the_31_round_trip(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    big = 2**31 + 5
    double.load(example_state(comments=[comment(big, 8325, "alice", "hi")]))
    made = github.rest.issues.create_comment(OWNER, NAME, 8325, body="reply").parsed_data
    assert made.id == big + 1
    assert github.rest.reactions.create_for_issue_comment(OWNER, NAME, big, content="eyes").status_code == 201
    assert [c["id"] for c in double.state()["comments"]] == [big, big + 1]


def test_a_comment_over_githubs_limit_is_refused(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    with pytest.raises(RequestFailed) as refused:
        github.rest.issues.create_comment(OWNER, NAME, 8325, body="x" * 65537)
    assert refused.value.response.status_code == 422
    assert double.state()["comments"] == []


def test_every_answer_is_json_with_rate_limit_headers(double: GitHubDouble) -> None:
    with (
        httpx.Client(transport=double.transport(), base_url="https://api.github.com") as http,
        openapi_check.unserved(),
    ):
        answers = [http.get(f"/repos/{OWNER}/{NAME}"), http.get("/", headers={"authorization": "token test-token"})]
    for answer in answers:
        assert answer.headers["content-type"] == "application/json; charset=utf-8"
        assert answer.headers["x-ratelimit-limit"] == "5000"


def test_a_person_with_write_access_merges_a_pull_request_as_github_does() -> None:
    """PUT .../pulls/N/merge (docs.github.com/rest/pulls/pulls#merge-a-pull-request): 200 with the
    merge commit; 409 when `sha` is not the head; 405 once it is merged; 403 without write access."""
    people = {"dana-token": "dana", "robin-token": "robin"}
    state = example_state(comments=[], permissions={"dana": "write", "robin": "read"})
    double = make_double(state, tokens=people)
    with client(double) as gh:
        number = open_pull(gh, double, {SNAPSHOT: "merged: yes\n"})
    head = double.tip(BRANCH)
    with client(double, "robin-token") as gh, pytest.raises(RequestFailed) as refused:
        gh.rest.pulls.merge(OWNER, NAME, number)
    assert refused.value.response.status_code == 403
    with client(double, "dana-token") as gh:
        with pytest.raises(RequestFailed) as moved:
            gh.rest.pulls.merge(OWNER, NAME, number, sha="0" * 40)
        assert moved.value.response.status_code == 409
        merged = gh.rest.pulls.merge(OWNER, NAME, number, sha=head).parsed_data
        assert (merged.merged, merged.sha) == (True, double.tip("main"))
        with pytest.raises(RequestFailed) as again:
            gh.rest.pulls.merge(OWNER, NAME, number)
        assert again.value.response.status_code == 405
    assert double.files("main")[SNAPSHOT] == "merged: yes\n"
    assert next(p for p in double.state()["pulls"] if p["number"] == number)["state"] == "merged"
