"""The githubkit client of one run: token, API URL, timeouts, the retry policy, request accounting,
and every answer's body checked where githubkit checks its status (`bodies.py`).

One client per run, used inside `with`, so every request shares one connection pool. The HTTP
cache is off: each Actions run is a new process, and a cache shared across clients would only
couple tests together.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from githubkit import GitHub, Response, TokenAuthStrategy
from githubkit.graphql import GraphQLResponse
from githubkit.utils import UNSET

from bot.github.live import bodies
from bot.github.live.limits import GraphQLSecondaryLimit, LimitBudget, graphql_says_secondary
from bot.github.live.retry import RetryPolicy
from bot.github.live.traffic import Traffic, kind_of
from bot.github.port import GitHubError

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
    `tests/unit/github/test_bodies.py` and `tests/test_live_malformed.py` fail if this hook is not
    reached.) A GraphQL answer of 200 that says a secondary limit refused the query is raised here
    as `GraphQLSecondaryLimit`, inside the loop, so the retry policy waits it out (`limits.py`)."""

    def _check(
        self,
        response: httpx.Response,
        response_model: Any = UNSET,
        error_models: Mapping[str, Any] | None = None,
    ) -> Response[Any]:
        checked = super()._check(response, response_model, error_models)
        bodies.check(checked, response_model)
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
