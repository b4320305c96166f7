"""The githubkit client of one run: token, API URL, timeouts, the retry policy, request accounting.

One client per run, used inside `with`, so every request shares one connection pool. The HTTP
cache is off: each Actions run is a new process, and a cache shared across clients would only
couple tests together.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from githubkit import GitHub, TokenAuthStrategy

from bot.github.live.limits import LimitBudget
from bot.github.live.retry import RetryPolicy
from bot.github.live.traffic import Traffic
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


def build_client(
    conn: Connection,
    traffic: Traffic,
    wait: Callable[[float], None],
    budget: LimitBudget,
    transport: httpx.BaseTransport | None = None,
) -> GitHub[TokenAuthStrategy]:
    """A client whose base URL ending in `/api/v3` (GHES) sends GraphQL to `/api/graphql`."""
    return GitHub(
        TokenAuthStrategy(conn.token),
        base_url=conn.api_url + "/",
        timeout=TIMEOUT,
        http_cache=False,
        auto_retry=RetryPolicy(wait, budget),
        transport=transport,
        event_hooks={"request": [traffic.on_request], "response": [traffic.on_response]},
        user_agent="perfbot",
    )


@dataclass
class Session:
    """One run's client and where it points; `now` dates rate-limit messages, `limits` is the
    rate-limit waiting the run has done (shared with the client's retry policy)."""

    github: GitHub[TokenAuthStrategy]
    conn: Connection
    traffic: Traffic
    wait: Callable[[float], None]
    now: dt.datetime
    limits: LimitBudget
