"""The typed snapshot: strict dates, lookups by id, ledger keys and the YAML shape of a snapshot."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from bot.snapshot.model import LedgerEntry, RetiredConstraint
from tests.unit.snapshot.values import valid


def retired(on: object) -> RetiredConstraint:
    return RetiredConstraint.model_validate({"id": "r", "name": "n", "retired_on": on, "ref": "#1"})


@pytest.mark.parametrize(
    ("value", "date"),
    [
        ("2026-08-27", dt.date(2026, 8, 27)),
        (" 2026-02-28 ", dt.date(2026, 2, 28)),
        (dt.date(2026, 1, 2), dt.date(2026, 1, 2)),
    ],
)
def test_a_date_is_iso_text_or_a_date(value: object, date: dt.date) -> None:
    assert retired(value).retired_on == date


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-02-30", "'2026-02-30' is not a valid date (YYYY-MM-DD)"),
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
