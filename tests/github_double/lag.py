"""Eventually consistent lists, as GitHub's are: a comment or PR just made is missing from lists
(GraphQL connections and REST list endpoints) for the next N reads, while reading it by its id
finds it at once.

`GitHubDouble.lag(comments=N, pulls=N)` switches it on. Each GraphQL request or REST read that
follows a write counts as one read of every list; writes do not count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KEYS = {"comments": "id", "pulls": "number"}


@dataclass
class Lag:
    """How many reads each kind of list lags by, and what is still missing from which list."""

    reads: dict[str, int] = field(default_factory=dict)
    hidden: dict[tuple[str, int], int] = field(default_factory=dict)  # (list, id) -> reads left

    def before(self, raw: dict[str, Any]) -> dict[str, set[int]]:
        """The ids of each lagging list before a write."""
        return {name: _ids(raw, name) for name in self.reads if self.reads[name] > 0}

    def after(self, raw: dict[str, Any], known: dict[str, set[int]]) -> None:
        """Hide from their lists what the write made."""
        for name, ids in known.items():
            for new in _ids(raw, name) - ids:
                self.hidden[(name, new)] = self.reads[name]

    def hide_present(self, raw: dict[str, Any], bot_login: str) -> None:
        """Start as if the bot's comments and the open PRs had just been made: a run that follows
        another at once may not see what that run wrote (more than GitHub ever hides; never less)."""
        for comment in raw.get("comments", []):
            if comment.get("user") == bot_login and self.reads.get("comments"):
                self.hidden[("comments", int(comment["id"]))] = self.reads["comments"]
        for pull in raw.get("pulls", []):
            if pull.get("state", "open") == "open" and self.reads.get("pulls"):
                self.hidden[("pulls", int(pull["number"]))] = self.reads["pulls"]

    def read(self) -> None:
        """One read went by: each hidden record is one read closer to showing."""
        self.hidden = {key: left - 1 for key, left in self.hidden.items() if left > 1}

    def shown(self, name: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not self.hidden:
            return records
        key = KEYS[name]
        return [r for r in records if (name, int(r[key])) not in self.hidden]


def _ids(raw: dict[str, Any], name: str) -> set[int]:
    return {int(r[KEYS[name]]) for r in raw.get(name, []) if isinstance(r, dict)}
