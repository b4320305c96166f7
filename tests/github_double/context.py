"""What a handler gets: the world, who is asking, the request, and the API's base URL."""

from __future__ import annotations

from dataclasses import dataclass

from tests.github_double.protocol import Request
from tests.github_double.world import World


@dataclass(frozen=True)
class Context:
    world: World
    viewer: str
    request: Request
    api: str  # base URL the bodies' links start with, e.g. http://127.0.0.1:8765
    # Another repository the path names, one the state holds issues of (None: the state's own).
    repository: str | None = None

    def docs(self, page: str) -> str:
        return f"https://docs.github.com/rest/{page}"
