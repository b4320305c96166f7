"""Upstream's current snapshot as perfbot's (`bot.upstream.current`): Go's `null` lists read as
empty at every depth, keys upstream does not have refused where they are, the schema first."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.snapshot.model import SCHEMA_ID, SCHEMA_ONE, Collision, Snapshot
from bot.upstream.current import empty_lists, read_current
from tests.unit.snapshot.values import DATA
from tests.unit.upstream.reading import refusals, through

FILE = "current.json"


def upstream(**changes: Any) -> dict[str, Any]:
    """The small valid snapshot as upstream's JSON has it: no levers, ledger or other perfbot key."""
    data = copy.deepcopy(DATA)
    for key in ("levers", "retired_constraints", "ledger", "commands_settled_through"):
        data.pop(key, None)
    data.update(changes)
    return data


def read(data: dict[str, Any]) -> Snapshot:
    return through(read_current, data, FILE)


def refused(data: dict[str, Any]) -> list[str]:
    return refusals(read_current, data, FILE)


def key_line(data: dict[str, Any], key: str) -> int:
    return line_of(data, f'"{key}":')


def line_of(data: dict[str, Any], needle: str) -> int:
    lines = json.dumps(data, indent=2).splitlines()
    (found,) = [i for i, line in enumerate(lines, 1) if needle in line]
    return found


def test_upstreams_snapshot_reads_as_the_model_has_it() -> None:
    data = upstream()
    assert read(data) == Snapshot.model_validate(data)


def test_null_lists_read_as_empty_at_every_depth() -> None:
    data = upstream(oss_routes=None, programs=None)
    data["collisions"][1]["members"] = None
    data["constraints"][0]["ready_lever_ids"] = None
    data["work_packets"][2]["blocked_by_ids"] = None
    snapshot = read(data)
    assert (snapshot.oss_routes, snapshot.programs) == ((), ())
    assert snapshot.collisions[1] == Collision(id="lease", kind="live-lease", members=(), reason="shared paths")
    assert snapshot.constraints[0].ready_lever_ids == ()
    assert snapshot.work_packets[2].blocked_by_ids == ()


def test_only_lists_take_null() -> None:
    assert empty_lists({"as_of": None, "constraints": None, "other": None}, Snapshot) == {
        "as_of": None,
        "constraints": [],
        "other": None,
    }
    assert empty_lists({"constraints": [None, {"evidence": None}]}, Snapshot) == {
        "constraints": [None, {"evidence": []}]
    }
    assert empty_lists({"work_packets": "text"}, Snapshot) == {"work_packets": "text"}
    assert empty_lists(["not", "an", "object"], Snapshot) == ["not", "an", "object"]
    data = upstream(definition=None)
    assert refused(data) == [f"{FILE}:{key_line(data, 'definition')}:3: definition: Input should be a valid string"]


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ("fak-native-performance-current/3", "'fak-native-performance-current/3' is not"),
        ("fak-native-performance-graph/v2", "'fak-native-performance-graph/v2' is not"),
        (2, "2 is not"),
        (None, "a value of another type is not"),
    ],
)
def test_a_wrong_schema_is_the_one_problem_named(schema: object, why: str) -> None:
    data = upstream(schema=schema, colour="red")
    assert refused(data) == [f"{FILE}:2:3: schema: {why} upstream's current snapshot ({SCHEMA_ID} or {SCHEMA_ONE})"]


def test_a_missing_schema_is_named() -> None:
    data = upstream()
    del data["schema"]
    assert refused(data) == [
        f"{FILE}:1:1: schema: required key is missing upstream's current snapshot ({SCHEMA_ID} or {SCHEMA_ONE})"
    ]


def test_the_keys_perfbot_adds_are_not_upstreams() -> None:
    data = upstream(levers=[], ledger=[], commands_settled_through=3)
    data["constraints"][1]["review_issue"] = 4
    data["work_packets"][0]["state_revision"] = 1
    data["work_packets"][2]["previous_state"] = "ready"
    schema = SCHEMA_ID
    assert refused(data) == [
        f"{FILE}:{key_line(data, 'levers')}:3: levers: unknown key (not a field of {schema})",
        f"{FILE}:{key_line(data, 'ledger')}:3: ledger: unknown key (not a field of {schema})",
        f"{FILE}:{line_of(data, 'commands_settled')}:3: commands_settled_through: unknown key (not a field of {schema})",
        f'{FILE}:{line_of(data, "review_issue")}:7: current constraint "c2": review_issue: unknown key '
        f"(not a field of {schema})",
        f'{FILE}:{line_of(data, "state_revision")}:7: work packet "w1": state_revision: unknown key '
        f"(not a field of {schema})",
        f'{FILE}:{line_of(data, "previous_state")}:7: work packet "w3": previous_state: unknown key '
        f"(not a field of {schema})",
    ]


def test_a_record_without_an_id_is_named_by_its_place() -> None:
    data = upstream()
    data["constraints"][0] = {"review_issue": 4}
    assert refused(data) == [
        f"{FILE}:{line_of(data, 'review_issue')}:7: constraints.0.review_issue: unknown key (not a field of {SCHEMA_ID})"
    ]


def test_schema_one_has_no_programs_or_packets() -> None:
    data = upstream(schema=SCHEMA_ONE)
    assert refused(data) == [
        f"{FILE}:{key_line(data, 'programs')}:3: programs: unknown key (not a field of {SCHEMA_ONE})",
        f"{FILE}:{key_line(data, 'work_packets')}:3: work_packets: unknown key (not a field of {SCHEMA_ONE})",
    ]
    del data["programs"], data["work_packets"]
    data["collisions"] = data["collisions"][:1]
    assert read(data).schema_ == SCHEMA_ONE


def test_any_other_unknown_key_is_refused_where_it_is_by_the_model() -> None:
    data = upstream(colour="crimson")
    data["work_packets"][1]["colour"] = "cobalt"
    data["oss_routes"][0]["stars"] = 5
    assert refused(data) == [
        f'{FILE}:{line_of(data, "cobalt")}:7: work packet "w2": colour: unknown key',
        f'{FILE}:{line_of(data, "stars")}:7: OSS route "org/repo": stars: unknown key',
        f"{FILE}:{line_of(data, 'crimson')}:3: colour: unknown key",
    ]


@pytest.mark.parametrize("as_of", [" 2026-08-27", "2026-08-27 ", "2026-8-27"])
def test_a_padded_or_short_date_is_refused_as_upstream_refuses_it(as_of: str) -> None:
    data = upstream(as_of=as_of)
    assert refused(data) == [f"{FILE}:3:3: as_of: {as_of!r} is not a valid date (YYYY-MM-DD)"]


def test_a_record_that_is_not_an_object_is_left_to_the_model() -> None:
    data = upstream()
    data["constraints"][1] = ["review_issue"]
    data["work_packets"] = {"state_revision": 1}
    assert refused(data) == [
        f"{FILE}:{line_of(data, 'review_issue') - 1}:5: constraints.1: Input should be a valid dictionary "  # at its [
        "or instance of Constraint",
        f"{FILE}:{key_line(data, 'work_packets')}:3: work_packets: Input should be a valid tuple",
    ]
