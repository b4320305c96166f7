"""One run's HTTP client of GitHub: accounting, answers checked, rate limits, retries, errors.

**Accounting.** Request accounting and pacing at the HTTP layer (httpx event hooks): what a run
asked of GitHub.

Every request is counted as it is sent, retries included, as `graphql`, `rest_read` or
`rest_write`, with the points GitHub charged for the GraphQL ones (`rateLimit.cost`). Writes
are spaced at least a second apart (GitHub's REST docs, best practices: "wait at least one
second between each" write), and every content-creating request (a REST write, a GraphQL
mutation) is paced within GitHub's secondary limits (its pacer, below). The `Date` of each GraphQL
answer is kept: GitHub's own clock, which dates the observation cache's watermark (never the
local clock, which may be skewed).

**Answers.** GitHub's answers' bodies, read in one place: a body that is not the JSON its request
expects is a `Malformed` answer naming the request and its status, never a traceback from inside a
model.

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

**Rate limits.** GitHub's rate limits as they really arrive, and how long one run may wait them out.

GitHub refuses a rate-limited request without applying it, so it is always safe to send again.
It says so in several shapes (REST docs, "Rate limits for the REST API"):

- a primary limit: 403 or 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
  (githubkit raises `PrimaryRateLimitExceeded` with the wait until the reset);
- a secondary limit with `retry-after` (githubkit raises `SecondaryRateLimitExceeded`);
- a secondary limit with neither header: 403 whose message names the secondary limit, or a
  bare 429. GitHub then asks for at least a minute, and longer on each repeat; githubkit sees a
  plain `RequestFailed`, which without this module reads as a refused token;
- GraphQL's secondary limit as HTTP 200 whose error says "secondary rate limit" (GraphQL docs,
  "Rate limits and query limits for the GraphQL API", "Exceeding the rate limit": "the response
  status will be `200` or `403`", honour `retry-after`, else `x-ratelimit-reset` when
  `x-ratelimit-remaining` is 0, else at least a minute, longer on each repeat). The error's
  `type` is not documented, so its message is read. githubkit reads such an answer as a plain
  `GraphQLFailed` after its retry loop; the client raises `GraphQLSecondaryLimit` inside it instead
  (`CheckedGitHub`), so the retry policy waits it out like any other limit.

One run waits at most `BUDGET_SECONDS` in all; a limit that needs more stops the run with the
time to run it again.

**Retries.** The retry policy handed to githubkit's `auto_retry`: reads retry, writes never repeat
blindly.

- A read (GraphQL query, GET) is tried up to three times on a 5xx, a timeout, a lost
  connection or an answer that is not the JSON expected (`bodies.Malformed`), with backoff.
- A rate-limited request was refused, not applied, so it is sent again after the wait GitHub
  asks for, or a minute doubled on each repeat when it names none (`limits.py`), while the run's
  waiting stays within its budget and the request has been limited at most `LIMIT_RETRIES` times.
- A write that failed any other way is not retried: its outcome may be unknown, and the next
  run's read (markers, reactions, the PR branch) finds what landed.

The policy keeps how often the request that failed last was sent, so a message counts the tries
that were made (`tries`).

**The client.** The githubkit client of one run: token, API URL, timeouts, the retry policy, request
accounting, and every answer's body checked where githubkit checks its status (`bodies.py`).

One client per run, used inside `with`, so every request shares one connection pool. The HTTP
cache is off: each Actions run is a new process, and a cache shared across clients would only
couple tests together.

**Failures.** githubkit's exceptions as perfbot's errors: one line a person can act on, and whether
a write may have landed (`AmbiguousWriteError`) or certainly did not (`GitHubError`). A message that
says how often a request was tried counts the tries that were made (`RetryPolicy.tries`).

Also the pacer that keeps content-creating requests inside GitHub's secondary limits across runs
(its section below).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import datetime as dt
import email.utils
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, get_origin

import httpx
from githubkit import GitHub, Response, TokenAuthStrategy
from githubkit.exception import (
    GitHubException,
    RateLimitExceeded,
    RequestError,
    RequestFailed,
    RequestTimeout,
    SecondaryRateLimitExceeded,
)
from githubkit.graphql import GraphQLResponse
from githubkit.retry import RetryOption
from githubkit.utils import UNSET
from githubkit_schemas.latest.models import Blob
from pydantic import BaseModel, ValidationError

from bot.github.port import AmbiguousWriteError, GitHubError
from bot.untrusted import neutral

WRITE_SPACING_SECONDS = 1.0


def kind_of(request: httpx.Request) -> str:
    """`graphql` (queries, and the mutations `merge: auto` and the branch move send), `rest_read`
    (GET) or `rest_write` (anything else)."""
    if request.url.path.endswith("/graphql"):
        return "graphql"
    return "rest_read" if request.method in ("GET", "HEAD") else "rest_write"


def is_read(request: httpx.Request) -> bool:
    """A request that changes nothing: sent again after a transient failure, its body always read."""
    kind = kind_of(request)
    return kind != "rest_write" and not (kind == "graphql" and is_mutation(request))


def is_mutation(request: httpx.Request) -> bool:
    """A GraphQL request whose document is a mutation (`enablePullRequestAutoMerge`, `updateRefs`): a write."""
    try:
        sent = json.loads(request.content)
    except ValueError:
        return False
    document = sent.get("query") if isinstance(sent, dict) else None
    return isinstance(document, str) and document.lstrip().startswith("mutation")


def creates_content(request: httpx.Request) -> bool:
    """A REST write, or a GraphQL request that is a mutation: what GitHub's content limits count."""
    kind = kind_of(request)
    if kind != "graphql":
        return kind == "rest_write"
    try:
        query = json.loads(request.content).get("query", "")
    except (ValueError, AttributeError, httpx.RequestNotRead):
        return False
    return isinstance(query, str) and query.lstrip().startswith("mutation")


@dataclass
class Traffic:
    """Counts requests by kind and keeps writes apart; the clock and the wait are arguments."""

    monotonic: Callable[[], float]
    wait: Callable[[float], None]
    pacer: Pacer | None = None
    counts: dict[str, int] = field(default_factory=dict)
    last_write: float | None = None
    # GitHub's time (the `Date` header) of each successful GraphQL answer, in order.
    graphql_dates: list[dt.datetime] = field(default_factory=list)
    graphql_points: int = 0

    def on_request(self, request: httpx.Request) -> None:
        kind = kind_of(request)
        if not is_read(request):
            if self.last_write is not None:
                gap = self.monotonic() - self.last_write
                if gap < WRITE_SPACING_SECONDS:
                    self.wait(WRITE_SPACING_SECONDS - gap)
            self.last_write = self.monotonic()
        if self.pacer is not None and creates_content(request):
            self.pacer.before_request()
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def on_response(self, response: httpx.Response) -> None:
        if response.status_code == 200 and kind_of(response.request) == "graphql":
            moment = server_time(response.headers.get("date", ""))
            if moment is not None:
                self.graphql_dates.append(moment)

    def cost(self, points: object) -> None:
        """A GraphQL answer's `rateLimit.cost`: the points GitHub charged for the query."""
        if isinstance(points, int) and not isinstance(points, bool):
            self.graphql_points += points

    def summary(self) -> dict[str, int]:
        """Every kind, zero included, in a fixed order, and the GraphQL points spent (the plan JSON's `api`)."""
        counts = {kind: self.counts.get(kind, 0) for kind in ("graphql", "rest_read", "rest_write")}
        return counts | {"graphql_points": self.graphql_points}


def server_time(header: str) -> dt.datetime | None:
    """An HTTP `Date` header (RFC 9110's IMF-fixdate) as an aware UTC time; None when absent or bad."""
    try:
        moment = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return None
    return moment.astimezone(dt.UTC) if moment.tzinfo is not None else None


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


# The first wait for a secondary limit that names none; each repeat in the run doubles it.
SECONDARY_FIRST_WAIT = dt.timedelta(seconds=60)
# All the waiting one run may do for rate limits: a scheduled run that sleeps longer than this
# spends Actions minutes that the next run would spend better.
BUDGET_SECONDS = 600.0


@dataclass(frozen=True)
class Limited:
    """A rate-limited request: the wait GitHub asked for (None when it named none)."""

    wait: dt.timedelta | None
    secondary: bool


class GraphQLSecondaryLimit(SecondaryRateLimitExceeded):
    """A GraphQL answer of 200 whose errors say a secondary limit was hit; `named` when GitHub
    named the wait (`retry-after`, or `x-ratelimit-reset` with nothing remaining)."""

    def __init__(self, response: Response[Any], retry_after: dt.timedelta) -> None:
        super().__init__(response, retry_after)
        headers = response.headers
        self.named = "retry-after" in headers or headers.get("x-ratelimit-remaining") == "0"


def graphql_says_secondary(answer: GraphQLResponse) -> bool:
    """Whether a GraphQL answer's errors say that a secondary rate limit refused the query."""
    return any(_names_secondary(error.message) for error in answer.errors or [])


def _names_secondary(said: object) -> bool:
    return isinstance(said, str) and ("secondary rate limit" in said.lower() or "secondary-rate-limit" in said)


def _says_secondary(exc: RequestFailed) -> bool:
    body = error_body(exc.response.raw_response)
    return any(_names_secondary(body.get(key)) for key in ("message", "documentation_url"))


def _named_wait(exc: RateLimitExceeded) -> dt.timedelta:
    """The wait GitHub named: `retry-after`, else `x-ratelimit-reset` counted from the answer's
    own `Date` (GitHub's clock: githubkit counts it from the local one, which may be skewed)."""
    headers = exc.response.headers
    reset, date = headers.get("x-ratelimit-reset", ""), server_time(headers.get("date", ""))
    if "retry-after" in headers or not reset.isdecimal() or date is None:
        return exc.retry_after
    return max(dt.datetime.fromtimestamp(int(reset), dt.UTC) - date, dt.timedelta())


def limited(exc: GitHubException) -> Limited | None:
    """The rate limit this failure is, or None when it is not one."""
    if isinstance(exc, GraphQLSecondaryLimit):
        return Limited(exc.retry_after if exc.named else None, secondary=True)
    if isinstance(exc, RateLimitExceeded):
        secondary = "retry-after" in exc.response.headers or _says_secondary(exc)
        return Limited(_named_wait(exc), secondary)
    if isinstance(exc, RequestFailed):
        code = exc.response.status_code
        if code == 429 or (code == 403 and _says_secondary(exc)):
            return Limited(None, secondary=True)
    return None


@dataclass
class LimitBudget:
    """The run's waiting for rate limits: how much it has waited, and how often without a named wait."""

    waited: float = 0.0
    unnamed: int = 0

    def wait_for(self, limit: Limited) -> dt.timedelta:
        """The wait this limit needs: GitHub's, else a minute doubled for each earlier unnamed one."""
        if limit.wait is not None:
            return limit.wait
        return SECONDARY_FIRST_WAIT * (1 << self.unnamed)

    def take(self, limit: Limited) -> float | None:
        """Seconds to wait before sending again, counted against the budget; None when over it."""
        seconds = self.wait_for(limit).total_seconds()
        if self.waited + seconds > BUDGET_SECONDS:
            return None
        self.waited += seconds
        if limit.wait is None:
            self.unnamed += 1
        return seconds


READ_TRIES = 3
LIMIT_RETRIES = 3
# githubkit sleeps 60 s for a zero (falsy) delay, so the policy waits itself and hands back a
# delay too small to matter: the wait stays injectable and testable.
_ALREADY_WAITED = dt.timedelta(microseconds=1)


def request_of(exc: GitHubException) -> httpx.Request | None:
    if isinstance(exc, RequestFailed | RequestTimeout | Malformed):
        return exc.request
    if isinstance(exc, RequestError) and isinstance(exc.exc, httpx.RequestError):
        try:
            return exc.exc.request
        except RuntimeError:  # httpx raises when the error has no request
            return None
    return None


def transient(exc: GitHubException) -> bool:
    """A failure worth another try: a server error, a timeout, a network error, a broken answer."""
    if isinstance(exc, RequestFailed):
        return exc.response.status_code >= 500
    return isinstance(exc, RequestError | Malformed)


class RetryPolicy:
    """`(exception, retries so far) -> RetryOption`, waiting through the injected `wait`."""

    def __init__(self, wait: Callable[[float], None], budget: LimitBudget, backoff_seconds: float = 1.0) -> None:
        self.wait = wait
        self.budget = budget
        self.backoff_seconds = backoff_seconds
        self.last: tuple[GitHubException, int] | None = None

    def tries(self, exc: GitHubException) -> int:
        """How often the request that ended in `exc` was sent: 1 when the policy never saw it."""
        return self.last[1] if self.last is not None and self.last[0] is exc else 1

    def __call__(self, exc: GitHubException, retry_count: int) -> RetryOption:
        self.last = (exc, retry_count + 1)  # githubkit raises the last exception it asked about
        limit = limited(exc)
        if limit is not None:
            delay = self.budget.take(limit) if retry_count < LIMIT_RETRIES else None
            return RetryOption(False) if delay is None else self._again(delay)
        request = request_of(exc)
        if request is not None and is_read(request) and transient(exc) and retry_count < READ_TRIES - 1:
            return self._again(self.backoff_seconds * (retry_count + 1) ** 2)
        return RetryOption(False)

    def _again(self, delay: float) -> RetryOption:
        self.wait(delay)
        return RetryOption(True, _ALREADY_WAITED)


TIMEOUT = httpx.Timeout(30.0, connect=10.0)


@dataclass(frozen=True)
class Connection:
    """Where and as whom: the token, `OWNER/NAME`, the REST base URL (GraphQL is derived from it)."""

    token: str
    repository: str
    api_url: str

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repository.split("/", 1)[1]


def connection(token: str | None, repository: str | None, api_url: str) -> Connection:
    """The connection, or a one-line error saying what is missing."""
    if not token:
        raise GitHubError("GITHUB_TOKEN is not set: a live run needs a token (or use --offline STATE.json)")
    if not repository:
        raise GitHubError("no repository: set GITHUB_REPOSITORY or pass --repo OWNER/NAME")
    owner, _, name = repository.partition("/")
    if not owner or not name or "/" in name or any(ch.isspace() for ch in repository):
        raise GitHubError(f"--repo {repository!r}: expected OWNER/NAME")
    return Connection(token, repository, api_url.rstrip("/"))


class CheckedGitHub(GitHub[TokenAuthStrategy]):
    """githubkit's client, checking each successful answer's body as it checks the status: inside
    its retry loop, so the retry policy sees a broken answer as it sees a server error. (githubkit
    itself parses a body only when it is first used, after the loop; it is pinned to 0.16, and
    `tests/unit/github/test_bodies.py` and `tests/boundary/test_live_malformed.py` fail if this hook
    is not reached.) A GraphQL answer of 200 that says a secondary limit refused the query is raised
    here as `GraphQLSecondaryLimit`, inside the loop, so the retry policy waits it out."""

    def _check(
        self,
        response: httpx.Response,
        response_model: Any = UNSET,
        error_models: Mapping[str, Any] | None = None,
    ) -> Response[Any]:
        checked = super()._check(response, response_model, error_models)
        check(checked, response_model)
        answer = checked.parsed_data if kind_of(response.request) == "graphql" else None
        if isinstance(answer, GraphQLResponse) and answer.errors and graphql_says_secondary(answer):
            raise GraphQLSecondaryLimit(checked, self._extract_retry_after(checked))
        return checked


def build_client(
    conn: Connection, traffic: Traffic, retry: RetryPolicy, transport: httpx.BaseTransport | None = None
) -> GitHub[TokenAuthStrategy]:
    """A client whose base URL ending in `/api/v3` (GHES) sends GraphQL to `/api/graphql`."""
    return CheckedGitHub(
        TokenAuthStrategy(conn.token),
        base_url=conn.api_url + "/",
        timeout=TIMEOUT,
        http_cache=False,
        auto_retry=retry,
        transport=transport,
        event_hooks={"request": [traffic.on_request], "response": [traffic.on_response]},
        user_agent="perfbot",
    )


@dataclass
class Session:
    """One run's client and where it points; `now` dates rate-limit messages, `limits` is the
    rate-limit waiting the run has done, `retry` the client's retry policy (which knows how often
    a failed request was sent)."""

    github: GitHub[TokenAuthStrategy]
    conn: Connection
    traffic: Traffic
    wait: Callable[[float], None]
    now: dt.datetime
    retry: RetryPolicy

    @property
    def limits(self) -> LimitBudget:
        return self.retry.budget


PERMISSIONS = "issues: write, pull-requests: write and contents: write"
LANDED = "this run makes no further writes, and the next run reads what landed and finishes the rest"


def github_message(exc: RequestFailed) -> str:
    """GitHub's own `message` from an error body, made inert for a terminal or an Actions log."""
    message = error_body(exc.response.raw_response).get("message")
    return neutral(str(message), 200) if message else ""


def github_details(exc: RequestFailed) -> list[str]:
    """What a 422 says beyond `Validation Failed`: each `errors[].message` (or its code), as sent."""
    errors = error_body(exc.response.raw_response).get("errors")
    found = []
    for error in errors if isinstance(errors, list) else []:
        said = error.get("message") or error.get("code") if isinstance(error, dict) else error
        if said:
            found.append(str(said))
    return found


def rate_limited(what: str, wait: dt.timedelta, now: dt.datetime, *, secondary: bool = False) -> GitHubError:
    when = (now + wait).astimezone(dt.UTC)
    minutes = max(1, round(wait.total_seconds() / 60))
    which = (
        "secondary rate limit (too many requests in a short time) refused the request"
        if secondary
        else ("rate limit is exhausted")
    )
    return GitHubError(
        f"{what}: GitHub's {which}; run perfbot again after {when:%Y-%m-%d %H:%M} UTC "
        f"(in about {minutes} min). Nothing after this point was written."
    )


def _status(exc: RequestFailed, what: str, needs: str) -> GitHubError:
    code = exc.response.status_code
    said = "; ".join([github_message(exc), *(neutral(d, 200) for d in github_details(exc))][:4])
    detail = f"{code} {said}".strip()
    if code == 401:
        return GitHubError(f"{what}: GitHub refused the token ({detail}); set GITHUB_TOKEN to a valid token")
    if code == 403:
        return GitHubError(f"{what}: GitHub refused ({detail}); the token needs {needs}")
    if code == 404:
        return GitHubError(f"{what}: not found ({detail}); check the repository name and that the token can see it")
    return GitHubError(f"{what}: GitHub refused ({detail})")


def _reason(exc: GitHubException) -> str:
    if isinstance(exc, RequestFailed):
        return f"{exc.response.status_code} {github_message(exc)}".strip()
    if isinstance(exc, RequestTimeout):
        return "timed out"
    if isinstance(exc, RequestError):
        return neutral(str(exc.exc) or type(exc.exc).__name__, 200)
    return neutral(repr(exc), 200)


def not_sent(exc: GitHubException) -> bool:
    """The request never left: nothing can have been applied."""
    return isinstance(exc, RequestError) and isinstance(exc.exc, httpx.ConnectError | httpx.ConnectTimeout)


def failure(
    exc: GitHubException, what: str, session: Session, *, repeatable: bool = True, needs: str = PERMISSIONS
) -> GitHubError:
    """The error for a request that failed for good (after the retry policy gave up).

    `repeatable` is False for writes that would be duplicated if sent twice (a comment, a commit,
    a new branch, a new PR): when such a write may have landed, the run must stop writing.
    `needs` is the permissions a refusal (403) asks the token for; a rate limit, which GitHub
    also answers with 403, is never taken for one.
    """
    limit = limited(exc)
    if limit is not None:
        return rate_limited(what, session.limits.wait_for(limit), session.now, secondary=limit.secondary)
    if isinstance(exc, Malformed):
        return _malformed(exc, what, session)
    if isinstance(exc, RequestFailed) and exc.response.status_code < 500:
        return _status(exc, what, needs)
    if not repeatable and not not_sent(exc):
        lost = f"{what}: GitHub's answer was lost ({_reason(exc)})"
        return AmbiguousWriteError(f"{lost}, so it may have been applied; {LANDED}")
    if not_sent(exc):
        return GitHubError(f"{what}: cannot reach GitHub ({_reason(exc)})")
    return GitHubError(f"{what}: GitHub failed ({_reason(exc)}){_after(exc, session)}; run perfbot again later")


def _after(exc: GitHubException, session: Session) -> str:
    tries = session.retry.tries(exc)
    return f" after {tries} tries" if tries > 1 else ""


def _malformed(exc: Malformed, what: str, session: Session) -> GitHubError:
    """A broken answer to a read was tried again and stayed broken; one to a write may have landed."""
    said = f"{what}: GitHub's answer was not the JSON expected ({exc})"
    if is_read(exc.request):
        return GitHubError(f"{said}{_after(exc, session)}; run perfbot again later")
    return AmbiguousWriteError(f"{said}, so it may have been applied; {LANDED}")


def found_or_none(session: Session, what: str, request: Callable[[], Response[T]]) -> T | None:
    """A read's answer as its model, or None when GitHub answers 404 (a ref or a comment that is
    not there); any other failure is the run's error, saying `what` was being read."""
    try:
        return parsed(request())
    except RequestFailed as exc:
        if exc.response.status_code == 404:
            return None
        raise failure(exc, what, session) from exc
    except GitHubException as exc:
        raise failure(exc, what, session) from exc


# ------------------------------------------------------------------------------------------------
# Pacing content-creating requests inside GitHub's documented secondary limits, across runs.
#
# GitHub's REST docs ("Rate limits for the REST API", "About secondary rate limits") allow, in
# general, no more than 80 content-generating requests per minute and no more than 500 per hour,
# across the REST and GraphQL APIs. perfbot counts every REST write (POST, PATCH, PUT, DELETE) and
# every GraphQL mutation as one, which is never fewer than GitHub counts.
#
# The pacer keeps the times of the requests it sent in the last hour (`sent`) and lets a request
# go only while the last minute holds fewer than `PER_MINUTE` and the last hour fewer than
# `HOUR_SHARE`: 20 below GitHub's 500, left for the runs that answer people while a long chain
# of follow-ups adopts a large repository, and for the dispatch that asks for the next run. The
# windows slide, the strictest reading of "per minute" and "per hour", so a burst is sent at once
# (writes stay a second apart, `Traffic` above) and the hour's share is used as early as GitHub lets it.
#
# One run waits at most `RUN_SECONDS` for the pace: when the next write would need longer, the run
# leaves the rest to a follow-up (the "Follow-up runs" section of `bot/reconcile/executor.py`),
# whose dispatch carries `sent` and the time the next write may go (`next_at`); the workflow waits
# for that time before the follow-up's writer job starts, outside the writer's concurrency group,
# so people's runs are not held behind it.

# GitHub's figures ("About secondary rate limits").
PER_MINUTE = 80
PER_HOUR = 500
HOUR_SHARE = PER_HOUR - 20
WINDOWS = ((60.0, PER_MINUTE), (3600.0, HOUR_SHARE))
# Past a window's edge by this much before a request counts as outside it: the runs' clocks and
# GitHub's are not one clock.
MARGIN = 1.0
# Pacing waits one run makes before it leaves the rest of its writes to a follow-up: while it
# waits it holds the writer's concurrency group, and people's commands wait behind it.
RUN_SECONDS = 120.0


@dataclass
class Pacer:
    """The pace of content-creating requests; times are seconds on a monotonic clock that reads
    `origin` at wall time `start`."""

    start: dt.datetime
    monotonic: Callable[[], float]
    wait: Callable[[float], None]
    origin: float = 0.0
    sent: list[float] = field(default_factory=list)
    waited: float = 0.0

    @classmethod
    def carried(
        cls,
        start: dt.datetime,
        monotonic: Callable[[], float],
        wait: Callable[[float], None],
        sent: Iterable[dt.datetime] = (),
    ) -> Pacer:
        """A pacer that goes on from the requests earlier runs sent (none: an idle repository).
        A time after `start` (a skewed clock, a forged payload) counts as sent at `start`."""
        origin = monotonic()
        times = sorted(origin + min((moment - start).total_seconds(), 0.0) for moment in sent)
        return cls(start, monotonic, wait, origin, [t for t in times if origin - t < WINDOWS[-1][0] + MARGIN])

    def next_free(self) -> float:
        """The monotonic time the next request may go: now, or when each window has room again."""
        now = self.monotonic()
        free = now
        for window, most in WINDOWS:
            inside = len(self.sent) - bisect.bisect_right(self.sent, now - window - MARGIN)
            if inside >= most:
                free = max(free, self.sent[len(self.sent) - most] + window + MARGIN)
        return free

    def fits(self) -> bool:
        """Whether the next request's wait keeps this run's pacing waits within `RUN_SECONDS`."""
        return self.waited + self.next_free() - self.monotonic() <= RUN_SECONDS

    def before_request(self) -> None:
        """Wait until the next request may go (at most what is left of `RUN_SECONDS`: a request
        the executor did not ask about goes then, and a refusal is waited out by the retry
        policy), and count it."""
        delay = min(self.next_free() - self.monotonic(), max(RUN_SECONDS - self.waited, 0.0))
        if delay > 0:
            self.wait(delay)
            self.waited += delay
        now = self.monotonic()
        del self.sent[: bisect.bisect_right(self.sent, now - WINDOWS[-1][0] - MARGIN)]
        self.sent.append(now)

    def wall(self, moment: float) -> dt.datetime:
        return self.start + dt.timedelta(seconds=moment - self.origin)

    def next_at(self) -> dt.datetime:
        """When the next request may go, as wall time: when a follow-up starts writing."""
        return self.wall(self.next_free())

    def sent_at(self) -> list[dt.datetime]:
        """The requests of the last hour, as wall times: what a follow-up goes on from."""
        return [self.wall(t) for t in self.sent]
