"""Fixtures for the GitHub double's tests: the example state, a fixed clock, a githubkit client."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import githubkit
import pytest

from tests.github_double import DEFAULT_TOKEN, GitHubDouble
from tests.support.paths import ROOT

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
OWNER, NAME = "anthony-chaudhary", "fak"
REPO = f"{OWNER}/{NAME}"
BOT = "perfbot[bot]"
BASE_URL = "https://api.github.com"


def example_state(**changes: Any) -> dict[str, Any]:
    state: dict[str, Any] = json.loads((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    state.update(changes)
    return state


def comment(comment_id: int, issue: int, user: str, body: str, **extra: Any) -> dict[str, Any]:
    return {"id": comment_id, "issue": issue, "user": user, "created_at": "2026-08-27T10:00:00Z", "body": body} | extra


def make_double(state: dict[str, Any] | None = None, **options: Any) -> GitHubDouble:
    options.setdefault("repo_dir", ROOT)
    return GitHubDouble(example_state() if state is None else state, clock=lambda: NOW, **options)


def client(double: GitHubDouble, token: str = DEFAULT_TOKEN, base_url: str = BASE_URL) -> githubkit.GitHub[Any]:
    return githubkit.GitHub(token, base_url=base_url, transport=double.transport(), auto_retry=False, http_cache=False)


@pytest.fixture
def double() -> GitHubDouble:
    """The example state without perfbot's comments (its link records): the tests make their own."""
    return make_double(example_state(comments=[]))


@pytest.fixture
def github(double: GitHubDouble) -> Iterator[githubkit.GitHub[Any]]:
    with client(double) as gh:
        yield gh


def graphql(gh: githubkit.GitHub[Any], query: str, **variables: Any) -> dict[str, Any]:
    data: dict[str, Any] = gh.graphql(query, {"owner": OWNER, "name": NAME} | variables)
    return data


def files_at(path: Path) -> dict[str, str]:
    return {p: (path / p).read_text(encoding="utf-8") for p in ("config/snapshot.yaml", "docs/current-constraints.md")}
