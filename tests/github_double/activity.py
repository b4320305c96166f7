"""Each issue's `updatedAt`, kept as GitHub keeps it: moved to the double's clock whenever what
perfbot reads of the issue changes (its record, its comments, its label events, its sub-issues).

The double notices a change by comparing a fingerprint of those with the one it saw last, before
answering each request and after each write, so a change counts however it was made: through the
REST routes (dated when the write lands), or by editing the state file (dated when the double next
answers, the first moment it could know).
Reactions are left out on purpose: GitHub does not document that a reaction to a comment moves
the issue's `updatedAt`, so the double takes the case that hides most (it does not).

The fingerprints and times are kept beside the state file (`STATE.json.activity.json`), so a
double started again on the same file still knows what changed since it last answered; an issue
it has never seen counts as changed now, unless its record carries GitHub's `updated_at`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.issue_refs import ForeignIssue, parse_issue


def sidecar(state: Path | None) -> Path | None:
    return None if state is None else state.with_name(state.name + ".activity.json")


def key(issue: object, repository: object = None) -> str:
    """An issue's key in the sidecar: its number in the state's own repository, `owner/repo#N` (case
    folded) in another one the state holds issues of."""
    found = parse_issue(issue)
    if repository and isinstance(found, int):
        found = ForeignIssue.of(str(repository), found)
    return str(found).casefold()


def record_key(record: dict[str, Any]) -> str:
    return key(record["number"], record.get("repository"))


def fingerprints(raw: dict[str, Any]) -> dict[str, str]:
    """A digest per issue of everything perfbot reads of it, reactions excepted."""
    parts: dict[str, list[Any]] = {record_key(i): [i] for i in raw.get("issues", [])}
    for comment in sorted(raw.get("comments", []), key=lambda c: c["id"]):
        parts.setdefault(key(comment["issue"]), []).append(comment)
    for event in raw.get("label_events", []):
        parts.setdefault(key(event["issue"]), []).append(event)
    for issue in raw.get("issues", []):
        if issue.get("parent") is not None:
            parts.setdefault(key(issue["parent"]), []).append({"sub_issue": issue["number"]})
    return {n: _digest(found) for n, found in parts.items()}


def _digest(found: list[Any]) -> str:
    return hashlib.sha256(json.dumps(found, sort_keys=True, default=str).encode()).hexdigest()


class Activity:
    def __init__(self, path: Path | None, clock: Callable[[], dt.datetime]) -> None:
        self.path, self.clock = path, clock
        self.known: dict[str, tuple[str, str]] = {}  # key -> (fingerprint, updatedAt)
        if path is not None and path.is_file():
            found = json.loads(path.read_text(encoding="utf-8"))
            self.known = {str(n): (str(v["seen"]), str(v["at"])) for n, v in found.items()}

    def notice(self, raw: dict[str, Any]) -> None:
        """Move `updatedAt` to now for every issue that changed since the last look."""
        now = self.clock().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        given = {record_key(i): i.get("updated_at") for i in raw.get("issues", [])}
        changed = False
        for number, seen in fingerprints(raw).items():
            before = self.known.get(number)
            if before is not None and before[0] == seen:
                continue
            at = now if before is not None or not given.get(number) else str(given[number])
            self.known[number] = (seen, at)
            changed = True
        if changed and self.path is not None:
            text = json.dumps({n: {"seen": s, "at": a} for n, (s, a) in sorted(self.known.items())}, indent=1)
            self.path.write_text(text + "\n", encoding="utf-8")

    def updated_at(self, number: int, repository: str | None = None) -> str:
        return self.known[key(number, repository)][1]
