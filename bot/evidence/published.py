"""The published lease readback: where it lives (`BRANCH:PATH`), the file `perfbot publish-leases`
commits there, and whether a new readback is worth a commit.

dos keeps its leases on the fleet host, where a job on a GitHub runner cannot see them, so the
host publishes its readback to a branch of the repository and a run reads it from there. A
commit is made when the leases differ from the published ones, never for the time alone; the
one exception is a refresh once the published readback is `readback_refresh_minutes` old, so a
fleet whose leases did not change does not look stale (`readback_max_age_minutes`) to a run.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Literal, NamedTuple

from bot.errors import InputError
from bot.evidence.leases import Lease, LeaseReadback, parse_leases
from bot.github.branch_file import BranchFile, branch_file
from bot.timestamps import utc_stamp

DEFAULT_TARGET = "perfbot/leases:leases.json"
Reason = Literal["first", "changed", "refresh", "replaced"]


def target(text: str | None) -> BranchFile:
    """Where `publish-leases` writes: `text` (the config's `leases` or `--to`) when it names a branch
    file, else the default `perfbot/leases:leases.json`."""
    found = branch_file(text) if text else None
    if found is not None:
        return found
    default = branch_file(DEFAULT_TARGET)
    assert default is not None
    return default


def published_text(readback: LeaseReadback, at: dt.datetime) -> str:
    """The published file: the live leases (the fields perfbot reads) and when they were read back."""
    record = {
        "readback_at": utc_stamp(at),
        "source": "journal" if readback.format == "journal" else "live-array",
        "leases": [lease.model_dump(mode="json", exclude_none=True) for lease in readback.live],
    }
    return json.dumps(record, indent=2) + "\n"


def _same(one: tuple[Lease, ...], other: tuple[Lease, ...]) -> bool:
    """The same set of leases, in any order (a heartbeat is a change: it keeps a lease from going stale)."""
    return sorted(x.model_dump_json() for x in one) == sorted(x.model_dump_json() for x in other)


class Decision(NamedTuple):
    """What to publish: `reason` None means the published readback already says it all."""

    text: str
    reason: Reason | None
    previous_at: dt.datetime | None = None


def decide(
    current: str | None, readback: LeaseReadback, now: dt.datetime, refresh_minutes: int, where: str
) -> Decision:
    """Compare the leases, not the time: a rerun with the same leases writes nothing until the
    published readback is `refresh_minutes` old."""
    text = published_text(readback, now)
    if current is None:
        return Decision(text, "first")
    try:
        before = parse_leases(current, where)
    except InputError:
        return Decision(text, "replaced")
    if before.readback_at is None:
        return Decision(text, "replaced")
    if not _same(before.live, readback.live):
        return Decision(text, "changed", before.readback_at)
    if now - before.readback_at >= dt.timedelta(minutes=refresh_minutes):
        return Decision(text, "refresh", before.readback_at)
    return Decision(text, None, before.readback_at)
