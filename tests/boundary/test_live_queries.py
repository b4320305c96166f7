"""The live adapter's GraphQL documents and their mapping, without a server: every document
validates against GitHub's published schema, batches stay within 50 aliases, and GitHub's
spellings (Bot logins, deleted authors, reaction names, BigInt ids) map onto `Observed`."""

from __future__ import annotations

import pytest
from graphql import GraphQLSchema, parse, validate

from bot.github.live import nodes, query
from bot.github.live.observe import batches
from bot.github.live.publish import PUBLISHED_QUERY
from bot.github.live.query import (
    ISSUES_PER_QUERY,
    Native,
    comments_query,
    dashboards_query,
    first_query,
    issues_query,
)
from bot.github.live.writes import MOVE_BRANCH


@pytest.mark.parametrize(
    "document",
    [
        first_query(3, 2, [8324, 8325], with_viewer=True),
        first_query(2, 2, [], with_viewer=False),
        first_query(2, 2, list(range(1, ISSUES_PER_QUERY + 1)), with_viewer=True),
        issues_query([9420]),
        comments_query([9420, 9497]),
        first_query(2, 2, [8324], with_viewer=True, branch_files=1),
        PUBLISHED_QUERY,
        first_query(3, 2, [8324, 8325], with_viewer=False, native=Native(labels=True, links=True)),
        first_query(3, 2, [8324], with_viewer=False, native=Native(labels=True)),
        first_query(3, 2, [8324], with_viewer=False, branch_files=1, native=Native(labels=True, links=True)),
        issues_query([9420], Native(labels=True, links=True)),
        first_query(3, 2, [8324], with_viewer=True, native=Native(labels=True, links=True), since=True, dashboard=True),
        first_query(3, 2, [8324], with_viewer=False, native=Native(labels=True, label_names=7)),
        dashboards_query(),
        MOVE_BRANCH,
        first_query(2, 2, [8324], with_viewer=False, pull_leases=True),
        query.more_pull_leases_query(),
        query.pull_pages_query({12: ("Y3Vyc29y", None), 13: (None, "Y3Vyc29y"), 14: ("Y3Vyc29y", "Y3Vyc29y")}),
        query.pull_pages_query({12: ("Y3Vyc29y", None)}),
        query.force_pushes_query([12, 9]),
        first_query(
            3,
            2,
            [8324],
            with_viewer=False,
            native=Native(labels=True, links=True, label_names=7),
            elsewhere=[[12, 13], [7]],
        ),
        query.elsewhere_query([51, 52], Native(labels=True, links=True)),
        query.qualified(query.links_query([(12, "blockedBy"), (13, "subIssues")])),
    ],
    ids=[
        "first",
        "first-pinned-login",
        "first-full",
        "issues",
        "comments",
        "first-readback",
        "published",
        "native",
        "labels-only",
        "readback-native",
        "issues-native",
        "dashboard",
        "state-labels-by-name",
        "more-dashboards",
        "move-branch",
        "pull-leases",
        "more-pull-leases",
        "pull-pages",
        "pull-paths-only",
        "force-pushes",
        "first-across-repositories",
        "issues-elsewhere",
        "links-across-repositories",
    ],
)
def test_every_document_validates_against_githubs_schema(github_schema: GraphQLSchema, document: str) -> None:
    assert validate(github_schema, parse(document)) == []


def test_issues_are_read_at_most_fifty_to_a_query() -> None:
    groups = batches(range(1, 131))
    assert [len(g) for g in groups] == [50, 50, 30]
    assert batches([5, 3, 5]) == [[3, 5]]


def test_authors_map_to_rest_logins() -> None:
    assert nodes.login_of({"__typename": "Bot", "login": "perfbot"}) == ("perfbot[bot]", "Bot")
    assert nodes.login_of({"__typename": "User", "login": "alice"}) == ("alice", "User")
    assert nodes.login_of({"__typename": "Organization", "login": "acme"}) == ("acme", "Organization")
    assert nodes.login_of(None) == ("ghost", "User")


def test_comments_carry_big_ids_edits_and_the_bots_own_reactions() -> None:
    page = {
        "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29y"},
        "nodes": [
            {
                "fullDatabaseId": "5428177527",
                "author": {"__typename": "User", "login": "alice"},
                "createdAt": "2026-08-27T10:00:00Z",
                "lastEditedAt": "2026-08-27T10:05:00Z",
                "body": "/perf help",
                "reactionGroups": [
                    {"content": "EYES", "viewerHasReacted": True},
                    {"content": "THUMBS_UP", "viewerHasReacted": True},
                    {"content": "ROCKET", "viewerHasReacted": False},
                ],
            }
        ],
    }
    (comment,), reactions = nodes.comments_of(8325, page, "perfbot[bot]")
    assert (comment.id, comment.issue, comment.user, comment.edited) == (5428177527, 8325, "alice", True)
    assert [(r.comment_id, r.user, r.content) for r in reactions] == [
        (5428177527, "perfbot[bot]", "eyes"),
        (5428177527, "perfbot[bot]", "+1"),
    ]
    assert nodes.next_cursor(page) == "Y3Vyc29y"


def test_issue_state_and_reason_use_rests_spelling() -> None:
    node = {
        "number": 7,
        "title": "t",
        "state": "CLOSED",
        "stateReason": "REOPENED",
        "assignees": {"nodes": [{"login": "a"}]},
    }
    issue = nodes.issue_of(node)
    assert (issue.state, issue.state_reason, issue.assignees) == ("closed", "reopened", ("a",))


GITHUBS = {"isValid": True, "wasSignedByGitHub": True}


def test_a_commit_is_the_bots_only_when_github_signed_it_for_the_bot() -> None:
    bot = "perfbot[bot]"
    assert nodes.made_by({"author": {"name": bot, "user": None}, "signature": GITHUBS}, bot)
    # Anyone can push a commit that names perfbot as its author: GitHub signs none of those as perfbot's.
    assert not nodes.made_by({"author": {"name": bot, "user": None}}, bot)
    assert not nodes.made_by({"author": {"name": bot, "user": None}, "signature": None}, bot)
    # A person's own key, or a signature GitHub could not verify.
    assert not nodes.made_by(
        {"author": {"name": bot, "user": None}, "signature": {"isValid": True, "wasSignedByGitHub": False}}, bot
    )
    assert not nodes.made_by(
        {"author": {"name": bot, "user": None}, "signature": {"isValid": False, "wasSignedByGitHub": True}}, bot
    )
    # GitHub signs a person's web commit as theirs: a display name of perfbot's login is still a user.
    assert not nodes.made_by({"author": {"name": bot, "user": {"login": "mallory"}}, "signature": GITHUBS}, bot)
    assert not nodes.made_by({"author": {"name": "octocat", "user": {"login": "octocat"}}, "signature": GITHUBS}, bot)
    assert not nodes.made_by(None, bot)


def test_the_readback_is_one_more_field_of_the_first_query() -> None:
    plain, with_readback = first_query(2, 2, [8324], True), first_query(2, 2, [8324], True, branch_files=1)
    assert first_query(2, 2, [8324], True, branch_files=0) == plain
    assert "$branchFile0: String!" in with_readback
    assert "branchFile0: object(expression: $branchFile0) { ...BlobText }" in with_readback
    assert len(with_readback.splitlines()) == len(plain.splitlines()) + 1


def test_labels_links_and_label_events_map_onto_the_issue() -> None:
    node = {
        "number": 9230,
        "state": "OPEN",
        "fullDatabaseId": "3456789012",
        "labels": {"nodes": [{"name": "perf/ready"}, {"name": "bug"}]},
        "blockedBy": {"nodes": [{"number": 8325}, None]},
        "parent": {"number": 9430},
        "subIssues": {"nodes": [{"number": 1}]},
        "timelineItems": {
            "nodes": [
                {
                    "__typename": "LabeledEvent",
                    "createdAt": "2026-08-27T16:30:00Z",
                    "actor": {"__typename": "Bot", "login": "perfbot"},
                    "label": {"name": "perf/ready"},
                },
                {
                    "__typename": "UnlabeledEvent",
                    "createdAt": "2026-08-27T17:00:00Z",
                    "actor": {"__typename": "User", "login": "alice"},
                    "label": {"name": "perf/ready"},
                },
                {"__typename": "ClosedEvent"},
            ]
        },
    }
    issue = nodes.issue_of(node)
    assert (issue.labels, issue.blocked_by, issue.parent, issue.database_id) == (
        ("perf/ready", "bug"),
        (8325,),
        9430,
        3456789012,
    )
    assert nodes.sub_issues(node) == (1,)
    events = nodes.label_events_of(9230, node)
    assert [(e.action, e.actor) for e in events] == [("labeled", "perfbot[bot]"), ("unlabeled", "alice")]
    bare = nodes.issue_of({"number": 1})
    assert (bare.labels, bare.blocked_by, bare.parent, bare.database_id) == ((), (), None, None)


def test_the_dashboard_is_one_more_field_of_the_first_query_mapped_with_its_author_and_body() -> None:
    plain, with_dashboard = first_query(2, 2, [8324], True), first_query(2, 2, [8324], True, dashboard=True)
    assert first_query(2, 2, [8324], True, dashboard=False) == plain
    assert "$dashboardLabel: String!" in with_dashboard
    assert "dashboard: issues(labels: [$dashboardLabel], states: [OPEN, CLOSED]" in with_dashboard
    node = {
        "number": 9499,
        "title": "perfbot dashboard",
        "state": "CLOSED",
        "author": {"__typename": "Bot", "login": "perfbot"},
        "body": "<!-- perfbot:dashboard board -->",
        "labels": {"nodes": [{"name": "perfbot-dashboard"}, None]},
    }
    issue = nodes.dashboard_issue(node)
    assert (issue.number, issue.state, issue.user, issue.labels) == (
        9499,
        "closed",
        "perfbot[bot]",
        ("perfbot-dashboard",),
    )
    assert issue.body == "<!-- perfbot:dashboard board -->"
    assert nodes.dashboard_issue(node | {"state": "OPEN", "author": None, "body": None}).user == "ghost"


def test_other_repositories_are_more_fields_of_the_first_query_and_the_seed_reads_as_before() -> None:
    native = Native(labels=True, links=True, label_names=7)
    plain = first_query(3, 2, [8324], True, native=native)
    assert first_query(3, 2, [8324], True, native=native, elsewhere=[]) == plain
    across = first_query(3, 2, [8324], True, native=native, elsewhere=[[12], [7, 9]])
    assert "r0: repository(owner: $r0Owner, name: $r0Name)" in across
    assert "r1: repository(" in across
    assert across.count("viewerCanUpdate viewerCanLabel") == 3
    # Across repositories a link names its issue's repository: a number alone is ambiguous.
    assert "nodes { number repository { nameWithOwner } }" in across
    assert "nodes { number repository" not in plain
