"""POST /graphql: parse and validate against `schema.graphql` with graphql-core, execute (with
`graphql_exec` when it covers the document, else graphql-core's `execute`), and answer in GitHub's
shape (HTTP 200; errors carry their `type` at the top level, next to `path`)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeGuard

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLAbstractType,
    GraphQLError,
    GraphQLResolveInfo,
    GraphQLSchema,
    OperationType,
    build_schema,
    execute,
    parse,
    validate,
)

from tests.github_double import graphql_exec, published
from tests.github_double.graphql_root import Root
from tests.github_double.protocol import Request
from tests.github_double.world import World

SCHEMA_FILE = Path(__file__).with_name("schema.graphql")


@functools.cache
def schema() -> GraphQLSchema:
    return build_schema(SCHEMA_FILE.read_text(encoding="utf-8"))


@functools.cache  # the same few hundred names, looked up for every field of every answer
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _field(source: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
    """Dicts answer by the GraphQL name; objects by the snake_case name, called with the arguments."""
    name = info.field_name
    value = source.get(name) if isinstance(source, dict) else getattr(source, _snake(name), None)
    if callable(value):
        return value(info, **{_snake(k): v for k, v in args.items()})
    return value


def _type(value: Any, info: GraphQLResolveInfo[Any], abstract: GraphQLAbstractType) -> str:
    return str(value["typename"] if isinstance(value, dict) else value.typename)


def _never_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
    return False


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


def answer(world: World, viewer: str, request: Request, rate_limits: Callable[[], dict[str, Any]]) -> dict[str, Any]:
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
    root = Root(world, viewer, rate_limits)
    fast = None
    if data.get("operationName") is None:
        fast = graphql_exec.execute(
            schema(), document, root_value=root, variable_values=variables, field_resolver=_field, type_resolver=_type
        )
    if fast is None:
        return answer_by_graphql_core(document, root, variables, data.get("operationName"))
    if CROSS_CHECK and fast.operation == OperationType.QUERY:
        own = _shown(lambda: _body(fast.data, fast.errors))  # as sent, before any fault edits it
        CROSS_CHECKED.append((query, own, _shown(lambda: answer_by_graphql_core(document, root, variables))))
    return _body(fast.data, fast.errors)


# With CROSS_CHECK, each query (not a mutation: it would write twice) that `graphql_exec` answered
# is answered again by graphql-core's `execute`, and both answers are kept here, as JSON or as the
# error that stopped one, to be compared (tests/conftest.py). In this process only: a double
# served by `python -m tests.github_double` is not checked.
CROSS_CHECK = False
CROSS_CHECKED: list[tuple[str, str, str]] = []


def _shown(body: Callable[[], dict[str, Any]]) -> str:
    try:
        return json.dumps(body())
    except Exception as exc:  # a bug in the double on one side only is a difference too
        return f"raised {exc!r}"


def answer_by_graphql_core(
    document: DocumentNode, root: Root, variables: dict[str, Any] | None, operation_name: str | None = None
) -> dict[str, Any]:
    result = execute(
        schema(),
        document,
        root_value=root,
        variable_values=variables,
        operation_name=operation_name,
        field_resolver=_field,
        type_resolver=_type,
        is_awaitable=_never_awaitable,  # every resolver is synchronous: not asked of each of thousands of values
    )
    assert isinstance(result, ExecutionResult)  # every resolver is synchronous
    return _body(result.data, result.errors or [])


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
