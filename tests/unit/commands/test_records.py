"""Decision records: versioned, and the unversioned ones real repositories carry still decode."""

from __future__ import annotations

import json

import pytest

from bot.commands.records import FORMAT, Record, lapsed_key, lapsed_said, recorded_decisions, records_in_pull
from bot.github.markers import header, marker
from bot.github.observed import Comment
from tests.unit.commands.values import comment

ALICE = comment(101, "alice", "/perf help")


def test_a_record_names_its_format_and_round_trips() -> None:
    record = Record(ALICE, 2, "accepted", "/perf help")
    data = json.loads(record.encode())
    assert data["f"] == FORMAT == 2
    assert Record.decode(record.encode()) == Record(
        ALICE.model_copy(update={"body": "/perf help"}), 2, "accepted", "/perf help"
    )


def test_a_refused_record_keeps_no_text() -> None:
    decoded = Record.decode(Record(ALICE, 1, "refused", "/perf help").encode())
    assert decoded is not None
    assert (decoded.verdict, decoded.text) == ("refused", "")


def test_an_unversioned_record_decodes_as_format_1() -> None:
    old = '{"c":101,"i":8325,"a":"alice","at":"2026-08-27T10:41:00+00:00","l":3,"v":"accepted","t":"/perf help"}'
    decoded = Record.decode(old)
    assert decoded is not None
    assert (decoded.key(), decoded.comment.user, decoded.verdict, decoded.text) == (
        (101, 3),
        "alice",
        "accepted",
        "/perf help",
    )


@pytest.mark.parametrize(
    "key",
    [
        '{"f":3,"c":1,"i":1,"a":"x","at":"2026-08-27T10:00:00+00:00","l":1,"v":"accepted","t":""}',  # a later format
        '{"c":1,"i":1,"a":"x","at":"2026-08-27T10:00:00+00:00","l":1,"v":"maybe","t":""}',
        '{"c":1,"i":1,"a":"x","at":"2026-08-27T10:00:00+00:00","l":"1","v":"accepted","t":""}',
        '{"c":1,"i":1,"a":"x","at":"2026-08-27T10:00:00","l":1,"v":"accepted","t":""}',  # no time zone
        '{"c":1}',
        "[1, 2]",
        "not json",
    ],
)
def test_records_this_bot_cannot_read_are_skipped(key: str) -> None:
    assert Record.decode(key) is None


def test_the_first_reply_to_a_comment_counts_and_records_must_be_about_it() -> None:
    first = comment(
        500,
        "perfbot[bot]",
        header(("command-reply", "101"), ("decision", Record(ALICE, 1, "accepted", "/perf help").encode())),
    )
    stray = Record(comment(102, "bob", ""), 1, "accepted", "/perf help")
    second = comment(501, "perfbot[bot]", header(("command-reply", "101"), ("decision", stray.encode())))
    found = recorded_decisions([second, first])
    assert list(found) == [101]
    assert [r.key() for r in found[101]] == [(101, 1)]


def test_lapsed_notices_are_found_by_their_key() -> None:
    notice = comment(600, "perfbot[bot]", header(("lapsed", lapsed_key((101, 2)))) + "\ntext")
    assert lapsed_said([notice]) == {"101:2"}


def test_a_record_is_compact_json_that_keeps_non_ascii_text() -> None:
    record = Record(ALICE, 2, "accepted", "/perf block m1 café")
    assert record.encode() == (
        '{"f":2,"c":101,"i":8325,"a":"alice","at":"2026-08-27T10:41:00+00:00","l":2,"v":"accepted",'
        '"t":"/perf block m1 café"}'
    )


def reply(cid: int, *markers: tuple[str, str]) -> Comment:
    return comment(cid, "perfbot[bot]", header(*markers))


def test_records_are_sorted_by_line_and_only_readable_ones_about_the_comment_count() -> None:
    other = Record(comment(102, "bob", ""), 1, "accepted", "/perf help")
    found = recorded_decisions(
        [
            reply(
                500,
                ("command-reply", "101"),
                ("decision", Record(ALICE, 3, "refused", "").encode()),
                ("decision", "not a record"),
                ("decision", other.encode()),
                ("decision", Record(ALICE, 1, "accepted", "/perf help").encode()),
            )
        ]
    )
    assert [(r.line, r.verdict) for r in found[101]] == [(1, "accepted"), (3, "refused")]


def test_a_reply_names_exactly_one_ascii_comment_id() -> None:
    decision = ("decision", Record(ALICE, 1, "accepted", "/perf help").encode())
    assert recorded_decisions([reply(500, ("command-reply", "١٠١"), decision)]) == {}
    assert recorded_decisions([reply(500, ("command-reply", "101"), ("command-reply", "102"), decision)]) == {}
    assert list(recorded_decisions([reply(500, ("command-reply", "101"), ("packet-ready", "7"), decision)])) == [101]


def test_a_reply_that_does_not_count_does_not_stop_the_later_ones() -> None:
    decision = ("decision", Record(ALICE, 1, "accepted", "/perf help").encode())
    found = recorded_decisions([reply(500, ("packet-ready", "7")), reply(501, ("command-reply", "101"), decision)])
    assert [r.key() for r in found[101]] == [(101, 1)]


def test_records_in_a_pr_body_are_its_headers_accepted_ones_by_comment_then_line() -> None:
    bob = comment(205, "bob", "/perf help")
    kept = [
        Record(bob, 3, "accepted", "/perf c"),
        Record(ALICE, 2, "accepted", "/perf b"),
        Record(ALICE, 1, "accepted", "/perf a"),
    ]
    refused = Record(ALICE, 4, "refused", "")
    again = Record(ALICE, 2, "accepted", "/perf b again")  # a second record of one line: one counts
    body = (
        "\n".join(r.marker() for r in (*kept, refused, again)) + "\n<!-- perfbot:decision {bad -->\nperfbot reconciled"
    )
    found = records_in_pull(body)
    assert list(found) == [101, 205]
    assert [r.line for r in found[101]] == [1, 2]
    assert found[101][0].text == "/perf a"
    assert found[101][1].text in {"/perf b", "/perf b again"}
    assert records_in_pull(body) == found  # the same one every time
    assert [(r.comment.user, r.line, r.verdict) for r in found[205]] == [("bob", 3, "accepted")]
    assert records_in_pull("perfbot reconciled\n" + kept[0].marker()) == {}  # past the header: quoted text


def test_a_records_marker_is_one_header_line_that_decodes_back() -> None:
    record = Record(ALICE, 2, "accepted", "/perf block x -->\n<!--")
    line = record.marker()
    assert "\n" not in line
    assert line.startswith("<!-- perfbot:decision ")
    assert records_in_pull(line)[101][0].text == record.text


def test_only_decision_markers_hold_records() -> None:
    record = Record(ALICE, 1, "accepted", "/perf help")
    assert records_in_pull(marker("lapsed", record.encode())) == {}
    assert list(records_in_pull(marker("decision", record.encode()))) == [101]
