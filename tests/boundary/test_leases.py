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
from tests.support.paths import ROOT

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
            [
                acquire("model", "a", ["m/**"], loop_ts="t1", acquired_at=T0),
                acquire("model", "b", ["m/**"], loop_ts="t2", acquired_at=T0),
            ],
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


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"op": "CHECKPOINT", "leases": 5}, "j:2:1: CHECKPOINT entry: leases must be a list of leases"),
        (
            op("HEARTBEAT", "model", heartbeat_at=5),
            "j:2:1: HEARTBEAT entry: heartbeat_at: Input should be a valid string",
        ),
        (
            op("HEARTBEAT", "model", heartbeat_at=[1]),
            "j:2:1: HEARTBEAT entry: heartbeat_at: Input should be a valid string",
        ),
        (op("ADOPT", "model", holder=5), "j:2:1: ADOPT entry: holder: Input should be a valid string"),
        (
            acquire("x", "a", ["x/**"], ttl_minutes=10**13),
            "j:2:1: ACQUIRE entry: ttl_minutes: Input should be less than",
        ),
        (
            acquire("x", "a", ["x/**"], ttl_minutes=-(10**13)),
            "j:2:1: ACQUIRE entry: ttl_minutes: Input should be greater",
        ),
        (acquire("x", "issue-" + "9" * 5000, ["x/**"]), "j:2:1: ACQUIRE entry: holder: String should have at most 500"),
        (
            acquire("x", "a", ["x/**"], heartbeat_at=7),
            "j:2:1: ACQUIRE entry: heartbeat_at: Input should be a valid string",
        ),
    ],
    ids=[
        "checkpoint-not-a-list",
        "heartbeat-number",
        "heartbeat-list",
        "adopt-number",
        "ttl-huge",
        "ttl-negative",
        "holder-5000-digits",
        "acquire-stamp",
    ],
)
def test_every_folded_record_is_validated(entry: dict[str, Any], message: str) -> None:
    """`model_copy(update=...)` does not validate: these raised TypeError, AttributeError, OverflowError, ValueError."""
    with pytest.raises(InputError) as info:
        parse_leases(journal(acquire("model", "a", ["m/**"]), entry), "j")
    assert str(info.value).startswith(message)


def test_a_lease_array_is_validated_the_same_way() -> None:
    with pytest.raises(InputError, match=r"j:2:1: lease 1: ttl_minutes: Input should be less than or equal to"):
        parse_leases('[\n  {"lane": "m", "loop_ts": "t", "tree": ["a"], "ttl_minutes": 10000000000000}]', "j")
    with pytest.raises(InputError, match="j:1:83: not a lease array: nested deeper than 64 levels"):
        parse_leases('[{"lane": "m", ' + '"x": ' + "[" * 100 + "]" * 100 + "}]", "j")


def test_corrupt_middle_lines_of_every_kind_are_reported_and_skipped() -> None:
    text = journal(
        acquire("model", "a", ["m/**"]),
        "[" * 100_000,
        '{"op": "RELEASE", "lane": "model", "loop_ts": ' + "1" * 5000 + "}",
        "[1, 2]",
        '{"op": "ACQUIRE", "op": "RELEASE"}',
        acquire("compute", "b", ["c/**"]),
    )
    readback = parse_leases(text, "j")
    assert [x.lane for x in readback.live] == ["model", "compute"]
    assert readback.warnings == tuple(f"j:{n}: corrupt journal line skipped" for n in (2, 3, 4, 5))


def test_skipped_lines_are_counted_past_twenty() -> None:
    text = journal(acquire("model", "a", ["m/**"]), *["{broken"] * 30, acquire("compute", "b", ["c/**"]))
    warnings = parse_leases(text, "j").warnings
    assert len(warnings) == 21
    assert warnings[-1] == "j: … and 10 more lines skipped"


def test_an_op_that_is_not_text_is_ignored_like_any_unknown_op() -> None:
    text = journal(acquire("model", "a", ["m/**"]), {"op": ["RELEASE"], "lane": "model", "loop_ts": T0})
    assert live(text) == [("model", "a")]


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_lease_file_is_a_warning_not_silence(text: str) -> None:
    readback = parse_leases(text, "j")
    assert readback.live == ()
    assert readback.warnings == ("j: the lease file is empty: no live leases",)


def test_an_empty_lease_file_is_warned_about_in_the_plan(sandbox: Any, capsys: pytest.CaptureFixture[str]) -> None:
    empty = sandbox.root / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    plan = sandbox.reconcile(capsys, "--leases", str(empty), "--now", "2026-08-27T23:00:00Z", dry_run=True)
    assert plan["leases"]["warnings"] == [f"{empty}: the lease file is empty: no live leases"]


def test_the_issue_of_a_holder_is_a_plain_bounded_number() -> None:
    lease = parse_leases(journal(acquire("m", "issue-" + "9" * 400, ["m/**"])), "j").live[0]
    assert lease.issue(r"issue-(\d+)") is None
    assert lease.issue(r"issue-(\w+)") is None
    assert lease.issue(r"issue-\d+") is None
    short = lease.model_copy(update={"holder": "issue-9420-x"})
    assert short.issue(r"issue-(\d+)") == 9420


@pytest.mark.parametrize(
    ("field", "stamp"),
    [
        ("acquired_at", "yesterday"),
        ("acquired_at", "2026-13-01T00:00:00Z"),
        ("heartbeat_at", "0001-01-01T00:00:00+14:00"),  # outside the years 1 to 9999 in UTC
        ("heartbeat_at", ""),
    ],
)
def test_a_lease_time_that_is_no_time_is_refused_naming_its_line(field: str, stamp: str) -> None:
    """A lease whose time cannot be read would never go stale: it is an error, not a lease."""
    text = journal(acquire("c", "b", ["c/**"]), acquire("m", "a", ["m/**"], **{field: stamp}))
    with pytest.raises(InputError) as caught:
        parse_leases(text, "j")
    assert caught.value.problems[0].line == 2
    assert f"{field}: {stamp!r} is not an ISO-8601 time" in caught.value.problems[0].message


def test_a_heartbeat_whose_time_is_no_time_is_refused() -> None:
    text = journal(acquire("m", "a", ["m/**"]), op("HEARTBEAT", "m", heartbeat_at="soon"))
    with pytest.raises(InputError, match="HEARTBEAT entry: heartbeat_at: 'soon' is not an ISO-8601 time"):
        parse_leases(text, "j")


@pytest.mark.parametrize("fmt", ["journal", "array", "published"])
def test_a_byte_order_mark_is_read_past(fmt: str) -> None:
    lease = acquire("m", "issue-7", ["m/**"])["lease"]
    text = {
        "journal": journal(acquire("m", "issue-7", ["m/**"])),
        "array": json.dumps([lease]),
        "published": json.dumps({"readback_at": T0, "source": "live-array", "leases": [lease]}),
    }[fmt]
    plain, marked = parse_leases(text, "j"), parse_leases("\ufeff" + text, "j")
    assert marked == plain
    assert [x.holder for x in marked.live] == ["issue-7"]


def test_a_long_lease_is_described_in_one_bounded_line() -> None:
    lease = parse_leases(journal(acquire("m", "h" * 400, [f"p{n}/**" for n in range(50)])), "j").live[0]
    text = lease.describe()
    assert len(text) < 800
    assert text.endswith("and 45 more")
