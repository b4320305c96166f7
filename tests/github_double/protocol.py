"""HTTP as the double speaks it: requests and responses, GitHub's error bodies, pagination links."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

DOCS = "https://docs.github.com/rest"
DEFAULT_TOKEN = "test-token"  # the bot's token unless a double is told otherwise


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes = b""
    raw_path: str = ""  # path and query as sent, for the request log

    def json(self) -> Any:
        if not self.body:
            return {}
        try:
            return json.loads(self.body)
        except ValueError as exc:
            raise HttpError(400, error_body(400, "Problems parsing JSON", DOCS)) from exc

    def object(self) -> dict[str, Any]:
        data = self.json()
        if not isinstance(data, dict):
            raise HttpError(400, error_body(400, "Problems parsing JSON", DOCS))
        return data


@dataclass
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def content(self) -> bytes:
        """The body as sent: JSON, or bytes as they are (an injected body that is not GitHub's)."""
        if isinstance(self.body, bytes):
            return self.body
        return b"" if self.body is None else json.dumps(self.body).encode()


class HttpError(Exception):
    """A response that ends the handling of a request (GitHub's 4xx answers)."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.response = Response(status, body, headers or {})


def error_body(status: int, message: str, documentation_url: str = DOCS, **extra: Any) -> dict[str, Any]:
    return {"message": message, **extra, "documentation_url": documentation_url, "status": str(status)}


def not_found(documentation_url: str = DOCS) -> HttpError:
    return HttpError(404, error_body(404, "Not Found", documentation_url))


def invalid(message: str, documentation_url: str) -> HttpError:
    """422 with a plain message (e.g. "Update is not a fast forward")."""
    return HttpError(422, error_body(422, message, documentation_url))


def validation_failed(documentation_url: str, *errors: dict[str, Any]) -> HttpError:
    """422 "Validation Failed" with GitHub's `errors` list (resource, field, code, message)."""
    return HttpError(422, error_body(422, "Validation Failed", documentation_url, errors=list(errors)))


def required(data: dict[str, Any], name: str, kind: type, documentation_url: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise HttpError(
            422,
            error_body(422, f"Invalid request.\n\n{name!r} is missing or not a {kind.__name__}.", documentation_url),
        )
    return value


def page(items: list[Any], request: Request, base_url: str) -> tuple[list[Any], dict[str, str]]:
    """One page of `items` by `per_page` (default 30, at most 100) and `page`, with a `Link` header."""
    try:
        per_page = min(max(int(request.query.get("per_page", "30")), 1), 100)
        number = max(int(request.query.get("page", "1")), 1)
    except ValueError as exc:
        raise HttpError(400, error_body(400, "Invalid pagination parameters")) from exc
    last = max((len(items) + per_page - 1) // per_page, 1)
    start = (number - 1) * per_page
    links = []

    def url(n: int) -> str:
        return f"{base_url}{request.path}?{urlencode({**request.query, 'page': str(n)})}"

    if number < last:
        links += [f'<{url(number + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
    if number > 1:
        links += [f'<{url(1)}>; rel="first"', f'<{url(min(number - 1, last))}>; rel="prev"']
    return items[start : start + per_page], ({"link": ", ".join(links)} if links else {})
