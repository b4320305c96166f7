"""How a file is written, learned from its text (`store_style.learn`), and new text written so
(`store_style.Writer`): each fact by the text that shows it, each writing by its exact lines."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from bot.snapshot.store import PlainDate, dump_tree
from bot.snapshot.store_outline import piece, source_lines
from bot.snapshot.store_style import Style, Writer, _records_text, learn, line_end
from tests.support.property_budget import examples


def learned(text: str, parent_col: int = 0, first: int = 1, base: Style | None = None) -> Style:
    """The style of `text`'s lines from `first` on (a record, after its list's key line)."""
    lines = source_lines(text)
    return learn(piece(lines, first, len(lines)), lines, parent_col, base or Style(line_end="?"))


def test_the_store_s_own_layout_shows_its_indents_flow_lists_and_quote() -> None:
    text = "items:\n  - id: a\n    name: 'A b'\n    ids: [x, y]\n    note: plain\n"
    assert learned(text) == Style(offset=2, sequence=4, flow_lists=True, quote="'", quote_all=False, line_end="?")


def test_lists_at_their_key_s_column_with_every_string_double_quoted() -> None:
    text = 'items:\n- id: "a"\n  ids:\n  - "x"\n  - y\n  name: "A"\n  n: 5\n'
    assert learned(text) == Style(offset=0, sequence=2, flow_lists=False, quote='"', quote_all=True, line_end="?")


def test_a_folded_value_shows_the_width_and_the_indent_of_its_further_lines() -> None:
    text = "items:\n    - id: a\n      note: one two three\n          four five six seven\n          eight\n"
    style = learned(text)
    assert (style.offset, style.sequence, style.mapping) == (4, 6, 4)
    # "      note: one two three" (25) less its last word and the space before it: 19; the next
    # full line (29) less "seven": 23, the widest that fit.
    assert style.width == 23


def test_a_section_read_whole_takes_the_indents_of_its_list_from_its_key() -> None:
    text = "top:\n   - a\n   - b\n"
    style = learned(text, first=0)
    assert (style.offset, style.sequence, style.flow_lists) == (3, 5, False)


def test_what_a_piece_does_not_show_is_kept_from_the_base() -> None:
    base = Style(
        mapping=3, sequence=3, offset=1, width=70, flow_lists=False, quote='"', quote_all=True, line_end="\r\n"
    )
    assert learned("k: 5\n", first=0, base=base) == base


def test_more_single_quotes_than_double_keep_single_and_plain_strings_win() -> None:
    text = "items:\n  - a: 'x'\n    b: 'y'\n    c: \"z\"\n    d: p\n    e: q\n    f: r\n"
    style = learned(text)
    assert (style.quote, style.quote_all) == ("'", False)


def test_line_end_is_the_first_line_s() -> None:
    texts = ("a\r\nb\n", "a\nb\r\n", "", "\nx", "a", "\r\nx", "\nx\r")
    assert [line_end(t) for t in texts] == ["\r\n", "\n", "\n", "\n", "\n", "\r\n", "\n"]


def test_a_piece_of_only_comments_shows_nothing() -> None:
    assert learned("# only a note\n", first=0) == Style(line_end="?")


def test_a_value_folded_just_past_its_key_shows_an_indent_of_one_and_no_width() -> None:
    style = learned("k:\n a\n b\n", first=0)
    assert (style.mapping, style.width) == (1, 4096)  # " a" less its word fits in 0 columns: no width


def test_a_folded_line_with_a_space_left_at_its_end_is_measured_without_it() -> None:
    text = "items:\n  - note: one two three \n      four\n"
    assert learned(text).width == len("  - note: one two")


def test_a_string_that_cannot_be_plain_gets_the_file_s_quote() -> None:
    writer = Writer()
    assert writer.entry_lines("k", "a: b", 0, Style()) == ["k: 'a: b'\n"]
    assert writer.entry_lines("k", "a: b", 0, Style(quote='"')) == ['k: "a: b"\n']
    assert writer.entry_lines("k", "it's: x", 0, Style()) == ['k: "it\'s: x"\n']


def test_a_file_that_quotes_every_string_gets_its_new_strings_quoted_but_not_its_numbers() -> None:
    writer = Writer()
    assert writer.entry_lines("k", "plain", 0, Style(quote_all=True)) == ["k: 'plain'\n"]
    assert writer.entry_lines("k", "plain", 0, Style(quote='"', quote_all=True)) == ['k: "plain"\n']
    assert writer.entry_lines("k", 5, 0, Style(quote='"', quote_all=True)) == ["k: 5\n"]
    assert writer.entry_lines("k", "", 0, Style(quote_all=True)) == ["k: ''\n"]


def test_a_value_that_carries_its_style_keeps_it() -> None:
    assert Writer().entry_lines("k", SingleQuotedScalarString("x"), 0, Style(quote='"')) == ["k: 'x'\n"]


def test_a_long_value_is_folded_at_the_width_counted_from_its_column() -> None:
    # At column 0 ruamel folds past column 20; at column 4, past 16, and the further lines are
    # indented from the key's column by the mapping indent.
    at_0 = Writer().entry_lines("note", "one two three four five six", 0, Style(width=20, mapping=3))
    assert at_0 == ["note: one two three \n", "   four five six\n"]
    at_4 = Writer().entry_lines("note", "one two three four five six", 4, Style(width=20, mapping=3))
    assert at_4 == ["note: one two \n", "       three four \n", "       five six\n"]


def test_the_same_value_in_another_type_is_written_anew() -> None:
    writer = Writer()
    assert writer.entry_lines("k", 5, 2, Style()) == ["k: 5\n"]
    assert writer.entry_lines("k", 5, 2, Style()) == ["k: 5\n"]  # written once, given twice
    assert writer.entry_lines("k", "5", 2, Style()) == ["k: '5'\n"]
    assert writer.entry_lines("k", 1, 2, Style()) == ["k: 1\n"]
    assert writer.entry_lines("k", True, 2, Style()) == ["k: true\n"]
    flow, block, other = CommentedSeq(["a"]), CommentedSeq(["a"]), CommentedSeq(["b"])
    flow.fa.set_flow_style()
    other.fa.set_flow_style()
    assert writer.entry_lines("k", flow, 2, Style()) == ["k: [a]\n"]
    assert writer.entry_lines("k", other, 2, Style()) == ["k: [b]\n"]
    assert writer.entry_lines("k", block, 2, Style()) == ["k:\n", "    - a\n"]


def test_lists_of_records_are_each_written() -> None:
    writer = Writer()
    first, second = CommentedMap(), CommentedMap()
    first["id"], second["id"] = "a", "b"
    assert writer.entry_lines("k", CommentedSeq([first]), 0, Style()) == ["k:\n", "  - id: a\n"]
    assert writer.entry_lines("k", CommentedSeq([second]), 0, Style()) == ["k:\n", "  - id: b\n"]
    assert writer.entry_lines("k", first, 0, Style()) == ["k:\n", "  id: a\n"]
    assert writer.entry_lines("k", second, 0, Style()) == ["k:\n", "  id: b\n"]


def test_a_list_item_is_written_at_its_list_s_dash_and_content_columns() -> None:
    record = CommentedMap()
    record["id"] = "a"
    record["n"] = 1
    writer = Writer()
    assert writer.item_lines(record, 0, 2, 0, Style()) == ["- id: a\n", "  n: 1\n"]
    assert writer.item_lines(record, 2, 4, 0, Style()) == ["  - id: a\n", "    n: 1\n"]
    assert writer.item_lines(record, 6, 8, 4, Style()) == ["      - id: a\n", "        n: 1\n"]
    assert writer.item_lines(record, 1, 5, 0, Style()) == [" -   id: a\n", "     n: 1\n"]


def test_a_long_value_in_a_nested_item_folds_from_its_place() -> None:
    record = CommentedMap()
    record["note"] = "one two three four five six"
    expected = ["      - note: one two \n", "          three four \n", "          five six\n"]
    assert Writer().item_lines(record, 6, 8, 4, Style(width=24)) == expected
    assert Writer().item_lines(record, 6, 8, 0, Style(width=24)) == expected


def test_a_yaml_for_a_narrow_place_keeps_a_width_ruamel_honours() -> None:
    yaml = Writer().yaml(Style(width=10), 8)
    assert (yaml.width, yaml.sequence_dash_offset) == (9, 2)
    assert Writer().yaml(Style()).width == 4096
    tight = Writer().yaml(Style(), 0, offset=3, sequence=2)
    assert (tight.map_indent, tight.sequence_indent, tight.sequence_dash_offset) == (2, 5, 3)


def test_only_lines_before_a_value_s_last_show_the_width() -> None:
    text = "items:\n  - note: one two\n      three four five six seven\n"
    assert learned(text).width == len("  - note: one")


def test_a_folded_line_ending_in_a_one_letter_word_is_measured_to_it() -> None:
    text = "items:\n  - note: one two X\n      three\n"
    assert learned(text).width == len("  - note: one two")


def test_the_first_folded_value_shows_the_indent_of_further_lines() -> None:
    text = "items:\n  - a: one two\n        three\n    b: four five\n      six\n"
    assert learned(text).mapping == 4


def test_a_list_held_at_a_column_is_measured_from_it() -> None:
    style = learned("  items:\n     - id: a\n", parent_col=2)
    assert (style.offset, style.sequence) == (3, 5)


def test_a_list_of_flow_collections_says_nothing_of_lists_of_ids() -> None:
    assert learned("items:\n  - {id: a}\n  - {id: b}\n", first=0).flow_lists is True
    base = Style(flow_lists=False)
    assert learned("items:\n  - {id: a}\n  - {id: b}\n", first=0, base=base).flow_lists is False
    assert learned("items:\n  - [a]\n", first=0, base=base).flow_lists is True  # a list of flow lists


def test_a_list_of_long_words_folded_as_items_is_measured_from_its_key() -> None:
    style = learned("k:\n  - one two\n    three\n", first=0)
    assert (style.offset, style.mapping, style.width) == (2, 4, len("  - one"))


def test_a_flow_list_of_ids_is_learned_over_a_base_of_block_lists() -> None:
    base = Style(flow_lists=False)
    assert learned("items:\n  - ids: [a]\n", base=base).flow_lists is True
    assert learned("items:\n  - ids:\n      - a\n    more: [b]\n", base=base).flow_lists is False


def test_one_quoted_string_beside_one_plain_does_not_make_a_file_quote_every_string() -> None:
    assert learned("items:\n  - a: 'x'\n    b: y\n").quote_all is False
    assert learned("items:\n  - a: 'x'\n    b: 'y'\n    c: z\n").quote_all is True


def test_as_many_double_quotes_as_single_keep_the_single() -> None:
    assert learned("items:\n  - a: 'x'\n    b: \"y\"\n").quote == "'"


def _records(rows: list[dict[str, Any]]) -> CommentedSeq:
    seq = CommentedSeq()
    for row in rows:
        record = CommentedMap()
        record.update(row)
        seq.append(record)
    return seq


def _dumped(key: str, value: Any, col: int, style: Style) -> list[str]:
    """ruamel's own dump of `key: value` at column `col`, each record written in full."""
    holder = CommentedMap()
    holder[key] = value
    lines = source_lines(dump_tree(holder, Writer().yaml(style, col)))
    return lines[:1] + [" " * col + line for line in lines[1:]]


_TEXTS = st.text(st.sampled_from(list("ab -:#'\"\n\t\\|>[]{},&*!?%@`\u2028\x85é")), max_size=30)
_VALUES = st.one_of(
    _TEXTS,
    st.sampled_from(["", "yes", "null", "1.5", "0x1F", "2026-08-27", "2026-08-27T09:00:00Z", "~", "- a", "a: b"]),
    st.integers(-(10**20), 10**20),
    st.booleans(),
    st.none(),
    st.sampled_from([PlainDate("2026-08-27"), PlainDate("2026-09-04")]),
    _TEXTS.map(DoubleQuotedScalarString),
    _TEXTS.map(SingleQuotedScalarString),
)
_ROWS = st.lists(st.dictionaries(st.sampled_from(["id", "n", "note", "at"]), _VALUES, min_size=1), min_size=2)
_STYLES = st.builds(
    lambda offset, extra, mapping, width, quote, quote_all: Style(
        mapping=mapping, sequence=offset + extra, offset=offset, width=width, quote=quote, quote_all=quote_all
    ),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(1, 4),
    st.sampled_from([12, 20, 40, 4096]),
    st.sampled_from(["'", '"']),
    st.booleans(),
)


@settings(max_examples=examples(1000), deadline=None)
@given(rows=_ROWS, style=_STYLES, col=st.integers(0, 6))
def test_a_list_of_records_of_scalars_is_written_as_ruamel_writes_it_whole(
    rows: list[dict[str, Any]], style: Style, col: int
) -> None:
    # Each distinct key and value is written once and the records put together from those texts.
    assert Writer().entry_lines("ledger", _records(rows), col, style) == _dumped("ledger", _records(rows), col, style)


# Ints and words of a few lengths, each side of the narrow widths' limits, so that many share a
# length; words YAML reads as other types among them (`yes` is a string in YAML 1.2, `True` is not).
_INTS = st.one_of(st.integers(-99, 99), st.integers(10**7, 10**8), st.integers(-(10**8), -(10**7)))
_WORDS = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,2}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9]{7,9}", fullmatch=True),
    st.sampled_from(["True", "false", "NULL", "null", "yes", "No", "on", "y", "inf", "nan", "e1"]),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    rows=st.lists(
        st.dictionaries(st.sampled_from(["id", "issue_number", "author"]), st.one_of(_INTS, _WORDS), min_size=1),
        min_size=2,
    ),
    style=_STYLES,
    col=st.integers(0, 6),
)
def test_ints_and_words_of_one_key_and_length_are_written_from_one_dump_as_ruamel_writes_each(
    rows: list[dict[str, Any]], style: Style, col: int
) -> None:
    # Where one starts (the key's line, or the next when it is too long for it) depends on its length.
    assert Writer().entry_lines("ledger", _records(rows), col, style) == _dumped("ledger", _records(rows), col, style)


@pytest.mark.parametrize("quote_all", [False, True])
def test_a_word_yaml_reads_as_another_type_is_written_as_ruamel_writes_it_not_as_a_word_of_its_length(
    quote_all: bool,
) -> None:
    rows = [{"author": word} for word in ("True", "abcd", "null", "wxyz", "NULL", "No", "ok", "yes", "abc", "inf")]
    style = Style(quote_all=quote_all)
    assert Writer().entry_lines("ledger", _records(rows), 2, style) == _dumped("ledger", _records(rows), 2, style)


def test_a_ledger_s_records_are_put_together_from_their_distinct_values() -> None:
    rows = [
        {"comment_id": n, "issue": 8324 + n % 3, "author": f"writer{n}", "at": "2026-08-27T09:00:00Z", "effect": "e: f"}
        for n in range(40)
    ]
    style = Style(width=30)
    written = _records_text("ledger", _records(rows), Writer().yaml(style, 2), style)
    assert written is not None  # not left to the whole dump
    assert written.splitlines(keepends=True)[:3] == ["ledger:\n", "  - comment_id: 0\n", "    issue: 8324\n"]
    assert source_lines(written) == _dumped("ledger", _records(rows), 0, Style(width=28))
