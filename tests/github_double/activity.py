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

Looking is kept cheap, as it happens twice a request: what the fingerprints read is compared with
what it was at the last look as `marshal` bytes first (equal bytes are equal values of the same
types, so equal JSON), and only an issue whose part changed is hashed again.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import marshal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.issue_refs import ForeignIssue, parse_issue


def sidecar(state: Path | None) -> Path | None:
    return None if state is None else state.with_name(state.name + ".activity.json")


def key(issue: object, repository: object = None) -> str:
    """An issue's key in the sidecar: its number in the state's own repository, `owner/repo#N` (case
    folded) in another one the state holds issues of."""
    if (type(issue) is int or type(issue) is str) and (repository is None or type(repository) is str):
        return _known_key(issue, repository)
    return _key(issue, repository)


@functools.lru_cache(maxsize=65536)  # pure, and asked for every record of every issue at every look
def _known_key(issue: int | str, repository: str | None) -> str:
    return _key(issue, repository)


def _key(issue: object, repository: object) -> str:
    found = parse_issue(issue)
    if repository and isinstance(found, int):
        found = ForeignIssue.of(str(repository), found)
    return str(found).casefold()


def record_key(record: dict[str, Any]) -> str:
    return key(record["number"], record.get("repository"))


def fingerprints(raw: dict[str, Any], memo: dict[str, tuple[bytes, str]] | None = None) -> dict[str, str]:
    """A digest per issue of everything perfbot reads of it, reactions excepted. With a `memo`
    (key -> the part's `marshal` bytes and digest, kept from the last call), a part whose bytes
    did not change keeps its digest."""
    if memo is None:
        return {n: _digest(found) for n, found in _parts(raw).items()}
    return {n: _remembered(n, found, memo) for n, found in _parts(raw).items()}


def _parts(raw: dict[str, Any]) -> dict[str, list[Any]]:
    parts: dict[str, list[Any]] = {record_key(i): [i] for i in raw.get("issues", [])}
    for comment in sorted(raw.get("comments", []), key=lambda c: c["id"]):
        parts.setdefault(key(comment["issue"]), []).append(comment)
    for event in raw.get("label_events", []):
        parts.setdefault(key(event["issue"]), []).append(event)
    for issue in raw.get("issues", []):
        if issue.get("parent") is not None:
            parts.setdefault(key(issue["parent"]), []).append({"sub_issue": issue["number"]})
    return parts


def _remembered(number: str, found: list[Any], memo: dict[str, tuple[bytes, str]]) -> str:
    packed = _packed(found)
    if packed is None:
        return _digest(found)
    before = memo.get(number)
    if before is not None and before[0] == packed:
        return before[1]
    digest = _digest(found)
    memo[number] = (packed, digest)
    return digest


def _packed(value: Any) -> bytes | None:
    """`value` as `marshal` bytes; None for a value marshal does not write (not one JSON reads).
    Version 2 writes a shared object each time it occurs: later versions mark objects by their
    reference counts, so equal values would give different bytes."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return None


def _digest(found: list[Any]) -> str:
    return hashlib.sha256(json.dumps(found, sort_keys=True, default=str).encode()).hexdigest()


class Activity:
    def __init__(self, path: Path | None, clock: Callable[[], dt.datetime]) -> None:
        self.path, self.clock = path, clock
        self.known: dict[str, tuple[str, str]] = {}  # key -> (fingerprint, updatedAt)
        self.looked: bytes | None = None  # what the fingerprints read at the last look, marshalled
        self.digests: dict[str, tuple[bytes, str]] = {}  # the memo of `fingerprints`
        if path is not None and path.is_file():
            found = json.loads(path.read_text(encoding="utf-8"))
            self.known = {str(n): (str(v["seen"]), str(v["at"])) for n, v in found.items()}

    def notice(self, raw: dict[str, Any]) -> None:
        """Move `updatedAt` to now for every issue that changed since the last look."""
        looked = _packed([raw.get(name, []) for name in ("issues", "comments", "label_events")])
        if looked is not None and looked == self.looked:
            return  # the same values as at the last look, which brought every fingerprint up to date
        now = self.clock().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        given = {record_key(i): i.get("updated_at") for i in raw.get("issues", [])}
        changed = False
        for number, seen in fingerprints(raw, self.digests).items():
            before = self.known.get(number)
            if before is not None and before[0] == seen:
                continue
            at = now if before is not None or not given.get(number) else str(given[number])
            self.known[number] = (seen, at)
            changed = True
        self.looked = looked
        if changed and self.path is not None:
            text = json.dumps({n: {"seen": s, "at": a} for n, (s, a) in sorted(self.known.items())}, indent=1)
            self.path.write_text(text + "\n", encoding="utf-8")

    def updated_at(self, number: int, repository: str | None = None) -> str:
        return self.known[key(number, repository)][1]
