"""The run context: everything perfbot takes from the environment, read once by the CLI.

Nothing else reads the process environment; the rest of the program receives these values as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

DEFAULT_API_URL = "https://api.github.com"


class RunContext(NamedTuple):
    """The environment of one run: GitHub Actions' variables and the token."""

    in_actions: bool = False
    step_summary: Path | None = None
    event_name: str | None = None
    event_path: Path | None = None
    token: str | None = None
    repository: str | None = None
    api_url: str = DEFAULT_API_URL
    server_url: str = "https://github.com"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> RunContext:
        def path(name: str) -> Path | None:
            value = environ.get(name, "")
            return Path(value) if value else None

        return cls(
            in_actions=environ.get("GITHUB_ACTIONS") == "true",
            step_summary=path("GITHUB_STEP_SUMMARY"),
            event_name=environ.get("GITHUB_EVENT_NAME") or None,
            event_path=path("GITHUB_EVENT_PATH"),
            token=environ.get("GITHUB_TOKEN") or None,
            repository=environ.get("GITHUB_REPOSITORY") or None,
            api_url=(environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            server_url=(environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
        )
