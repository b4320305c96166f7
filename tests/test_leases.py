"""The lease reader: both formats, the journal fold op by op, bad input, staleness."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from bot.errors import InputError
from bot.evidence.leases import parse_leases
from bot.reconcile import gather
from tests.paths import ROOT

T0 = "2026-08-27T16:00:00Z"


def acquire(lane: str, holder: str, tree: list[str], loop_ts: str = T0, **extra: Any) -> dict[str, Any]:
    lease = {"lane": lane, "loop_ts": loop_ts, "holder": holder, "tree": tree, "acquired_at": loop_ts, **extra}
    return {"op": "ACQUIRE", "lane": lane, "loop_ts": loop_ts, "ts": loop_ts, "lease": lease}


def op(name: str, lane: str, loop_ts: str = T0, **fields: Any) -> dict[str, Any]:
    return {"op": name, "lane": lane, "loop_ts": loop_ts, "ts": "2026-08-27T16:30:00Z", **fields}


def journal(*entries: dict[str, Any] | str) -> str:
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in entries)


def live(text: str) -> list[tuple[str, str]]:
    return [(lease.lane, lease.holder) for lease in parse_leases(text, "j.jsonl").live]


def test_the_shipped_readback_is_two_leases_for_issue_9420() -> None:
    readback = gather.leases(ROOT / "config" / "leases.json")
    assert readback.format == "live-array"
    assert [(x.lane, x.tree, x.issue(r"issue-(\d+)")) for x in readback.live] == [
        ("model", ("internal/model/**",), 9420),
        ("compute", ("internal/compute/**",), 9420),
    ]


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([acquire("model", "a", ["m/**"]), acquire("compute", "b", ["c/**"])], [("model", "a"), ("compute", "b")]),
        ([acquire("model", "a", ["m/**"]), op("RELEASE", "model")], []),
        ([acquire("model", "a", ["m/**"]), op("SCAVENGE", "model")], []),
        ([acquire("model", "a", ["m/**"]), {**acquire("model", "z", ["m/**"]), "op": "RECONCILE"}], [("model", "z")]),
        ([acquire("model", "a", ["m/**"]), op("ADOPT", "model", holder="b")], [("model", "b")]),
        ([acquire("model", "a", ["m/**"]), op("RELEASE", "other")], [("model", "a")]),
        (
            [acquire("model", "a", ["m/**"]), op("REFUSE", "model"), op("SPAWN", "model"), op("HALT", "model")],
            [("model", "a")],
        ),
        (
            [acquire("model", "a", ["m/**"]), {"op": "CHECKPOINT", "leases": [acquire("x", "c", ["x/**"])["lease"]]}],
            [("x", "c")],
        ),
        (
            [acquire("model", "a", ["m/**"], loop_ts="t1"), acquire("model", "b", ["m/**"], loop_ts="t2")],
            [("model", "a"), ("model", "b")],
        ),
    ],
    ids=[
        "two",
        "release",
        "scavenge",
        "reconcile",
        "adopt",
        "release-other",
        "forensic",
        "checkpoint",
        "keyed-by-loop-ts",
    ],
)
def test_fold(entries: list[dict[str, Any]], expected: list[tuple[str, str]]) -> None:
    assert live(journal(*entries)) == expected


def test_heartbeat_updates_and_released_are_kept() -> None:
    text = journal(acquire("model", "a", ["m/**"]), op("HEARTBEAT", "model", heartbeat_at="2026-08-27T16:20:00Z"))
    (lease,) = parse_leases(text, "j").live
    assert lease.heartbeat_at == "2026-08-27T16:20:00Z"
    released = parse_leases(text + journal(op("RELEASE", "model")), "j").released
    assert [x.holder for x in released] == ["a"]


def test_flat_acquire_without_nested_lease() -> None:
    entry = {"op": "ACQUIRE", "lane": "model", "loop_ts": T0, "holder": "h", "tree": ["m/**"], "mode": "x", "pid": 3}
    (lease,) = parse_leases(journal(entry), "j").live
    assert (lease.holder, lease.tree, lease.mode) == ("h", ("m/**",), None)


def test_unknown_fields_are_ignored() -> None:
    text = journal(acquire("model", "a", ["m/**"], proc_starttime=5, future_field={"x": 1}))
    assert live(text) == [("model", "a")]


def test_torn_last_line_is_ignored_and_corrupt_middle_reported() -> None:
    text = journal(acquire("model", "a", ["m/**"]), "{not json", acquire("compute", "b", ["c/**"]), '{"op": "RELEA')
    readback = parse_leases(text, "j.jsonl")
    assert [x.lane for x in readback.live] == ["model", "compute"]
    assert readback.warnings == ("j.jsonl:2: corrupt journal line skipped", "j.jsonl:4: torn last line ignored")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("this is not a lease file\nat all\n", "j:1:1: not a dos lane journal, a lease array or a published readback"),
        ('[{"lane": "m", "loop_ts": "t", "tree": []}]', "j:1:1: lease 1 (m) has an empty path list"),
        (
            '[\n  {"lane": "m", "loop_ts": "t", "tree": ["a"]},\n  {"lane": "n", "tree": ["b"]}\n]',
            "j:3:1: lease 2: loop_ts: required key is missing",
        ),
        ("[1, 2", "j:1:6: not a lease array: Expecting ',' delimiter"),
        ('{"a": 1}', "j:1:1: not a dos lane journal, a lease array or a published readback"),
        (journal(acquire("model", "a", [])), "j:1:1: ACQUIRE entry (model) has an empty path list"),
        ('{"leases": []}', "j:1:1: published readback: readback_at: required key is missing"),
        (
            '{"readback_at": "2026-08-27T17:00:00Z", "source": "live-array", "leases": [], "extra": 1}',
            "j:1:1: published readback: extra: unknown key",
        ),
        (
            '{"readback_at": "2026-08-27T17:00:00", "source": "live-array", "leases": []}',
            "j:1:1: published readback: readback_at: Input should have timezone info",
        ),
        (
            '{\n  "readback_at": "2026-08-27T17:00:00Z",\n  "source": "journal",\n  "leases": [\n'
            '    {"lane": "m", "loop_ts": "t", "tree": ["a"]},\n    {"lane": "n", "loop_ts": "t", "tree": []}\n  ]\n}',
            "j:6:1: lease 2 (n) has an empty path list",
        ),
    ],
)
def test_bad_lease_files_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_leases(text, "j")
    assert str(info.value) == message


def test_missing_lease_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        gather.leases(tmp_path / "missing.json")


def test_staleness_uses_the_newest_stamp_ttl_and_grace() -> None:
    text = journal(
        acquire("model", "a", ["m/**"]),
        acquire("compute", "b", ["c/**"], ttl_minutes=10),
        op("HEARTBEAT", "model", heartbeat_at="2026-08-27T16:50:00Z"),
    )
    readback = parse_leases(text, "j")
    at = dt.datetime(2026, 8, 27, 17, 0, tzinfo=dt.UTC)
    assert [x.lane for x in readback.stale(at, 50, 5)] == ["compute"]
    later = dt.datetime(2026, 8, 27, 17, 46, tzinfo=dt.UTC)
    assert [x.lane for x in readback.stale(later, 50, 5)] == ["model", "compute"]
    assert len(readback.live) == 2  # stale leases still count: fail closed
