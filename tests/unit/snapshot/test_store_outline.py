"""`store_outline`: where each key, item and value of a text is, by the exact places both parsers
give; where comments are; and what loading saw of the top level, read again without libyaml."""

from __future__ import annotations

import pytest

from bot.snapshot import store
from bot.snapshot.store import Seen, load_data
from bot.snapshot.store_outline import (
    BlockList,
    BlockMap,
    Entry,
    Item,
    Leaf,
    Piece,
    Section,
    Unreadable,
    comments,
    content_len,
    dash_line,
    piece,
    seen_of,
    source_lines,
    top_level,
)
from tests.support.paths import ROOT

TEXT = """\
- id: a   # eol
  lit: |-
    line1
    # not a comment

  # after lit
  plain: long
    folded words
  q: 'x # y
    y'
  fl: [a, 'b #c']   # c
  bl:
  - x
  -
    y
  none:
- # dash note
  id: b
"""


def outline(text: str, first: int = 0) -> Piece:
    lines = source_lines(text)
    return piece(lines, first, len(lines))


def expected_root() -> BlockList:
    record = BlockMap(
        2,
        (
            Entry("id", (0, 2), (0, 4), Leaf((0, 6), (0, 7), "")),
            Entry("lit", (1, 2), (1, 5), Leaf((1, 7), (3, 19), "|")),
            Entry("plain", (6, 2), (6, 7), Leaf((6, 9), (7, 16), "")),
            Entry("q", (8, 2), (8, 3), Leaf((8, 5), (9, 6), "'")),
            Entry("fl", (10, 2), (10, 4), Leaf((10, 6), (10, 17), "[")),
            Entry(
                "bl",
                (11, 2),
                (11, 4),
                BlockList(2, (Item(12, Leaf((12, 4), (12, 5), "")), Item(13, Leaf((14, 4), (14, 5), "")))),
            ),
            Entry("none", (15, 2), (15, 6), Leaf((15, 7), (15, 7), "")),
        ),
    )
    second = BlockMap(2, (Entry("id", (17, 2), (17, 4), Leaf((17, 6), (17, 7), "")),))
    return BlockList(0, (Item(0, record), Item(16, second)))


@pytest.mark.parametrize("parser", ["libyaml", "ruamel"])
def test_every_key_item_and_value_is_placed_where_it_is(parser: str) -> None:
    # A tab in a comment makes libyaml's reading differ, so ruamel's parser reads the text.
    text = TEXT if parser == "libyaml" else TEXT.replace("# eol", "#\teol")
    found = outline(text)
    assert found.root == expected_root()
    assert found.scalars == [((2, 0), (3, 19)), ((8, 5), (9, 6)), ((10, 10), (10, 16))]
    assert (found.root.start, found.root.end) == ((0, 0), (17, 7))
    record = found.root.items[0].value
    assert isinstance(record, BlockMap)
    assert (record.start, record.end) == ((0, 2), (15, 7))


def test_a_piece_is_placed_in_the_whole_text() -> None:
    found = outline("x: 1\ny: 2\n", first=1)
    assert found.root == BlockMap(0, (Entry("y", (1, 0), (1, 1), Leaf((1, 3), (1, 4), "")),))
    assert outline("# only\n").root is None


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("k: |-\n  a\n\n\nn: 1\n", (1, 3)),  # stripped: its blank lines are not its own
        ("k: |+\n  a\n\n\nn: 1\n", (3, 0)),  # kept: they are
        ("k: >\n  a\n  b\n\nn: 1\n", (2, 3)),
        ("k: |-\n\nn: 1\n", (0, 5)),  # nothing in it: it ends with its header
        ("k: |2-\n    a\nn: 1", (1, 5)),
    ],
)
def test_a_block_scalar_ends_with_its_last_line_of_text(text: str, end: tuple[int, int]) -> None:
    found = outline(text)
    assert isinstance(found.root, BlockMap)
    assert found.root.entries[0].value.end == end


def test_what_a_rewrite_in_place_cannot_place_is_unreadable() -> None:
    for text in ("a: &x 1\nb: *x\n", "? [a]\n: 1\n", "- - a\n  - b\n", "a: [\n", "a: 1\n---\nb: 2\n"):
        with pytest.raises(Unreadable):
            outline(text)


def test_a_dash_is_found_on_its_item_s_line_or_above_it_but_not_below_the_floor() -> None:
    lines = source_lines("k:\n  -\n    # note\n    id: a\n  - id: b\n  x- id: c\n")
    assert dash_line(lines, 2, (3, 4), 0) == 1
    assert dash_line(lines, 2, (4, 4), 3) == 4
    with pytest.raises(Unreadable):
        dash_line(lines, 2, (3, 4), 1)
    with pytest.raises(Unreadable):
        dash_line(lines, 2, (5, 5), 4)
    with pytest.raises(Unreadable):
        dash_line(lines, 2, (4, 2), 3)  # the value starts before the dash's column


def test_comments_are_found_outside_quoted_and_block_scalars() -> None:
    lines = source_lines(TEXT)
    found = outline(TEXT)
    everywhere = comments(lines, (0, 0), (len(lines), 0), found.scalars)
    assert everywhere == ["# eol", "# after lit", "# c", "# dash note"]
    assert comments(lines, (0, 0), (0, 9), found.scalars) == []  # it starts after the stretch
    assert comments(lines, (0, 10), (0, 11), found.scalars) == ["# eol"]
    assert comments(source_lines("a: b#c  # d\n"), (0, 0), (0, 11), []) == ["# d"]
    assert comments(source_lines("#top\n"), (0, 0), (1, 0), []) == ["#top"]


def test_lines_are_split_only_where_ruamel_counts_a_line() -> None:
    assert source_lines("a\nb") == ["a\n", "b"]
    assert source_lines("a\r\nb\rc\n") == ["a\r\n", "b\r", "c\n"]
    assert [content_len(line) for line in ("ab\r\n", "ab\n", "ab", "\n")] == [2, 2, 2, 0]


def loaded_seen(text: str) -> Seen:
    seen: Seen = []
    read, _ = load_data(
        text, max_depth=store.MAX_DEPTH, max_digits=store.MAX_INTEGER_DIGITS, date=store.PlainDate, seen=seen
    )
    assert read
    return seen


@pytest.mark.parametrize(
    "text",
    [
        (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8"),
        "a: 1\nlist:\n- x\n- {y: 1}\n-\n  z: 2\nflow: [1, 2]\nmap:\n  k: v\nlast:\n  - - a\n",
        " a: 1\n b:\n   - k: v\n     m: [1]\n",
    ],
    ids=["seed", "every-kind", "indented"],
)
def test_ruamel_s_parser_sees_the_top_level_as_loading_did(text: str) -> None:
    assert seen_of(text) == loaded_seen(text)


def test_no_top_level_is_seen_in_what_is_not_one_block_mapping() -> None:
    for text in ("", "[a]\n", "{a: 1}\n", "%YAML 1.2\n---\na: 1\n", "a: [\n", "? [k]\n: 1\n"):
        assert seen_of(text) is None, text


def test_sections_run_to_the_next_key_and_name_their_records() -> None:
    text = "a: 1\nlist:\n  - x: 1\n  -\n    x: 2\nother:\n  - 1\nmixed:\n  - {x: 1}\n"
    lines = source_lines(text)
    sections = top_level(lines, loaded_seen(text))
    assert [(s.key, s.line, s.col, s.end, s.dash_col) for s in sections] == [
        ("a", 0, 0, 1, -1),
        ("list", 1, 0, 5, 2),
        ("other", 5, 0, 7, 2),
        ("mixed", 7, 0, 9, 2),
    ]
    assert [s.items for s in sections] == [None, ((2, 4), (4, 4)), None, None]
    assert [s.records(lines) for s in sections] == [None, [2, 3], None, None]
    assert Section("k", 0, 0, 1, -1, ()).records(lines) == []
