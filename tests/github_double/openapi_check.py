"""Every REST exchange with the double, held to GitHub's OpenAPI description (`openapi.py`).

`GitHubDouble.handle`, which both the in-process transport and the HTTP server call, checks each
REST request as it arrives: its operation exists (method and path against the description's
paths), its path and query parameters and its body validate. The answer the double's routes give
is then checked: its status is documented for the operation, its body validates against that
status's schema, and the documented headers it carries validate (a `Location` documented on a 201
must be sent: GitHub sends the created resource's API URL there on every such create).

An answer an injected fault puts in place of the double's (a lost response, a rate limit, a 5xx,
`tests/github_double/faults.py`), and the 401 of a bad token, are what GitHub answers to any
request, which the description leaves out of each operation: their requests are checked, not
their answers.

A failed check raises `NotGitHubs`, naming the operation and what failed, and is also kept in
`VIOLATIONS`: githubkit wraps an exception from a transport as a request error that perfbot
reports, so the suite fails every test after which a violation was kept (`tests/conftest.py`).
With no description fetched the check is off (`tests/boundary/test_github_double_openapi.py` skips, or
fails with CI=true).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn
from urllib.parse import unquote

from bot.recent import Recent
from tests.github_double import openapi
from tests.github_double.openapi import Description, Operation, first_error
from tests.github_double.protocol import Request, Response

GHES_REST = "/api/v3"
# Requests perfbot sends that GitHub's description does not allow, each kept here with why, by
# operation id and the failure's text: a reviewed exception, never a change of the check.
KNOWN: dict[tuple[str, str], str] = {}
VIOLATIONS: list[str] = []
_probes = [0]  # how many `unserved()` blocks are open


class NotGitHubs(AssertionError):
    """An exchange GitHub's description does not allow."""


def on_request(request: Request) -> Operation | None:
    """The request's operation, its request checked; None when no description is fetched."""
    description = openapi.load()
    if description is None:
        return None
    path = _sent_path(request)
    operation = description.operation(request.method, path)
    if operation is None and _probes[0]:
        return None
    if operation is None:
        _fail(f"{request.method} {path}", "no such operation in GitHub's REST API")
    for problem in _request_problems(description, operation, path, request):
        if (operation.id, problem) not in KNOWN:
            _fail(_name(operation), problem)
    return operation


def documents(request: Request, status: int) -> bool:
    """Whether GitHub's description lists `status` for the request's operation (True when no
    description is fetched: the double then answers as GitHub's documentation words it)."""
    description = openapi.load()
    operation = None if description is None else description.operation(request.method, _sent_path(request))
    return operation is None or str(status) in operation.spec["responses"]


def on_response(operation: Operation | None, response: Response) -> None:
    """Checks the double's own answer to the request that found `operation`."""
    description = openapi.load()
    if operation is None or description is None:
        return
    documented = operation.spec["responses"]
    key = next((k for k in (str(response.status), f"{response.status // 100}XX", "default") if k in documented), None)
    if key is None and response.status == 404 and _probes[0]:
        return
    if key is None:
        _fail(_name(operation), f"status {response.status} is not documented (documented: {', '.join(documented)})")
    answer = description.resolve(documented[key])
    problem = _body_problem(description, operation, key, answer, response) or _header_problem(
        description, operation, key, answer, response
    )
    if problem is not None:
        _fail(_name(operation), f"status {response.status}: {problem}")


@contextmanager
def unserved() -> Iterator[None]:
    """Inside, a test probes on purpose what the double does not serve: a path GitHub has no
    operation for, and an operation the double has no route for, whose 404 (GitHub's body) the
    description does not document, pass. Everything else is still checked."""
    _probes[0] += 1
    try:
        yield
    finally:
        _probes[0] -= 1


def take_violations() -> list[str]:
    """The violations kept since the last call, and none kept after it."""
    taken = VIOLATIONS[:]
    del VIOLATIONS[: len(taken)]
    return taken


def assert_none_kept() -> None:
    """Raises when a violation was kept since the last look (each is reported once)."""
    found = take_violations()
    if found:
        raise NotGitHubs(f"{len(found)} exchange(s) with the GitHub double are not GitHub's; the first: {found[0]}")


def _fail(where: str, problem: str) -> NoReturn:
    message = f"{where}: {problem}"
    VIOLATIONS.append(message)
    raise NotGitHubs(f"the GitHub double's exchange is not GitHub's: {message}")


def _name(operation: Operation) -> str:
    return f"{operation.id} ({operation.method} {operation.template})"


def _sent_path(request: Request) -> str:
    """The path as it was sent (a `%2F` in a label's name stays inside its segment), without GHES's prefix."""
    sent = (request.raw_path or request.path).partition("?")[0]
    return sent.removeprefix(GHES_REST) if sent.startswith(GHES_REST + "/") else sent


def _request_problems(description: Description, operation: Operation, path: str, request: Request) -> list[str]:
    values = {("path", n): unquote(v) for n, v in operation.path_values(path).items()}
    values |= {("query", n): v for n, v in request.query.items()}
    problems = [
        f"query parameter {name!r} is not documented"
        for (where, name) in values
        if where == "query" and not any(p["in"] == "query" and p["name"] == name for p in operation.parameters)
    ]
    for parameter in operation.parameters:
        key = (parameter["in"], parameter["name"])
        if key not in values:
            if parameter.get("required") and parameter["in"] in ("path", "query"):
                problems.append(f"{parameter['in']} parameter {parameter['name']!r} is required")
            continue
        validator = description.validator((operation.id, *key), parameter.get("schema", {}))
        value = _typed(values[key], description.resolve(parameter.get("schema", {})))
        error = first_error(validator, value)
        if error is not None:
            problems.append(f"{key[0]} parameter {key[1]!r} = {values[key]!r}: {error.partition(': ')[2]}")
    body = _request_body_problem(description, operation, request)
    return problems + ([body] if body else [])


def _request_body_problem(description: Description, operation: Operation, request: Request) -> str | None:
    documented = description.resolve(operation.spec.get("requestBody"))
    if not request.body:
        return "the request body is required" if documented and documented.get("required") else None
    if documented is None:
        return "a request body, where the operation takes none"
    schema = documented.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return f"a JSON request body, where the operation takes {', '.join(documented.get('content', {}))}"
    try:
        body = json.loads(request.body)
    except ValueError:
        return "the request body is not JSON"
    error = first_error(description.validator((operation.id, "request"), schema), body)
    return None if error is None else f"request body {error}"


def _body_problem(
    description: Description, operation: Operation, key: str, answer: dict[str, Any], response: Response
) -> str | None:
    content = answer.get("content") or {}
    if response.body is None:
        return "no body, where the description has one" if "application/json" in content else None
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return "a JSON body, where the description has none"
    # The body as it goes on the wire: what a client would parse.
    wire = response.content()
    known = (operation.id, key, wire)
    found = _BODIES_CHECKED.get(known)
    if found is None:
        error = first_error(description.validator((operation.id, key), schema), json.loads(wire))
        found = (error,)
        _BODIES_CHECKED.keep(known, found)
    return None if found[0] is None else f"response body {found[0]}"


# What the check found of each recent body (the error, or None), by the operation, the documented
# status and the body as it went on the wire: the double sends the same bodies over and over (a
# list read again each run, an issue read by every test of the seed), and a body's validity
# against a schema of one description is a pure function of the two.
_BODIES_CHECKED: Recent[tuple[str, str, bytes], tuple[str | None]] = Recent(512)


def _header_problem(
    description: Description, operation: Operation, key: str, answer: dict[str, Any], response: Response
) -> str | None:
    sent = {name.lower(): value for name, value in response.headers.items()}
    for name, documented in (answer.get("headers") or {}).items():
        header = description.resolve(documented)
        value = sent.get(name.lower())
        if value is None:
            if name.lower() == "location" and key == "201":
                return "no Location header (GitHub sends the created resource's API URL)"
            continue
        schema = header.get("schema", {})
        error = first_error(description.validator((operation.id, key, name.lower()), schema), _typed(value, schema))
        if error is not None:
            return f"header {name} {value!r}: {error.partition(': ')[2]}"
    return None


def _typed(value: str, schema: dict[str, Any]) -> Any:
    """A parameter's or header's text as the JSON value its schema describes (an integer, a boolean)."""
    kind = schema.get("type")
    if kind == "integer" and value.lstrip("-").isdigit():
        return int(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value
