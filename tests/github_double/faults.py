"""Faults to inject, each for the next request that matches (a method and a path pattern).

The bodies and headers are GitHub's: a secondary limit is 403 or 429, with `retry-after` or with
no header naming a wait; a primary limit
is 403 (or 429) with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`, and for GraphQL HTTP 200
with a `RATE_LIMITED` error; a lost response applies the write, then answers 502. A malformed
answer is GitHub's, handled (a write lands) and then broken on its way back, as a proxy or a load
balancer in between breaks it: its status stays, its body is not the JSON GitHub sent.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.github_double.limits import SECONDARY_MESSAGE
from tests.github_double.protocol import Request, Response, error_body

GRAPHQL = ("POST", "/graphql")
# Every REST write (method and path are regular expressions).
REST_WRITES = ("POST|PATCH|PUT|DELETE", r"/repos/.*")
LIMITS = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"


@dataclass
class Fault:
    """What to do to a request whose method and path match these regular expressions."""

    method: str
    path: str
    status: int = 0  # 0: answer as usual
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    apply_first: bool = False  # handle the request (its writes land), then answer with this fault
    timeout: bool = False  # send no answer at all
    partial: tuple[tuple[str | int, ...], dict[str, Any]] | None = None  # GraphQL: null this path, add this error
    after: int = 0  # matching requests to let through first
    mangle: Callable[[Response], Response] | None = None  # handle the request, then send this of its answer

    def matches(self, request: Request) -> bool:
        return (
            re.fullmatch(self.method, request.method) is not None and re.fullmatch(self.path, request.path) is not None
        )


LOAD_BALANCER_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
    b"<body><h1>502 Bad Gateway</h1><p>The upstream server did not answer in time.</p></body></html>\n"
)


def _replaced(body: bytes, content_type: str | None = None) -> Callable[[Response], Response]:
    def mangle(answer: Response) -> Response:
        headers = answer.headers | ({"content-type": content_type} if content_type else {})
        return Response(answer.status, body, headers)

    return mangle


def _cut(answer: Response) -> Response:
    content = answer.content()
    return Response(answer.status, content[: len(content) // 2], answer.headers)


# Each way an answer arrives broken, by name: an empty body, a load balancer's HTML page, JSON cut
# off halfway, an empty list, and GraphQL data without the repository every perfbot query reads.
MALFORMED: dict[str, Callable[[Response], Response]] = {
    "empty body": _replaced(b""),
    "HTML page": _replaced(LOAD_BALANCER_PAGE, "text/html; charset=utf-8"),
    "truncated JSON": _cut,
    "[]": _replaced(b"[]"),
    '{"data":{"repository":null}}': _replaced(b'{"data":{"repository":null}}'),
    '{"data":{}}': _replaced(b'{"data":{}}'),
}


def wrong_content_type(answer: Response) -> Response:
    """GitHub's body as it was, labelled as something other than JSON."""
    return Response(answer.status, answer.content(), answer.headers | {"content-type": "text/plain; charset=utf-8"})


class Faults:
    """The queue of injected faults; each is used once, by the first request it matches."""

    def __init__(self, clock: Callable[[], dt.datetime]) -> None:
        self.clock = clock
        self.pending: list[Fault] = []

    def take(self, request: Request) -> Fault | None:
        """The first pending fault this request triggers; faults still waiting count it instead."""
        for fault in self.pending:
            if not fault.matches(request):
                continue
            if fault.after:
                fault.after -= 1
                continue
            self.pending.remove(fault)
            return fault
        return None

    def add(self, fault: Fault) -> Fault:
        self.pending.append(fault)
        return fault

    def answer(
        self, method: str, path: str, status: int, body: Any = None, headers: dict[str, str] | None = None
    ) -> Fault:
        """Answer with this status, headers and body instead of handling the request."""
        return self.add(Fault(method, path, status, body, dict(headers or {})))

    def lost_response(self, method: str, path: str, status: int = 502) -> Fault:
        """Apply the request, then answer a server error: the client cannot tell it landed."""
        body = error_body(status, "Server Error") if status != 502 else None
        return self.add(Fault(method, path, status, body, apply_first=True))

    def timeout(self, method: str, path: str, *, apply: bool = False, after: int = 0) -> Fault:
        """Send no answer (the in-process transport raises a read timeout); `apply` lands it first.

        `timeout(*REST_WRITES, after=k)` is a run that dies after its k-th write.
        """
        return self.add(Fault(method, path, apply_first=apply, timeout=True, after=after))

    def malformed(self, kind: str, method: str = ".*", path: str = ".*", *, after: int = 0) -> Fault:
        """Handle the request (a write lands), then answer with its body broken as `MALFORMED[kind]`
        says; `malformed(kind, after=k)` breaks the answer to the run's (k+1)-th request."""
        return self.add(Fault(method, path, after=after, mangle=MALFORMED[kind]))

    def secondary_rate_limit(
        self, method: str, path: str, retry_after: int | None = 60, *, status: int = 403, after: int = 0
    ) -> Fault:
        """GitHub's secondary limit: 403 (or 429), with `retry-after` or, as GitHub may send it,
        with no header that names a wait (then a client waits at least a minute)."""
        body = error_body(status, SECONDARY_MESSAGE, f"{LIMITS}#about-secondary-rate-limits")
        headers = {} if retry_after is None else {"retry-after": str(retry_after)}
        return self.add(Fault(method, path, status, body, headers, after=after))

    def _exhausted(self, reset_in: int) -> dict[str, str]:
        reset = int((self.clock() + dt.timedelta(seconds=reset_in)).timestamp())
        return {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset), "x-ratelimit-limit": "5000"}

    def primary_rate_limit(self, method: str, path: str, *, status: int = 403, reset_in: int = 3600) -> Fault:
        """The hourly limit is spent: 403 (or 429) with `x-ratelimit-remaining: 0` and the reset time."""
        message = "API rate limit exceeded for installation ID 1."
        body = error_body(status, message, f"{LIMITS}#about-the-primary-rate-limit")
        return self.add(Fault(method, path, status, body, self._exhausted(reset_in)))

    def graphql_rate_limited(self, reset_in: int = 3600) -> Fault:
        body = {
            "errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for installation ID 1."}]
        }
        return self.add(Fault(*GRAPHQL, 200, body, self._exhausted(reset_in)))

    def graphql_partial(self, path: tuple[str | int, ...], kind: str, message: str) -> Fault:
        """Answer the query, but with `null` at `path` (aliases as sent) and an error of type `kind`."""
        error = {"type": kind, "path": list(path), "message": message}
        return self.add(Fault(*GRAPHQL, partial=(path, error)))


def with_partial(body: dict[str, Any], path: tuple[str | int, ...], error: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL body with the value at `path` replaced by null and `error` appended."""
    data = body.get("data")
    if data is not None and path:
        holder: Any = data
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = None
    elif not path:
        body["data"] = None
    body["errors"] = [*body.get("errors", []), error]
    return body
