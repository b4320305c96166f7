"""The GitHub double's own executor (`tests/github_double/graphql_exec.py`) answers every document it
covers exactly as graphql-core's `execute` does, and declines the rest before anything runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from graphql import ExecutionResult, GraphQLError, build_schema, execute, parse, validate
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.github_double import graphql_exec
from tests.github_double.graphql_api import _field, _type, error_entry
from tests.property_budget import examples

SCHEMA = build_schema("""
interface Node { id: ID! }
enum Color { RED GREEN }
type Item implements Node { id: ID! name: String tags: [String!] must: String! kids: [Item] strict: [Item!]! color: Color }
type Other implements Node { id: ID! size: Int }
type Loner { x: Int }
union Any = Item | Other | Loner
type Query { item(id: ID!): Item items(first: Int = 2): [Item!] node(id: ID!): Node any: [Any] must: Item! count: Int }
type Mutation { touch(n: Int!): Int }
""")

QUERIES = [
    "{ item(id: 1) { id name tags must } }",
    "{ a: item(id: 1) { id } b: item(id: 2) { name } count }",
    "query Q($id: ID!) { item(id: $id) { ...F kids { id must } } } fragment F on Item { name color __typename }",
    "{ items { id strict { id must } } }",
    "{ items(first: 1) { id ... on Item { tags } } }",
    "{ node(id: 1) { id __typename ... on Item { name } ... on Other { size } } }",
    "{ any { __typename ... on Node { id } ... on Item { must } } }",
    "{ must { id kids { kids { id must } } } }",
    "{ item(id: 1) { ...F ...F id } } fragment F on Item { name id }",
    "{ item(id: 1) { id name } item(id: 1) { kids { id } } }",
    "{ item(id: 1) { ...F } item(id: 1) { ...F kids { ...F } } } fragment F on Item { must name }",
    "{ node(id: 1) { ...N } node(id: 1) { ...N } } fragment N on Node { id ... on Item { must } }",
]


def _raise(kind: str) -> Any:
    def resolver(info: Any, **args: Any) -> Any:
        raise GraphQLError(f"no {kind}", extensions={"type": "NOT_FOUND"})

    return resolver


LEAF = st.one_of(st.none(), st.text(max_size=3), st.integers(-3, 3), st.sampled_from(["RED", "GREEN", _raise("leaf")]))


@st.composite
def items(draw: st.DrawFn, depth: int = 2) -> Any:
    """An `Item` as the double holds one: a dict by GraphQL name, with nulls (allowed or not) and
    resolvers that fail anywhere."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, _raise("item")]))
    kids = st.lists(items(depth - 1), max_size=2) if depth else st.just([])
    return {
        "typename": "Item",
        "id": draw(st.sampled_from(["i1", "i2", None, 7])),
        "name": draw(LEAF),
        "tags": draw(st.none() | st.lists(st.sampled_from(["t", None]), max_size=3)),
        "must": draw(st.sampled_from(["m", None, _raise("must")])),
        "kids": draw(st.none() | kids),
        "strict": draw(st.none() | kids),
        "color": draw(st.sampled_from(["RED", None, "BLUE"])),
    }


@st.composite
def roots(draw: st.DrawFn) -> dict[str, Any]:
    item = draw(items())
    listed = draw(st.none() | st.lists(items(1), max_size=3))
    # A type name the schema lacks, not an object type, or not a `Node` (`Loner`): refused in
    # graphql-core's words where the schema does not allow it.
    kind = draw(st.sampled_from(["Other", "Other", "Nope", "Node", "Loner"]))
    other = {"typename": kind, "id": "o1", "size": draw(LEAF), "x": 1}
    node = draw(st.sampled_from([item, other, None]))
    return {
        "item": lambda info, id: item,
        "items": lambda info, first: None if listed is None else listed[:first],
        "node": lambda info, id: node,
        "any": [item, other, None],
        "must": item,
        "count": draw(LEAF),
    }


def shown(data: dict[str, Any] | None, errors: list[GraphQLError]) -> str:
    """The answer as JSON, each error with what the double's body takes from it and the kind of
    exception it stands for (a null where none may be is a `TypeError`, as graphql-core raises it)."""
    shown_errors = [
        {**error_entry(e), "original": type(e.original_error).__name__, "extensions": e.extensions} for e in errors
    ]
    return json.dumps({"data": data, "errors": shown_errors})


def by_graphql_core(query: str, root: Any, variables: dict[str, Any] | None = None) -> str:
    result = execute(SCHEMA, parse(query), root, variable_values=variables, field_resolver=_field, type_resolver=_type)
    assert isinstance(result, ExecutionResult)
    return shown(result.data, result.errors or [])


def by_own(query: str, root: Any, variables: dict[str, Any] | None = None) -> str | None:
    result = graphql_exec.execute(
        SCHEMA, parse(query), root_value=root, variable_values=variables, field_resolver=_field, type_resolver=_type
    )
    return None if result is None else shown(result.data, result.errors)


def test_the_queries_are_valid() -> None:
    assert all(not validate(SCHEMA, parse(query)) for query in QUERIES)


@settings(max_examples=examples(600, bounded=30), deadline=None)
@given(query=st.sampled_from(QUERIES), root=roots())
def test_each_covered_query_is_answered_as_graphql_core_answers_it(query: str, root: dict[str, Any]) -> None:
    """Data, nulls (a non-null one nulls the nearest nullable field or item above it), errors
    (message, type, path, locations) and key order: the same JSON."""
    variables = {"id": "1"} if "$id" in query else None
    assert by_own(query, root, variables) == by_graphql_core(query, root, variables)


def touching(calls: list[int]) -> dict[str, Any]:
    def touch(info: Any, n: int) -> int | None:
        calls.append(n)
        if n == 3:
            raise GraphQLError("no", extensions={"type": "UNPROCESSABLE"})
        return None if n == 4 else n * 2**31  # past Int's 32 bits: refused by coercion

    return {"touch": touch}


@pytest.mark.parametrize(
    "mutation",
    [
        "mutation { a: touch(n: 0) b: touch(n: 3) c: touch(n: 4) }",
        "mutation M($n: Int!) { a: touch(n: $n) b: touch(n: 1) }",
    ],
)
def test_a_mutation_runs_its_fields_once_each_in_order_as_graphql_core_does(mutation: str) -> None:
    own_calls: list[int] = []
    core_calls: list[int] = []
    variables = {"n": 4} if "$n" in mutation else None
    assert by_own(mutation, touching(own_calls), variables) == by_graphql_core(
        mutation, touching(core_calls), variables
    )
    assert own_calls == core_calls
    assert len(own_calls) == len(set(own_calls))


@pytest.mark.parametrize(
    "query",
    [
        "{ item(id: 1) { id @include(if: true) } }",
        "{ __schema { queryType { name } } }",
        '{ item(id: 1) { __type(name: "Item") { name } } }',
        "query A { count } query B { count }",
        "subscription { count }",
        "query Q($n: Int!) { items(first: $n) { id } }",  # no value for $n: graphql-core words the error
    ],
)
def test_what_it_does_not_cover_is_declined_before_anything_runs(query: str) -> None:
    ran: list[str] = []
    root = {"count": lambda info: ran.append("count"), "items": lambda info, first: ran.append("items")}
    assert by_own(query, root) is None
    assert ran == []


@pytest.mark.parametrize(
    ("query", "data"),
    [
        ("{ count must { id } }", None),  # `Item.id` and `Query.must` are non-null: the data is null
        ("{ items { id strict { id } } }", {"items": None}),  # up to the nearest nullable field
        ("{ item(id: 1) { kids { id } } }", {"item": {"kids": [None]}}),  # or nullable item
    ],
)
def test_a_null_where_none_may_be_nulls_the_nearest_nullable_position(query: str, data: Any) -> None:
    bad: dict[str, Any] = {
        "typename": "Item",
        "id": None,
        "must": "m",
        "strict": [{"typename": "Item", "id": None}],
        "kids": [{}],
    }
    root = {"count": 1, "must": bad, "items": lambda info, first: [bad], "item": lambda info, id: bad}
    own = by_own(query, root)
    assert own == by_graphql_core(query, root)
    assert own is not None
    assert json.loads(own)["data"] == data


@pytest.mark.parametrize(
    "query",
    [
        "{ node(id: 1) { id } }",  # `Loner` is no `Node`: refused as graphql-core refuses it
        "{ any { __typename ... on Node { id } ... on Loner { x } } }",  # `... on Node` is not for a `Loner`
    ],
)
def test_a_type_outside_the_abstract_one_is_answered_as_graphql_core_answers_it(query: str) -> None:
    loner = {"typename": "Loner", "x": 1, "id": "l1"}
    root = {"node": lambda info, id: loner, "any": [loner, {"typename": "Other", "id": "o1"}]}
    own = by_own(query, root)
    assert own is not None
    assert own == by_graphql_core(query, root)
