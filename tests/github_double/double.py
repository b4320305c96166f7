"""The GitHub double: authenticate, apply injected faults, dispatch, count, log.

One lock serialises requests, as one repository's writes are on GitHub; every request is logged as
`{"method", "path", "status", "kind", "write"}` with kind `graphql`, `rest_read` or `rest_write`, and
`write` true for a REST write or a GraphQL mutation (in memory, and as JSON lines when a log file is
given). A request that gets no answer logs status null.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import threading
from pathlib import Path
from typing import Any

from tests.github_double import branches, graphql_api, merging, openapi_check, routes
from tests.github_double.context import Context
from tests.github_double.faults import Fault, Faults, with_partial
from tests.github_double.limits import ContentLimits, RateLimits, creates_content
from tests.github_double.protocol import DEFAULT_TOKEN, DOCS, HttpError, Request, Response, error_body
from tests.github_double.transport import DoubleTransport
from tests.github_double.world import Clock, World

GHES_REST, GHES_GRAPHQL = "/api/v3", "/api/graphql"


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class GitHubDouble:
    """An HTTP-level fake of the REST and GraphQL endpoints perfbot uses, over an offline state.

    `tokens` maps each accepted token to its viewer's login; `token` is accepted as the bot (the
    state's `bot_login`), and `token=None` accepts any token as the bot. With `state_path` and no
    `state`, the file is read (and written back on each write); with both, `state` is written there.
    `repo_dir` holds the default branch's files unless the state carries them; `api_url` is where
    the bodies' links point.
    """

    def __init__(
        self,
        state: dict[str, Any] | None = None,
        *,
        state_path: Path | None = None,
        repo_dir: Path | None = None,
        token: str | None = DEFAULT_TOKEN,
        tokens: dict[str, str] | None = None,
        clock: Clock = _utc_now,
        api_url: str = "https://api.github.com",
        log_path: Path | None = None,
    ) -> None:
        repo_dir = repo_dir or Path.cwd()
        if state_path is not None and state is None:
            self.world = World.open(state_path, repo_dir=repo_dir, clock=clock)
        else:
            self.world = World(state or {}, path=state_path, repo_dir=repo_dir, clock=clock)
            if state_path is not None:
                self.world.save()
        self.tokens = dict(tokens or {})
        self.token = token
        self.api_url = api_url.rstrip("/")
        self.log_path = log_path
        self.requests: list[dict[str, Any]] = []
        self.faults = Faults(clock)
        self.rate = RateLimits(clock)
        # GitHub's secondary limits on content creation: off until a test sets `content.on`.
        self.content = ContentLimits(clock)
        self.lock = threading.Lock()

    # --- what tests use -------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self.lock:
            return self.world.snapshot()

    def load(self, state: dict[str, Any]) -> None:
        with self.lock:
            self.world.load(state)
            self.world.save()

    def lag(self, *, comments: int = 0, pulls: int = 0) -> None:
        """Lists lag behind writes, as GitHub's may: a new comment or PR is missing from the next
        `comments` (or `pulls`) reads of its list (`lag.py`)."""
        with self.lock:
            self.world.lag.reads = {"comments": comments, "pulls": pulls}

    def transport(self) -> DoubleTransport:
        return DoubleTransport(self)

    def tip(self, branch: str | None = None) -> str | None:
        with self.lock:
            return self.world.tip(branch)

    def files(self, branch: str | None = None) -> dict[str, str]:
        with self.lock:
            tip = self.world.tip(branch)
            return {} if tip is None else self.world.git.files(tip)

    def push(self, branch: str, files: dict[str, str], *, login: str = branches.PERSON, message: str = "Edit") -> str:
        """A commit by a person (not the bot) on `branch`: a default-branch edit, or a PR branch moved."""
        with self.lock:
            return branches.push(self.world, branch, files, login, message)

    def merge_pull(self, number: int, *, login: str = branches.PERSON) -> str:
        with self.lock:
            return branches.merge_pull(self.world, number, login)

    def close_pull(self, number: int) -> None:
        with self.lock:
            branches.close_pull(self.world, number)

    def checks_pass(self, number: int) -> None:
        """The PR's required checks pass on its head (GitHub merges it if auto-merge is on)."""
        with self.lock:
            merging.checks_pass(self.world, number)

    def kinds(self) -> dict[str, int]:
        counts = {"graphql": 0, "rest_read": 0, "rest_write": 0}
        for entry in self.requests:
            counts[entry["kind"]] += 1
        return counts

    # --- HTTP ------------------------------------------------------------------------------
    def viewer(self, request: Request) -> str | None:
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("token", "bearer") or not credential:
            return None
        if credential in self.tokens:
            return self.tokens[credential]
        return self.world.bot_login if self.token in (None, credential) else None

    def handle(self, request: Request) -> Response | None:
        """The answer to one request, or None when a fault says no answer comes (a timeout)."""
        request = _without_ghes_prefix(request)
        kind = "graphql" if request.path == "/graphql" else "rest_read" if request.method == "GET" else "rest_write"
        with self.lock:
            response = self._answer(request, kind)
            self._log(request, kind, response)
        return response

    def _answer(self, request: Request, kind: str) -> Response | None:
        resource = "graphql" if kind == "graphql" else "core"
        # Held to GitHub's OpenAPI description: every REST request, and the routes' own answers.
        operation = None if kind == "graphql" else openapi_check.on_request(request)
        viewer = self.viewer(request)
        if viewer is None:
            return self._finish(Response(401, error_body(401, "Bad credentials", DOCS)), resource, None)
        self.rate.spend(resource)
        refusal = self.content.admit() if creates_content(request, kind) else None
        if refusal is not None:  # refused before it is applied, as GitHub refuses it
            return self._finish(Response(*refusal), resource, None)
        self.world.refresh()
        self.world.notice()
        fault = self.faults.take(request)
        if fault is not None and fault.meanwhile is not None:
            fault.meanwhile(self.world)
            fault = None
        if fault is not None and not fault.apply_first and fault.partial is None and fault.mangle is None:
            return None if fault.timeout else self._finish(Response(fault.status, fault.body), resource, fault)
        known = self.world.lag.before(self.world.raw) if kind == "rest_write" else {}
        try:
            if kind == "graphql":
                body = graphql_api.answer(self.world, viewer, request, self.rate)
                response = Response(200, body)
            else:
                response = routes.dispatch(Context(self.world, viewer, request, self.api_url))
        except HttpError as refused:
            response = refused.response
        if kind == "rest_write":
            self.world.lag.after(self.world.raw, known)
        else:
            self.world.lag.read()
        openapi_check.on_response(operation, response)
        if kind == "rest_write":
            self.world.notice()  # a write dates the issue it changed when it lands
        if fault is not None and fault.timeout:
            return None
        if fault is not None and fault.partial is not None:
            response.body = with_partial(response.body, *fault.partial)
        elif fault is not None and fault.mangle is not None:
            response = fault.mangle(response)
        elif fault is not None:
            response = Response(fault.status, fault.body)
        return self._finish(response, resource, fault)

    def _finish(self, response: Response, resource: str, fault: Fault | None) -> Response:
        headers = {
            "content-type": "application/json; charset=utf-8",
            "x-github-media-type": "github.v3; format=json",
            "date": email.utils.format_datetime(self.world.clock().astimezone(dt.UTC), usegmt=True),
        }
        headers |= {"x-github-request-id": f"D0B1:{len(self.requests) + 1:06X}"} | self.rate.headers(resource)
        response.headers = headers | response.headers | (fault.headers if fault else {})
        return response

    def _log(self, request: Request, kind: str, response: Response | None) -> None:
        entry: dict[str, Any] = {
            "method": request.method,
            "path": request.raw_path or request.path,
            "status": None,
            "kind": kind,
            # What GitHub's content limits count: a REST write or a GraphQL mutation.
            "write": creates_content(request, kind),
        }
        if response is not None:
            entry["status"] = response.status
        self.requests.append(entry)
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")


def _without_ghes_prefix(request: Request) -> Request:
    """GitHub Enterprise Server serves REST under /api/v3 and GraphQL at /api/graphql."""
    if request.path == GHES_GRAPHQL:
        path = "/graphql"
    elif request.path.startswith(GHES_REST + "/"):
        path = request.path.removeprefix(GHES_REST)
    else:
        return request
    return Request(request.method, path, request.query, request.headers, request.body, request.raw_path)
