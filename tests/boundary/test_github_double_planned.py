"""The double's planned executor (`graphql_planned`) against graphql-core's, the reference: on every
GraphQL request perfbot sends in live runs (the adapter's documents, bot/github/live/query.py) and
on its documents sent with answers GitHub refuses, both execute the same request on the same world.
An answer without errors is the same, key order included; an answer with errors, and every
mutation, is left to graphql-core (`Fallback`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import githubkit
import pytest
from githubkit.exception import GraphQLFailed
from graphql import (
    DocumentNode,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    OperationDefinitionNode,
    OperationType,
    execute_sync,
    parse,
)

from bot.github.live import query
from tests.github_double import GitHubDouble, graphql_api, graphql_planned, graphql_resolvers
from tests.github_double.graphql_root import Root
from tests.support import double_queries
from tests.support.double_support import NAME, OWNER, client, comment, example_state, graphql, make_double
from tests.support.harness import Repo, SharedTemplates


@dataclass(frozen=True)
class Exchange:
    query: str
    mutation: bool
    planned: dict[str, Any] | None  # None: it fell back
    reference: dict[str, Any]


def _is_mutation(document: DocumentNode, operation: Any) -> bool:
    found = [
        d
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode) and (operation is None or (d.name and d.name.value == operation))
    ]
    return bool(found) and found[0].operation is OperationType.MUTATION


@pytest.fixture
def exchanges(monkeypatch: pytest.MonkeyPatch) -> list[Exchange]:
    """Every GraphQL request the double answers meanwhile, executed by both executors (the planned
    one first: it falls back before a mutation's resolvers run, so nothing is written twice)."""
    seen: list[Exchange] = []

    def both(
        text: str, document: DocumentNode, root: Root, variables: dict[str, Any] | None, operation: Any
    ) -> dict[str, Any]:
        try:
            planned: dict[str, Any] | None = {
                "data": graphql_api.planned_data(text, document, root, variables, operation)
            }
        except graphql_planned.Fallback:
            planned = None
        root.world.forget_indexes()
        reference = graphql_api.graphql_core_body(document, root, variables, operation)
        seen.append(Exchange(text, _is_mutation(document, operation), planned, reference))
        return reference

    monkeypatch.setattr(graphql_api, "execute", both)
    return seen


def held_to_graphql_core(seen: list[Exchange]) -> tuple[int, int]:
    """How many answers the plan gave (each graphql-core's, byte for byte) and how many it left to
    graphql-core (each with errors, or a mutation)."""
    planned = fallen_back = 0
    for exchange in seen:
        if exchange.mutation or "errors" in exchange.reference:
            assert exchange.planned is None, exchange.query
            fallen_back += 1
        else:
            assert exchange.planned is not None, f"fell back without an error:\n{exchange.query}"
            assert json.dumps(exchange.planned) == json.dumps(exchange.reference), exchange.query
            planned += 1
    return planned, fallen_back


def test_every_request_of_live_runs_is_answered_as_graphql_core_answers(
    tmp_path: Path, shared_templates: SharedTemplates, capsys: pytest.CaptureFixture[str], exchanges: list[Exchange]
) -> None:
    repo = Repo(tmp_path, "live", templates=shared_templates.path)
    repo.walk_one_state = False  # the runs are here for their requests, not for what they decide
    repo.edit_state(permissions={"alice": "write", "mallory": "read"})
    repo.reply_to_all()
    repo.add_comment(2**32 + 7, 8325, "alice", "/perf claim mac.m1-streamed-q4k-no-copy")
    repo.add_comment(2**32 + 8, 9420, "mallory", "/perf block profile.real-cuda waiting")
    plan = repo.reconcile(capsys)
    repo.merge(plan)
    repo.reconcile(capsys)
    repo.add_comment(
        2**32 + 1000, 8325, "alice", "/perf unclaim mac.m1-streamed-q4k-no-copy", at="2026-08-27T11:00:00Z"
    )
    repo.reconcile(capsys)
    planned, fallen_back = held_to_graphql_core(exchanges)
    assert planned >= 5
    assert fallen_back >= 1  # the runs write through mutations too
    assert {e.mutation for e in exchanges} == {False, True}


def refused(gh: githubkit.GitHub[Any], document: str, **variables: Any) -> None:
    with pytest.raises(GraphQLFailed):
        graphql(gh, document, **variables)


def test_refused_requests_of_perfbots_documents_are_left_to_graphql_core(exchanges: list[Exchange]) -> None:
    double: GitHubDouble = make_double(example_state(comments=[comment(2**31 + 1, 8325, "alice", "/perf claim x")]))
    with client(double) as gh:
        # A repository GitHub does not resolve; an issue that is not there; cursors it never gave.
        refused(gh, query.issues_query([8325]), owner=OWNER, name="gone")
        refused(gh, query.issues_query([8325, 404]), owner=OWNER, name=NAME)
        refused(gh, query.comments_query([8325]), owner=OWNER, name=NAME, c8325="not-a-cursor")
        refused(gh, query.dashboards_query(), owner=OWNER, name=NAME, dashboardLabel="perf/x", after="@@")
        refused(gh, query.issues_query([8325]), owner=5, name=NAME)  # not a String: graphql-core's refusal
        answered = graphql(gh, query.issues_query([8325, 9420]), owner=OWNER, name=NAME)
    assert answered["repository"]["i8325"]["number"] == 8325
    assert held_to_graphql_core(exchanges) == (1, 5)


# Aliases, variables in @include and @skip, fragments spread twice, inline fragments on an
# interface and on object types, and `__typename` at every level: what perfbot's documents use
# little of, and the plan covers all the same.
SELECTIONS = """
query Selections($owner: String!, $name: String!, $body: Boolean!, $page: Int!, $expression: String!) {
  __typename
  repository(owner: $owner, name: $name) {
    __typename
    first: issue(number: 8325) {
      ...Brief
      ...Brief
      text: body @include(if: $body)
      comments(first: $page) @skip(if: $body) { totalCount nodes { id: fullDatabaseId } }
      comments(first: $page) @include(if: $body) { nodes { body author { __typename login ... on Bot { login } } } }
    }
    second: issue(number: 9420) { ... on Issue { number } ...Brief }
    object(expression: $expression) {
      __typename
      ...OnBlob
      ... on GitObject { oid }
      ... on Commit { message history(first: 2) { nodes { oid } } }
      ... on Blob { byteSize }
    }
  }
}
fragment Brief on Issue { __typename number title state labels(first: 5) { nodes { name } } }
fragment OnBlob on Blob { text }
"""


@pytest.mark.parametrize("body", [True, False])
def test_the_double_s_own_documents_and_every_kind_of_selection(exchanges: list[Exchange], body: bool) -> None:
    alice = comment(2**31 + 1, 8325, "alice", "/perf claim x")
    robot = comment(12, 8325, "helper[bot]", "hello", user_type="Bot")
    double: GitHubDouble = make_double(example_state(comments=[alice, robot]))
    variables: dict[str, Any] = {"owner": OWNER, "name": NAME, "number": 8325, "expression": "HEAD"}
    with client(double) as gh:
        graphql(gh, SELECTIONS, body=body, page=2 if body else 1, **variables)
        graphql(gh, double_queries.OBJECT, **{**variables, "expression": "HEAD:config/perfbot.yaml"})
        graphql(gh, double_queries.CHANGED_SINCE, since="2020-01-01T00:00:00Z", direction="DESC", **variables)
        graphql(gh, double_queries.PULLS, branch="perfbot/regenerate", states=["OPEN", "CLOSED"], **variables)
        graphql(gh, double_queries.ISSUE_IDS, **variables)
        refused(gh, double_queries.DATABASE_IDS, **variables)  # a 32-bit Int past 2^31
        refused(gh, double_queries.TOO_MANY, **variables)
        refused(gh, double_queries.UNBOUNDED, **variables)
        refused(gh, double_queries.MISSING_REPOSITORY)
    assert held_to_graphql_core(exchanges) == (5, 4)


@dataclass(frozen=True)
class Odd(Root):
    """A root whose values graphql-core refuses or must judge itself: `issue` answers what `made`
    makes afresh for each answer (a generator is read once)."""

    made: Callable[[], dict[str, Any]] = dict

    def viewer(self, info: Any) -> dict[str, Any]:
        return {"login": None}  # null in a non-null field: a bug of the double's, raised

    def repository(  # type: ignore[override]  # a dict of odd values, not a repository of the world
        self, info: Any, owner: str, name: str, follow_renames: bool = True
    ) -> dict[str, Any]:
        return {"nameWithOwner": f"{owner}/{name}", "issue": self.made()}


ODD_ISSUE = 'query { repository(owner: "o", name: "n") { issue(number: 1) { %s } } }'
TIMELINE = "timelineItems(first: 1) { nodes { __typename } }"
ODD: list[tuple[str, Callable[[], dict[str, Any]], bool]] = [
    ("query { viewer { login } }", dict, True),
    (ODD_ISSUE % "number", lambda: {"number": "many"}, True),  # not an Int
    (ODD_ISSUE % "author { login }", lambda: {"author": {"typename": "Repository", "login": "x"}}, True),
    (ODD_ISSUE % "author { login }", lambda: {"author": {"typename": "Nope", "login": "x"}}, True),
    (ODD_ISSUE % "author { login }", lambda: {"author": {"typename": 7, "login": "x"}}, True),
    (ODD_ISSUE % "author { login }", lambda: {"author": {"typename": "Bot", "login": "x"}}, False),
    (ODD_ISSUE % "labels(first: 1) { nodes { name } }", lambda: {"labels": {"nodes": iter([{"name": "a"}])}}, True),
    (ODD_ISSUE % "labels(first: 1) { nodes { name } }", lambda: {"labels": {"nodes": ({"name": "a"},)}}, False),
    (ODD_ISSUE % "state", lambda: {"state": "SHUT"}, True),  # not an IssueState
    (ODD_ISSUE % "state", lambda: {"state": "CLOSED"}, False),
    (ODD_ISSUE % "updatedAt", lambda: {"updatedAt": ValueError("no time")}, True),  # an error as a value
    (ODD_ISSUE % "author { login }", lambda: {"author": {"login": "x"}}, True),  # no type named
    # A type of another union (a PR's timeline's), and one of the union's own.
    (ODD_ISSUE % TIMELINE, lambda: {"timelineItems": {"nodes": [{"typename": "HeadRefForcePushedEvent"}]}}, True),
    (ODD_ISSUE % TIMELINE, lambda: {"timelineItems": {"nodes": [{"typename": "UnassignedEvent"}]}}, False),
    ("query { __schema { queryType { name } } }", dict, True),  # introspection
]


def outcome(answer: Callable[[], dict[str, Any]]) -> tuple[str, str]:
    """The answer's body as sent (key order included), or the error the double raised."""
    try:
        return "answer", json.dumps(answer())
    except Exception as exc:  # the error is the outcome compared
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize(("text", "made", "falls_back"), ODD)
def test_values_the_plan_does_not_cover_are_answered_by_graphql_core(
    text: str, made: Callable[[], dict[str, Any]], falls_back: bool
) -> None:
    """Null in a non-null field, a value its scalar or enum cannot hold, a runtime type the field's
    interface does not allow or the schema lacks, a list given as another iterable: graphql-core's."""
    root = Odd(make_double(example_state()).world, "octocat", dict, made)
    document = graphql_api.checked(text)[0]
    assert document is not None
    try:
        graphql_api.planned_data(text, document, root, None, None)
    except graphql_planned.Fallback:
        fell_back = True
    else:
        fell_back = False
    assert fell_back is falls_back
    reference = outcome(lambda: graphql_api.graphql_core_body(document, root, None, None))
    assert outcome(lambda: graphql_api.execute(text, document, root, None, None)) == reference


# Variables given as null where their defaults would hold: graphql-core refuses an argument, or a
# directive's `if`, that must not be null.
NULLED = [
    ("query($n: Int = 8325) { repository(owner: $o, name: $r) { issue(number: $n) { number } } }", False),
    ("query($x: Boolean = true) { repository(owner: $o, name: $r) { nameWithOwner @include(if: $x) } }", True),
]


@pytest.mark.parametrize(("text", "in_a_directive"), NULLED)
def test_arguments_graphql_core_refuses_are_graphql_core_s(text: str, in_a_directive: bool) -> None:
    text = text.replace("query(", "query($o: String!, $r: String!, ")
    root = Root(make_double(example_state()).world, "octocat", dict)
    document = graphql_api.checked(text)[0]
    assert document is not None
    variables = {"o": OWNER, "r": NAME, "n": None, "x": None}
    with pytest.raises(graphql_planned.Fallback):
        graphql_api.planned_data(text, document, root, variables, None)
    reference = outcome(lambda: graphql_api.graphql_core_body(document, root, variables, None))
    assert outcome(lambda: graphql_api.execute(text, document, root, variables, None)) == reference
    assert "not to be None" in reference[1]
    assert in_a_directive is ("Argument 'if'" in reference[1])


def _own_schema() -> GraphQLSchema:
    """What an SDL-built schema such as the double's never has, and the plan leaves to graphql-core:
    a scalar coercing a value to null, an object type's own `is_type_of`, an interface's own
    `resolve_type`, a field's own resolver."""
    name = {"name": GraphQLField(GraphQLString)}
    thing = GraphQLInterfaceType("Thing", name, resolve_type=lambda value, info, kind: "Tin")
    plain = GraphQLInterfaceType("Plain", name)
    box = GraphQLObjectType("Box", name, interfaces=[thing], is_type_of=lambda value, info: True)
    tin = GraphQLObjectType("Tin", name, interfaces=[thing, plain])
    crate = GraphQLObjectType("Crate", name, interfaces=[plain], is_type_of=lambda value, info: True)
    fields = {
        "nothing": GraphQLField(GraphQLScalarType("Nothing", serialize=lambda value: None)),
        "box": GraphQLField(box),
        "thing": GraphQLField(thing),
        "plain": GraphQLField(plain),
        "own": GraphQLField(GraphQLString, resolve=lambda source, info: "own"),
        "plains": GraphQLField(GraphQLList(GraphQLList(plain))),
    }
    return GraphQLSchema(GraphQLObjectType("Query", fields), types=[box, tin, crate])


@pytest.mark.parametrize(
    ("text", "falls_back"),
    [
        ("{ nothing }", True),
        ("{ box { name } }", True),
        ("{ thing { name } }", True),
        ("{ plain { name } }", True),
        ("{ own }", True),
        ("{ __typename }", False),
    ],
)
def test_what_a_schema_of_its_own_decides_is_graphql_core_s(text: str, falls_back: bool) -> None:
    root = {"nothing": 1, "box": {"name": "b"}, "thing": {"typename": "Tin", "name": "t"}}
    root["plain"] = {"typename": "Crate", "name": "c"}
    run = functools.partial(
        graphql_planned.execute, _own_schema(), text, parse(text), root, None, None, graphql_resolvers.field
    )
    if falls_back:
        with pytest.raises(graphql_planned.Fallback):
            run(graphql_resolvers.type_name)
    else:
        assert run(graphql_resolvers.type_name) == {"__typename": "Query"}


def test_resolvers_are_given_graphql_core_s_resolve_info() -> None:
    """Each method, and the type resolver, sees the path graphql-core gives it (an item of a list:
    its own; the type of an item: the list's field's), and the field's nodes (a fragment spread
    twice gives its fields once)."""
    seen: dict[str, list[Any]] = {"planned": [], "graphql-core": []}

    def item(index: int) -> dict[str, Any]:
        def name(info: GraphQLResolveInfo[Any]) -> str:
            return f"{info.path.as_list()} {info.path.typename} {len(info.field_nodes)}"

        return {"typename": "Tin", "name": name}

    root = {"plains": [[item(0), item(1)], [item(2)]]}
    text = "{ plains { name ... on Tin { name } ...Named ...Named } } fragment Named on Plain { name }"
    document = parse(text)

    def typed(who: str) -> Any:
        def type_name(value: Any, info: GraphQLResolveInfo[Any], kind: Any) -> str:
            seen[who].append(info.path.as_list())
            return graphql_resolvers.type_name(value, info, kind)

        return type_name

    planned = graphql_planned.execute(
        _own_schema(), text, document, root, None, None, graphql_resolvers.field, typed("planned")
    )
    reference = execute_sync(
        _own_schema(), document, root, field_resolver=graphql_resolvers.field, type_resolver=typed("graphql-core")
    )
    assert reference.errors is None
    assert planned == reference.data
    assert seen["planned"] == seen["graphql-core"] == [["plains"]] * 3
    assert planned["plains"][1][0]["name"] == "['plains', 1, 0, 'name'] Tin 3"


def test_a_type_resolver_s_answer_that_names_no_type_is_graphql_core_s() -> None:
    def a_list(*_: Any) -> Any:
        return ["Crate"]

    text = "{ plain { name } }"
    with pytest.raises(graphql_planned.Fallback):
        graphql_planned.execute(
            _own_schema(), text, parse(text), {"plain": {}}, None, None, graphql_resolvers.field, a_list
        )
