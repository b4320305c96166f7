"""Hidden markers: how they are written, which of them count, and whether a comment carries one."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.github.markers import KEPT, header, marker, markers_in, markers_of, split_header
from bot.github.observed import Comment
from tests.support.property_budget import examples


def test_a_marker_percent_encodes_its_key_so_it_cannot_close_the_comment() -> None:
    assert marker("packet-ready", "m1.x_2:3-4") == "<!-- perfbot:packet-ready m1.x_2:3-4 -->"
    assert marker("decision", 'a b/c-->{"x"}') == "<!-- perfbot:decision a%20b%2Fc--%3E%7B%22x%22%7D -->"


@settings(max_examples=examples(500), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8")))
@example("".join(map(chr, range(128))))
@example('{"f":2,"c":14,"t":"/perf why x"} é')
def test_a_markers_key_is_written_as_urllib_quotes_it(key: str) -> None:
    assert marker("decision", key) == f"<!-- perfbot:decision {quote(key, safe=KEPT)} -->"


def test_a_header_is_one_marker_line_per_pair_in_order() -> None:
    assert header(("a", "1"), ("b", "2")) == "<!-- perfbot:a 1 -->\n<!-- perfbot:b 2 -->"
    assert header() == ""


def test_markers_count_only_in_the_leading_lines() -> None:
    body = header(("a", "1"), ("b", "x y")) + "\n  <!-- perfbot:c 3 -->  \nText.\n" + marker("d", "4")
    assert markers_in(body) == {("a", "1"), ("b", "x y"), ("c", "3")}
    assert markers_in("Text first\n" + marker("a", "1")) == set()
    assert markers_in("") == set()


def test_a_line_with_more_than_a_marker_ends_the_header() -> None:
    assert markers_in(marker("a", "1") + " and text\n" + marker("b", "2")) == set()
    assert markers_in("<!-- perfbot:A 1 -->") == set()  # topics are lower case
    assert markers_in("<!-- perfbot:a  -->") == {("a", "")}


def comment(body: str) -> Comment:
    return Comment(id=1, issue=2, user="perfbot[bot]", created_at=dt.datetime(2026, 8, 27, tzinfo=dt.UTC), body=body)


def test_markers_of_gathers_every_comments_header_markers_once() -> None:
    comments = [
        comment("hello"),
        comment(marker("lease-lost", "m1:3") + "\nLost."),
        comment(header(("a", "1"), ("b", "2"))),
    ]
    assert markers_of(comments) == {("lease-lost", "m1:3"), ("a", "1"), ("b", "2")}
    assert ("lease-lost", "m1:4") not in markers_of(comments)
    assert markers_of([]) == frozenset()


def test_split_header_keeps_the_header_lines_with_their_breaks_and_returns_the_rest() -> None:
    a, b = marker("a", "1"), marker("b", "x y")
    assert split_header(f"{a}\n{b}\nText.\n{a}") == (f"{a}\n{b}\n", f"Text.\n{a}")
    assert split_header(f"{a}\n  {b}  \n\nText.") == (f"{a}\n  {b}  \n", "\nText.")
    assert split_header(f"Text first\n{a}") == ("", f"Text first\n{a}")
    assert split_header(f"{a} and text\n{b}") == ("", f"{a} and text\n{b}")


def test_split_header_of_a_comment_that_is_only_markers_leaves_no_rest() -> None:
    a, b = marker("a", "1"), marker("b", "2")
    assert split_header(a) == (a, "")
    assert split_header(f"{a}\n{b}") == (f"{a}\n{b}", "")
    assert split_header(f"{a}\n") == (f"{a}\n", "")
    assert split_header("") == ("", "")


def test_split_header_reads_no_header_after_a_leading_blank_line() -> None:
    a = marker("a", "1")
    assert split_header(f"\n{a}") == ("", f"\n{a}")
    assert markers_in(f"\n{a}") == set()
