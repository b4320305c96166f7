"""GitHub's answers' bodies, read in one place: a body that is not the JSON its request expects is a
`Malformed` answer naming the request and its status, never a traceback from inside a model.

A proxy or a load balancer between perfbot and GitHub may answer with a success status and an
empty body, an HTML page, JSON cut off halfway, or JSON of another shape; the request may have
reached GitHub or not. So such an answer is the ambiguous failure it is:

- The client checks every successful answer inside githubkit's retry loop (`check`, called by
  `client.CheckedGitHub`), so a broken answer to a read is tried again like a server error. A
  read's body (a GET or a GraphQL query) is always used, so it is validated against its whole model
  there; every query perfbot sends reads `repository(owner:, name:)` (`query.py`, `publish.py`), so
  an answer without errors whose data lacks the repository is not GitHub's either.
- A write's answer is checked only to be JSON of the kind its model names (an object or a list).
  perfbot reads few of them, and a field that GitHub Enterprise Server sends otherwise than
  githubkit's models say must not fail a write that landed: an answer that is read is validated
  where it is read (`parsed`). Either way a broken answer to a write stops the run as one that may
  have landed (`failures.failure`).
- An error's body (4xx, 5xx) is read for GitHub's `message` and `errors` (`error_body`); a body
  that is not a JSON object reads as one without them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, TypeVar, get_origin

import httpx
from githubkit import Response
from githubkit.exception import GitHubException
from githubkit.graphql import GraphQLResponse
from githubkit.utils import UNSET
from githubkit_schemas.latest.models import Blob
from pydantic import BaseModel, ValidationError

from bot.github.live.traffic import is_read, kind_of
from bot.untrusted import neutral

T = TypeVar("T")
# Where a JSON body opens: its first byte past JSON's whitespace.
_OPENING = re.compile(rb"[ \t\r\n]*(.)", re.DOTALL)


class Malformed(GitHubException):
    """A successful status with a body that is not the JSON its request expects."""

    def __init__(self, response: httpx.Response, said: str) -> None:
        self.response, self.said = response, said

    @property
    def request(self) -> httpx.Request:
        return self.response.request

    def __str__(self) -> str:
        """`GET /path answered 200 with an HTML page`: the request, the status, what came."""
        request, status = self.request, self.response.status_code
        return neutral(f"{request.method} {request.url.path} answered {status} with {self.said}", 300)


def check(response: Response[Any], model: object) -> None:
    """Raise `Malformed` unless a successful answer's body is what its request expects."""
    raw = response.raw_response
    if raw.status_code == httpx.codes.NO_CONTENT:
        return
    want = _json_kind(model)
    if not is_read(raw.request):
        if model is not UNSET:  # githubkit names no body for a write that answers none
            _json_of_kind(raw, want)
        return
    # The kind first, by the body's first byte (no second parse of a large answer): a model's own
    # validators may assume an object (GraphQLResponse's does, and raises AttributeError on a list).
    opening = _OPENING.match(raw.content)
    if want is not None and (opening is None or opening.group(1) != (b"[" if want is list else b"{")):
        raise Malformed(raw, _what_came(raw, want))
    data = parsed(response)
    if isinstance(data, GraphQLResponse) and kind_of(raw.request) == "graphql" and not data.errors:
        _with_repository(raw, data)


def _with_repository(raw: httpx.Response, data: GraphQLResponse) -> None:
    if not isinstance((data.data or {}).get("repository"), dict):
        raise Malformed(raw, "GraphQL data without the repository")


def parsed(response: Response[T]) -> T:
    """The body as its model, or `Malformed` saying what came instead (githubkit parses lazily,
    raising pydantic's error at the first use). The client checked its kind already (`check`)."""
    try:
        return response.parsed_data
    except ValueError as exc:  # pydantic's ValidationError is one, and so is a body that is not JSON
        raise Malformed(response.raw_response, _what_came(response.raw_response, None, exc)) from exc


def blob_text(response: Response[Blob]) -> str:
    """A file read through the git data API: its base64 `content` as text (bad UTF-8 replaced)."""
    content = parsed(response).content
    try:
        return base64.b64decode(content).decode("utf-8", errors="replace")
    except binascii.Error as exc:
        raise Malformed(response.raw_response, "a blob whose content is not base64") from exc


def error_body(response: httpx.Response) -> dict[str, object]:
    """An error answer's JSON object (`message`, `errors`, `documentation_url`); empty when it is none."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _json_kind(model: object) -> type | None:
    """The JSON kind a model reads: a list, an object, or None for any JSON."""
    if get_origin(model) is list:
        return list
    return dict if isinstance(model, type) and issubclass(model, BaseModel) else None


def _json_of_kind(raw: httpx.Response, want: type | None) -> None:
    """A write's answer: JSON, and of the kind its model reads."""
    try:
        value = json.loads(raw.content)
    except ValueError:
        raise Malformed(raw, _not_json(raw)) from None
    if want is not None and not isinstance(value, want):
        raise Malformed(raw, _other_kind(value, want))


def _what_came(raw: httpx.Response, want: type | None, exc: ValueError | None = None) -> str:
    """What came instead of the answer expected: read again, only when it failed."""
    try:
        value = json.loads(raw.content)
    except ValueError:
        return _not_json(raw)
    if want is not None and not isinstance(value, want):
        return _other_kind(value, want)
    first = exc.errors()[0] if isinstance(exc, ValidationError) and exc.errors() else None
    if first is None or not first["loc"]:
        return f"a JSON {_kind(value)} that is not the answer expected"
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        return f"JSON without `{where}`"
    return f"JSON whose `{where}` is not what GitHub sends"


def _other_kind(value: object, want: type) -> str:
    return f"a JSON {_kind(value)} where {'a list' if want is list else 'an object'} was expected"


def _not_json(raw: httpx.Response) -> str:
    content = raw.content
    if not content.strip():
        return "an empty body"
    html = raw.headers.get("content-type", "").split(";")[0].strip().lower() == "text/html"
    if html or content.lstrip()[:1] == b"<":
        return "an HTML page"
    try:
        json.loads(content)
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Unterminated string") or exc.pos >= len(exc.doc.rstrip()):
            return f"JSON cut off after {len(content)} bytes"
    except ValueError:
        pass
    return f"{len(content)} bytes that are not JSON"


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return "string" if isinstance(value, str) else "number"
