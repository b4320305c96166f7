"""POST /graphql: parse and validate with graphql-core (against `schema.graphql`, the subset the
double's resolvers answer, and GitHub's published schema when it is fetched), execute against the
subset (a query by the double's planned executor, `graphql_planned`; a mutation, and any answer
with an error, by graphql-core's), and answer in GitHub's shape (HTTP 200; errors carry their
`type` at the top level, next to `path`)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)

from tests.github_double import graphql_execution, graphql_planned, graphql_resolvers, published
from tests.github_double.graphql_cost import Cost, query_cost
from tests.github_double.graphql_root import Root
from tests.github_double.limits import RateLimits
from tests.github_double.protocol import Request
from tests.github_double.world import World

SCHEMA_FILE = Path(__file__).with_name("schema.graphql")


@functools.cache
def schema() -> GraphQLSchema:
    return build_schema(SCHEMA_FILE.read_text(encoding="utf-8"))


def error_entry(err: GraphQLError) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    kind = (err.extensions or {}).get("type")
    if kind:
        entry["type"] = kind
    if err.path:
        entry["path"] = list(err.path)
    if err.locations:
        entry["locations"] = [{"line": loc.line, "column": loc.column} for loc in err.locations]
    entry["message"] = err.message
    return entry


@functools.lru_cache(maxsize=1024)
def checked(query: str) -> tuple[DocumentNode | None, tuple[GraphQLError, ...]]:
    """The parsed document, or None and why GitHub would refuse it. Parsing and validating are pure
    and the adapter sends the same few documents over and over, so each text is checked once per
    process (the AST is only read by `execute`)."""
    try:
        document = parse(query)
    except GraphQLError as err:
        return None, (err,)
    problems = validate(schema(), document)
    github = published.load()
    if not problems and github is not None:
        problems = validate(github, document)
    return (None, tuple(problems)) if problems else (document, ())


def answer(world: World, viewer: str, request: Request, rate: RateLimits) -> dict[str, Any]:
    """The response body of one GraphQL request (always HTTP 200, as GitHub answers)."""
    data = request.json()
    query = data.get("query") if isinstance(data, dict) else None
    if not isinstance(query, str):
        return {"errors": [{"message": "A query attribute must be specified and must be a string."}]}
    document, problems = checked(query)
    if document is None:
        return {"errors": [error_entry(p) for p in problems]}
    variables = data.get("variables")
    variables = variables if isinstance(variables, dict) else None
    rate.charge(_cost(query, document, variables, data.get("operationName")))
    world.forget_indexes()  # what changed since the last answer is read afresh
    return execute(query, document, Root(world, viewer, rate.graphql), variables, data.get("operationName"))


def execute(
    query: str, document: DocumentNode, root: Root, variables: dict[str, Any] | None, operation: Any
) -> dict[str, Any]:
    """The answer's body, executed against the subset, not GitHub's whole schema: it is what the
    resolvers answer, and the double works without the published schema fetched."""
    if operation is None or isinstance(operation, str):
        try:
            return {"data": planned_data(query, document, root, variables, operation)}
        except graphql_planned.Fallback:
            root.world.forget_indexes()  # read afresh, as for any answer
    return graphql_core_body(document, root, variables, operation)


def planned_data(
    query: str, document: DocumentNode, root: Root, variables: dict[str, Any] | None, operation: str | None
) -> dict[str, Any]:
    """The answer's `data` by the planned executor, or `graphql_planned.Fallback`."""
    field, type_name = graphql_resolvers.field, graphql_resolvers.type_name
    return graphql_planned.execute(schema(), query, document, root, variables, operation, field, type_name)


def graphql_core_body(
    document: DocumentNode, root: Root, variables: dict[str, Any] | None, operation: Any
) -> dict[str, Any]:
    """The answer's body as graphql-core's executor gives it. Every resolver is synchronous, which
    `execute_sync` assumes instead of asking it of each of thousands of values."""
    result = execute_sync(
        schema(),
        document,
        root_value=root,
        variable_values=variables,
        operation_name=operation,
        field_resolver=graphql_resolvers.field,
        type_resolver=graphql_resolvers.type_name,
        **graphql_execution.OPTIONS,
    )
    return _body(result.data, result.errors or [])


def _cost(query: str, document: DocumentNode, variables: dict[str, Any] | None, operation: Any) -> Cost:
    """`query_cost`, kept by the query's text, its operation and its integer variables (the only
    ones a page size reads): the adapter sends the same few documents over and over."""
    if operation is not None and not isinstance(operation, str):
        return query_cost(document, variables, operation)
    numbers = tuple(sorted((name, value) for name, value in (variables or {}).items() if isinstance(value, int)))
    return Cost(*_cost_of(query, operation, numbers))


@functools.lru_cache(maxsize=1024)
def _cost_of(query: str, operation: str | None, numbers: tuple[tuple[str, int], ...]) -> tuple[int, int]:
    document = checked(query)[0]
    assert document is not None  # only a document that passed is costed
    cost = query_cost(document, dict(numbers), operation)
    return cost.requests, cost.nodes


def _body(data: dict[str, Any] | None, errors: list[GraphQLError]) -> dict[str, Any]:
    for failure in errors:
        original = failure.original_error
        if original is not None and not isinstance(original, GraphQLError):
            raise original  # a bug in the double, not an answer GitHub would give
    body: dict[str, Any] = {}
    if data is not None or not errors:
        body["data"] = data
    if errors:
        body["errors"] = [error_entry(failure) for failure in errors]
    return body
