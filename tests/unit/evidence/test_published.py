"""The published readback, without GitHub: `BRANCH:PATH`, the file's format, when to commit, the
config keys, the stale warning in the plan, and the branch file in the live query."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.config import BotConfig, LeaseRules, Settings
from bot.errors import InputError
from bot.evidence.leases import Lease, LeaseReadback, decide, parse_leases, published_text, target
from bot.github.branch_file import BranchFile, branch_file
from bot.github.observed import Observed
from bot.github.offline import OfflineGitHub
from bot.reconcile import gather
from bot.reconcile.decide import decide as plan
from bot.snapshot.store import parse_model
from tests.support.paths import ROOT

AT = dt.datetime(2026, 8, 27, 17, tzinfo=dt.UTC)
SEED = (ROOT / "config" / "leases.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("perfbot/leases:leases.json", BranchFile("perfbot/leases", "leases.json")),
        ("leases:fleet/live.json", BranchFile("leases", "fleet/live.json")),
        ("config/leases.json", None),
        ("./odd:name.json", None),  # `.` cannot start a branch name: a path
        ("a..b:x", None),
        ("with space:x", None),
        ("x.lock:y", None),
        ("/abs:x", None),
    ],
)
def test_branch_file_or_a_path(text: str, expected: BranchFile | None) -> None:
    assert branch_file(text) == expected


@pytest.mark.parametrize("text", ["perfbot/leases:", "perfbot/leases:/abs.json", "b:dir/", "b:a/../x", "b:a//x"])
def test_a_branch_with_a_bad_path_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="expected BRANCH:PATH"):
        branch_file(text)


@given(st.text(max_size=40))
def test_a_branch_file_reads_back_as_written(text: str) -> None:
    try:
        found = branch_file(text)
    except ValueError:
        return
    assert found is None or str(found) == text


def test_the_default_target() -> None:
    assert str(target(None)) == "perfbot/leases:leases.json"
    assert str(target("config/leases.json")) == "perfbot/leases:leases.json"
    assert str(target("fleet:x/y.json")) == "fleet:x/y.json"


leases = st.builds(
    Lease,
    lane=st.sampled_from(["model", "compute", "metal"]),
    loop_ts=st.sampled_from(["2026-08-27T16:00:00Z", "2026-08-27T16:30:00Z"]),
    holder=st.text(max_size=20),
    tree=st.lists(st.text(min_size=1, max_size=10).filter(str.strip), min_size=1, max_size=3).map(tuple),
    heartbeat_at=st.none() | st.just("2026-08-27T16:40:00Z"),
    ttl_minutes=st.none() | st.integers(1, 500),
)


@given(st.lists(leases, max_size=5), st.sampled_from(["live-array", "journal"]))
def test_the_published_file_reads_back_as_the_same_leases(live: list[Lease], source: str) -> None:
    readback = LeaseReadback("x", source, tuple(live))  # type: ignore[arg-type]
    text = published_text(readback, AT)
    again = parse_leases(text, "published.json")
    assert (again.format, again.readback_at, again.live) == ("published", AT, tuple(live))
    assert json.loads(text)["source"] == source


def readback(text: str = SEED) -> LeaseReadback:
    return parse_leases(text, "live.json")


def test_decide_compares_the_leases_not_the_time() -> None:
    first = decide(None, readback(), AT, 60, "b:f")
    assert first.reason == "first"
    later = AT + dt.timedelta(minutes=30)
    assert decide(first.text, readback(), later, 60, "b:f").reason is None
    reordered = json.dumps(list(reversed(json.loads(SEED))))
    assert decide(first.text, readback(reordered), later, 60, "b:f").reason is None
    changed = decide(first.text, readback(json.dumps(json.loads(SEED)[:1])), later, 60, "b:f")
    assert (changed.reason, changed.previous_at) == ("changed", AT)
    assert decide(first.text, readback(), AT + dt.timedelta(minutes=60), 60, "b:f").reason == "refresh"
    assert decide("not json", readback(), later, 60, "b:f").reason == "replaced"
    assert decide(SEED, readback(), later, 60, "b:f").reason == "replaced"  # no readback time in it


def test_the_old_formats_still_read_without_a_time() -> None:
    assert readback().readback_at is None
    assert readback().format == "live-array"
    line = json.dumps(
        {"op": "ACQUIRE", "lane": "m", "loop_ts": "t", "lease": {"lane": "m", "loop_ts": "t", "tree": ["a"]}}
    )
    assert parse_leases(line, "j").format == "journal"  # one JSON object with `op`: a journal line


def test_refresh_must_come_before_the_readback_looks_stale() -> None:
    assert LeaseRules().readback_max_age_minutes == 120
    with pytest.raises(ValueError, match="readback_refresh_minutes must be below readback_max_age_minutes"):
        LeaseRules(readback_refresh_minutes=120, readback_max_age_minutes=120)


def config_text(**changes: str) -> str:
    text = (ROOT / "config" / "perfbot.yaml").read_text(encoding="utf-8")
    for old, new in changes.items():
        text = text.replace(old, new)
    return text


def test_the_config_refuses_a_branch_without_a_path() -> None:
    text = config_text(**{"leases: config/leases.json": "leases: 'perfbot/leases:'"})
    line = text.splitlines().index("leases: 'perfbot/leases:'") + 1
    with pytest.raises(InputError) as info:
        parse_model(text, "c.yaml", BotConfig)
    assert str(info.value).startswith(f"c.yaml:{line}:1: leases: 'perfbot/leases:': expected BRANCH:PATH")


def test_a_missing_branch_file_is_an_error_naming_it(settings: Settings) -> None:
    with pytest.raises(InputError, match=r"^perfbot/leases:leases\.json: no such file on branch perfbot/leases"):
        gather.inputs(settings, Observed(), AT, "perfbot/leases:leases.json")


def test_the_offline_state_carries_branch_files(tmp_path: Path, settings: Settings) -> None:
    state = json.loads((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    state["branch_files"] = {"perfbot/leases": {"leases.json": published_text(readback(), AT)}}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    where = BranchFile("perfbot/leases", "leases.json")
    observed = OfflineGitHub.open(path, AT, (where,)).observe()
    inputs = gather.inputs(settings, observed, AT + dt.timedelta(minutes=121), str(where))
    report = plan(inputs).leases
    assert (report.file, report.format, report.live) == (str(where), "published", 2)
    assert report.readback is not None
    assert (report.readback.age_minutes, report.readback.stale) == (121, True)
    fresh = plan(gather.inputs(settings, observed, AT + dt.timedelta(minutes=120), str(where))).leases
    assert fresh.readback is not None
    assert not fresh.readback.stale


def test_a_readback_without_a_time_adds_nothing_to_the_plan_json(settings: Settings) -> None:
    inputs = gather.inputs(settings, Observed(), AT)
    dumped = json.loads(plan(inputs).model_dump_json())
    assert set(dumped["leases"]) == {"file", "format", "live", "stale", "warnings"}
