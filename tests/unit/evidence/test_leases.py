"""The lease reader's details: element lines, the journal fold's edge cases, one problem per bad lease."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from bot.errors import InputError
from bot.evidence.leases import Lease, _parse_array, detect_format, parse_leases

T0 = "2026-08-27T16:00:00Z"
T1 = "2026-08-27T16:30:00Z"


def journal(*entries: dict[str, Any]) -> str:
    return "".join(json.dumps(e) + "\n" for e in entries)


def acquire(lane: str, holder: str = "h", loop_ts: str = T0, **extra: Any) -> dict[str, Any]:
    lease = {"lane": lane, "loop_ts": loop_ts, "holder": holder, "tree": [f"{lane}/**"], **extra}
    return {"op": "ACQUIRE", "lane": lane, "loop_ts": loop_ts, "lease": lease}


def error(text: str) -> str:
    with pytest.raises(InputError) as info:
        parse_leases(text, "j")
    return str(info.value)


def test_describe_names_the_lane_holder_and_tree() -> None:
    assert (
        Lease(lane="m", loop_ts="t", holder="issue-1", tree=("a/**", "b")).describe() == "m lease of issue-1 on a/**, b"
    )
    assert Lease(lane="m", loop_ts="t", tree=("a",)).describe() == "m lease of an unnamed holder on a"


def test_the_issue_a_lease_is_held_for() -> None:
    lease = Lease(lane="m", loop_ts="t", holder="issue-9420-cache", tree=("a",))
    assert lease.issue(r"issue-(\d+)") == 9420
    assert lease.issue(r"gh-(\d+)") is None


def test_last_seen_is_the_newest_stamp() -> None:
    assert Lease(lane="m", loop_ts="t", tree=("a",)).last_seen() is None
    both = Lease(lane="m", loop_ts="t", tree=("a",), acquired_at=T1, heartbeat_at=T0)
    assert both.last_seen() == dt.datetime(2026, 8, 27, 16, 30, tzinfo=dt.UTC)


def test_staleness_at_the_boundary_with_its_own_ttl() -> None:
    lease = Lease(lane="m", loop_ts="t", tree=("a",), acquired_at=T0, ttl_minutes=10)
    at = dt.datetime(2026, 8, 27, 16, 15, tzinfo=dt.UTC)  # exactly ttl + grace after the stamp
    assert not lease.is_stale(at, default_ttl=50, grace=5)
    assert lease.is_stale(at + dt.timedelta(seconds=1), default_ttl=50, grace=5)
    assert not lease.model_copy(update={"ttl_minutes": None}).is_stale(at, default_ttl=50, grace=5)
    assert not Lease(lane="m", loop_ts="t", tree=("a",)).is_stale(at, default_ttl=0, grace=0)  # never seen


@pytest.mark.parametrize(
    ("text", "form"), [("\n  [ ]", "live-array"), ("[]", "live-array"), ('{"op": 1}', "journal"), ("", "journal")]
)
def test_detect_format(text: str, form: str) -> None:
    assert detect_format(text) == form


def test_a_readback_names_its_file_and_format() -> None:
    array = parse_leases(" []", "a.json")
    assert (array.file, array.format, array.live) == ("a.json", "live-array", ())
    readback = parse_leases(journal(acquire("m")), "j.jsonl")
    assert (readback.file, readback.format) == ("j.jsonl", "journal")


def test_a_bad_element_is_reported_at_its_own_line_past_nested_values() -> None:
    text = (
        '[\n  {"lane": "XY", "loop_ts": "t", "tree": ["a"], "extra": {"k": [1, {"z": 2}]}},\n'
        '  {"lane": "n", "loop_ts": "t", "tree": ["b"]},\n'
        '  {"lane": "o",\n   "tree": ["c"]}\n]'
    )
    assert error(text) == "j:4:1: lease 3: loop_ts: required key is missing"


def test_an_element_that_is_not_an_object() -> None:
    assert error("[1]") == "j:1:1: lease 1 is not a JSON object"


def test_only_the_first_problem_of_a_lease_is_reported() -> None:
    assert error('[{"tree": ["a"]}]') == "j:1:1: lease 1: lane: required key is missing"


def test_the_array_reader_refuses_anything_but_an_array() -> None:
    with pytest.raises(InputError) as info:
        _parse_array('{"lane": "m"}', "j")
    assert str(info.value) == "j:1:1: expected a JSON array of leases"


def test_adopt_moves_the_lease_to_its_new_holder_and_host() -> None:
    adopt = {"op": "ADOPT", "lane": "m", "loop_ts": T0, "holder": "b", "host_id": "h2", "heartbeat_at": T1, "ts": "x"}
    (lease,) = parse_leases(journal(acquire("m", host_id="h1"), adopt), "j").live
    assert (lease.holder, lease.host_id, lease.heartbeat_at) == ("b", "h2", T1)


def test_adopt_without_new_values_keeps_them_and_takes_the_entry_time() -> None:
    adopt = {"op": "ADOPT", "lane": "m", "loop_ts": T0, "holder": None, "ts": T1}
    (lease,) = parse_leases(journal(acquire("m", "a", host_id="h1"), adopt), "j").live
    assert (lease.holder, lease.host_id, lease.heartbeat_at) == ("a", "h1", T1)


def test_a_heartbeat_without_its_own_stamp_takes_the_entry_time() -> None:
    (lease,) = parse_leases(journal(acquire("m"), {"op": "HEARTBEAT", "lane": "m", "loop_ts": T0, "ts": T1}), "j").live
    assert lease.heartbeat_at == T1


def test_other_ops_and_unknown_lanes_change_nothing() -> None:
    entries = [
        acquire("m"),
        {"op": "REFUSE", "lane": "m", "loop_ts": T0, "ts": T1, "holder": "z"},
        {"op": "ADOPT", "lane": "gone", "loop_ts": T0, "ts": T1},
        {"op": "HEARTBEAT", "lane": "gone", "loop_ts": T0, "ts": T1},
    ]
    (lease,) = parse_leases(journal(*entries), "j").live
    assert (lease.holder, lease.heartbeat_at) == ("h", None)


def test_entries_after_a_checkpoint_and_after_a_keyless_entry_still_count() -> None:
    checkpoint = {"op": "CHECKPOINT", "leases": [acquire("a")["lease"]]}
    keyless = {"op": "ACQUIRE", "lease": acquire("k")["lease"]}  # names no lane or loop_ts: skipped
    readback = parse_leases(journal(acquire("m"), checkpoint, keyless, acquire("b")), "j")
    assert [lease.lane for lease in readback.live] == ["a", "b"]


def test_a_checkpoint_without_leases_empties_the_set() -> None:
    assert parse_leases(journal(acquire("m"), {"op": "CHECKPOINT"}), "j").live == ()


def test_a_bad_checkpoint_lease_is_reported_at_its_line() -> None:
    bad = {"op": "CHECKPOINT", "leases": [{"lane": "x", "loop_ts": "t", "tree": []}]}
    assert error(journal(acquire("m"), bad)) == "j:2:1: checkpoint lease (x) has an empty path list"
    assert (
        error(journal(acquire("m"), {"op": "CHECKPOINT", "leases": [3]}))
        == "j:2:1: checkpoint lease is not a JSON object"
    )


@pytest.mark.parametrize(("lane", "loop_ts"), [("m", ""), ("", "t")])
def test_a_release_matches_a_lease_keyed_by_one_empty_part(lane: str, loop_ts: str) -> None:
    entry = {
        "op": "ACQUIRE",
        "lease": {"lane": lane, "loop_ts": loop_ts, "tree": ["a"]},
        "lane": lane,
        "loop_ts": loop_ts,
    }
    release = {"op": "RELEASE", **({"lane": lane} if lane else {}), **({"loop_ts": loop_ts} if loop_ts else {})}
    readback = parse_leases(journal(entry, release), "j")
    assert (readback.live, len(readback.released)) == ((), 1)
