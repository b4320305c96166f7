"""A GitHub double: an HTTP-level fake of the REST and GraphQL endpoints perfbot uses.

It is backed by the offline state file (docs/reference.md, "Offline state file"), plus an
optional `git` key (described in `state_format`), and writes to it the way `bot/github/offline.py` does, by calling its methods.

- In-process: `GitHubDouble(state).transport()` is an httpx transport for
  `githubkit.GitHub(token, base_url=..., transport=..., auto_retry=False, http_cache=False)`;
  `.state()` reads the state back, `.requests` is the request log, `.faults` injects faults,
  `.push(...)` and `.merge_pull(...)` are commits made by people.
- As a server: `python -m tests.github_double --state STATE.json --port N [--log FILE] [--repo-dir DIR]`.
- As a place to try perfbot: `python -m tests.github_double.playground start` (the README's "Try it").
- GraphQL: `schema.graphql` is a subset of GitHub's published schema, executed with graphql-core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.github_double.protocol import DEFAULT_TOKEN

if TYPE_CHECKING:
    from tests.github_double.double import GitHubDouble

__all__ = ["DEFAULT_TOKEN", "GitHubDouble"]


def __getattr__(name: str) -> object:
    """`GitHubDouble` is imported when first asked for: what only speaks to a double over HTTP (the
    playground's commands but `serve`) then imports neither graphql-core nor jsonschema."""
    if name == "GitHubDouble":
        from tests.github_double.double import GitHubDouble

        return GitHubDouble
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
