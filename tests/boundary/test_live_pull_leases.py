"""Pull requests as leases, read live from the GitHub double: in the run's one query at seed scale,
paged past 100 paths or 50 PRs, a PR over GitHub's 3,000-file list taken as `**` without paging,
the paths paged once kept by the observation cache, and the double's answers held to GitHub's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.e2e.test_pull_leases import BOTH, leases_from, open_prs, person_pr
from tests.support.backends import NOW, cli_over, double_on, live_environ
from tests.support.double_support import client, graphql, make_double
from tests.support.harness import Repo, packet

M1 = "mac.m1-streamed-q4k-no-copy"


def run(sandbox: Repo, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    double = double_on(sandbox.state_path, sandbox.root)
    argv = ["reconcile", "--config", str(sandbox.config), "--json", "--dry-run", "--now", NOW.isoformat(), *extra]
    with cli_over(double):
        assert main(argv, environ=live_environ(double.world.repository)) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    return plan


@pytest.fixture
def site(tmp_path: Path) -> Repo:
    sandbox = Repo(tmp_path, adapter="live")
    leases_from(sandbox, BOTH)
    return sandbox


def test_the_seed_with_prs_is_still_one_graphql_request(site: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    open_prs(site, *(person_pr(50 + n, f"dev{n}", [f"src/part{n}/a.go"]) for n in range(5)))
    plan = run(site, capsys)
    assert plan["api"]["graphql"] == 1
    assert plan["api"]["pull_requests_read"] == 5
    assert plan["api"]["pull_request_queries"] == 0
    assert plan["api"]["pull_request_points"] == 2  # the first query's share, by GitHub's formula


def test_paths_past_one_page_are_read_once_then_kept_by_the_cache(
    site: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [f"src/f{i:03}.go" for i in range(250)] + ["docs/_witnesses/late.md"]  # the collision on page 3
    open_prs(site, person_pr(60, "alice", paths))
    cache_file = tmp_path / "cache.json"
    first = run(site, capsys, "--cache", str(cache_file))
    assert packet(first, M1)["derived_state"] == "waiting-coordination"
    assert (first["api"]["pull_request_queries"], first["api"]["graphql"]) == (2, 3)
    assert json.loads(cache_file.read_text(encoding="utf-8"))["pulls"]["60"]["paths"][-1] == "docs/_witnesses/late.md"
    second = run(site, capsys, "--cache", str(cache_file))
    assert (second["api"]["pull_request_queries"], second["api"]["graphql"]) == (0, 1)
    assert packet(second, M1)["reasons"] == packet(first, M1)["reasons"]


def test_a_pr_over_githubs_file_list_claims_everything_unpaged(site: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    open_prs(site, person_pr(61, "bob", [f"src/g{i}.go" for i in range(3001)]))
    plan = run(site, capsys)
    assert plan["api"]["pull_request_queries"] == 0
    assert packet(plan, M1)["reasons"][0]["detail"] == "**"
    assert plan["leases"]["warnings"] == [
        "PR #61 changes 3,001 files, more than GitHub lists (3,000): it is taken to claim every path (`**`)"
    ]


def test_open_prs_past_one_page_are_read_and_closed_ones_are_released(
    site: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    others = [person_pr(100 + n, f"dev{n}", [f"src/p{n}.go"]) for n in range(55)]
    merged = person_pr(200, "carol", ["docs/_witnesses/m1.md"], state="merged", closed_at="2026-08-27T21:00:00Z")
    open_prs(site, *others, person_pr(199, "erin", ["docs/_witnesses/x.md"]), merged)
    plan = run(site, capsys)
    assert plan["api"]["pull_requests_read"] == 57
    assert plan["api"]["pull_request_queries"] == 1
    assert [r["subject"] for r in packet(plan, M1)["reasons"]] == ["PR #199 by erin"]


def test_the_double_serves_files_and_closing_references_as_github_does() -> None:
    state = {
        "repository": "owner/name",
        "issues": [{"number": 1, "title": "a"}, {"number": 2, "title": "b"}, {"number": 3, "title": "c"}],
        "pulls": [
            person_pr(7, "alice", ["a.go", "b.go"], body="Fixes #1, closes: #2 and fix #99; see #3"),
            person_pr(8, "bob", ["c.go"], closes=[3], draft=True),
        ],
    }
    document = """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
      pullRequests(states: [OPEN], first: 10) { nodes {
        number isDraft changedFiles author { __typename login }
        files(first: 1) { totalCount pageInfo { hasNextPage } nodes { path changeType } }
        closingIssuesReferences(first: 10) { nodes { number } }
        linked: closingIssuesReferences(first: 10, userLinkedOnly: true) { nodes { number } }
      } } } }"""
    double = make_double(state)
    with client(double) as gh:
        data = graphql(gh, document, owner="owner", name="name")
    seven, eight = data["repository"]["pullRequests"]["nodes"]
    assert (seven["isDraft"], seven["changedFiles"], seven["author"]) == (
        False,
        2,
        {"__typename": "User", "login": "alice"},
    )
    assert seven["files"] == {
        "totalCount": 2,
        "pageInfo": {"hasNextPage": True},
        "nodes": [{"path": "a.go", "changeType": "MODIFIED"}],
    }
    assert [n["number"] for n in seven["closingIssuesReferences"]["nodes"]] == [1, 2]  # #99 is not an issue here
    assert seven["linked"]["nodes"] == []
    assert ([n["number"] for n in eight["closingIssuesReferences"]["nodes"]], eight["isDraft"]) == ([3], True)
