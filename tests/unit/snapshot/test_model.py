"""The typed snapshot: strict dates, lookups by id, ledger keys and the YAML shape of a snapshot."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from bot.snapshot.model import LedgerEntry, RetiredConstraint, entity_label
from tests.unit.snapshot.values import valid


def retired(on: object) -> RetiredConstraint:
    return RetiredConstraint.model_validate({"id": "r", "name": "n", "retired_on": on, "ref": "#1"})


@pytest.mark.parametrize(
    ("value", "date"),
    [
        ("2026-08-27", dt.date(2026, 8, 27)),
        ("2026-02-28", dt.date(2026, 2, 28)),
        (dt.date(2026, 1, 2), dt.date(2026, 1, 2)),
    ],
)
def test_a_date_is_iso_text_or_a_date(value: object, date: dt.date) -> None:
    assert retired(value).retired_on == date


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-02-30", "'2026-02-30' is not a valid date (YYYY-MM-DD)"),
        # Padded, as upstream refuses it (Go's time.DateOnly): perfbot reads no other date than upstream.
        (" 2026-02-28", "' 2026-02-28' is not a valid date (YYYY-MM-DD)"),
        ("2026-02-28 ", "'2026-02-28 ' is not a valid date (YYYY-MM-DD)"),
        ("2026-02-28\n", "'2026-02-28 ' is not a valid date (YYYY-MM-DD)"),  # echoed on one line
        ("２０２６-02-28", "'２０２６-02-28' is not a valid date (YYYY-MM-DD)"),
        ("2026-8-27", "'2026-8-27' is not a valid date (YYYY-MM-DD)"),
        ("27/08/2026", "'27/08/2026' is not a valid date (YYYY-MM-DD)"),
        (20260827, "20260827 is not a valid date (YYYY-MM-DD)"),
        (dt.datetime(2026, 8, 27, 10, tzinfo=dt.UTC), "expected a date (YYYY-MM-DD), got a date and time"),
    ],
)
def test_anything_else_is_refused_with_what_was_given(value: object, message: str) -> None:
    with pytest.raises(ValidationError) as error:
        retired(value)
    (problem,) = error.value.errors()
    assert problem["msg"] == f"Value error, {message}"


def test_a_ledger_entry_is_keyed_by_comment_and_line() -> None:
    entry = LedgerEntry(comment_id=7, line=3, issue=1, author="a", at="t", effect="e")
    assert entry.key == (7, 3)
    assert LedgerEntry(comment_id=7, issue=1, author="a", at="t", effect="e").key == (7, 1)


def test_lookups_by_id() -> None:
    snapshot = valid()
    packet, constraint = snapshot.packet("w2"), snapshot.constraint("c2")
    assert packet is not None
    assert (packet.id, packet.issue) == ("w2", 12)
    assert constraint is not None
    assert constraint.id == "c2"
    assert snapshot.packet("c2") is None
    assert snapshot.constraint("w2") is None


def test_to_data_gives_every_field_and_the_fields_set_away_from_their_default() -> None:
    full, trimmed = valid().to_data()
    assert full["schema"] == trimmed["schema"] == "fak-native-performance-current/2"
    assert full["work_packets"][0]["state_revision"] == 0
    assert "state_revision" not in trimmed["work_packets"][0]
    assert full["constraints"][0]["evidence"][0]["class"] == "issue"
    assert "commands_settled_through" in full
    assert "commands_settled_through" not in trimmed


# The file as read, records valid or not: entity_label takes a record's id from here.
AS_READ: dict[str, object] = {
    "work_packets": [{"id": "m1"}, {"id": True}, {"id": ""}, "not a record", {"id": 1.5}, {"name": "no id"}],
    "oss_walk": [{"order": 2}],
    "constraints": [{"id": "c" * 70}],
    "programs": {"p1": {"id": "p1"}},
    "levers": "not a list",
}


@pytest.mark.parametrize(
    ("loc", "label"),
    [
        (("work_packets", 0, "name"), ('work packet "m1"', ("name",))),
        (("work_packets", 0, "evidence", 1, "ref"), ('work packet "m1"', ("evidence", 1, "ref"))),
        (("oss_walk", 0, "action"), ("OSS walk step 2", ("action",))),
        (("constraints", 0, "driver"), ('current constraint "' + "c" * 59 + '…"', ("driver",))),
    ],
)
def test_a_problem_inside_a_record_is_labelled_by_the_record_id(loc: tuple[str | int, ...], label: object) -> None:
    assert entity_label(AS_READ, loc) == label


@pytest.mark.parametrize(
    "loc",
    [
        ("work_packets", 0),  # the record itself, not a field of it
        ("work_packets", "0", "name"),  # a position that is not an index
        ("evidence", 0, "ref"),  # a list whose items have no name in messages
        ("schema", 0, "x"),
        ("work_packets", 0, "id"),  # the problem is with the id itself
        ("work_packets", 1, "name"),  # an id that is a boolean
        ("work_packets", 2, "name"),  # an empty id
        ("work_packets", 3, "name"),  # an item that is not a mapping
        ("work_packets", 4, "name"),  # an id that is neither text nor a whole number
        ("work_packets", 5, "name"),  # no id
        ("work_packets", 6, "name"),  # one past the end
        ("work_packets", 99, "name"),
        ("work_packets", -1, "name"),
        ("programs", 0, "name"),  # a mapping where a list belongs
        ("levers", 0, "name"),  # text where a list belongs
        ("ready_waves", 0, "name"),  # a list the file does not have
    ],
)
def test_a_problem_without_a_usable_record_id_has_no_label(loc: tuple[str | int, ...]) -> None:
    assert entity_label(AS_READ, loc) is None


def test_a_file_that_is_not_a_mapping_has_no_labels() -> None:
    assert entity_label(["work_packets"], ("work_packets", 0, "name")) is None
