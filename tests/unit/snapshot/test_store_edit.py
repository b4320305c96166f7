"""`store_edit` on its own: the edits that turn a piece of YAML into a new value, on plain data
and small texts (the shapes a snapshot may never take itself, too), each by its exact result;
how lists' items are matched; and the checks that keep a stretch only when it reads back right."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bot.snapshot.model import EvidenceRef, Snapshot
from bot.snapshot.store_edit import (
    Declined,
    Edit,
    EditContext,
    Unit,
    aligned,
    applied,
    fields_read_back,
    joined,
    map_edits,
    matched,
    records_read_back,
    restyled,
    style_of,
)
from bot.snapshot.store_outline import BlockMap, piece, source_lines
from bot.snapshot.store_style import Style, Writer


def edited(text: str, old: dict[str, Any], new: dict[str, Any], sparse: dict[str, Any] | None = None) -> str:
    """`text` (a block mapping that reads as `old`) edited to hold `new`, in the store's own style."""
    lines = source_lines(text)
    found = piece(lines, 0, len(lines))
    assert isinstance(found.root, BlockMap)
    ctx = EditContext(lines, found.scalars, Style(), Writer())
    return applied(lines, 0, len(lines), map_edits(ctx, found.root, old, new, new if sparse is None else sparse), "\n")


def test_a_mapping_inside_a_mapping_is_edited_key_by_key() -> None:
    text = "outer:\n  a: 1  # one\n  b: 2\nnext: x\n"
    old = {"outer": {"a": 1, "b": 2}, "next": "x"}
    assert edited(text, old, {"outer": {"a": 1, "b": 3}, "next": "x"}) == text.replace("b: 2", "b: 3")


def test_a_record_of_a_list_without_identity_is_edited_in_place() -> None:
    text = "evidence:\n  - class: a  # first\n    ref: r\n  - class: b\n    ref: s\n"
    old = {"evidence": [{"class": "a", "ref": "r"}, {"class": "b", "ref": "s"}]}
    new = {"evidence": [{"class": "a", "ref": "r2"}, {"class": "b", "ref": "s"}]}
    assert edited(text, old, new) == text.replace("ref: r\n", "ref: r2\n")


def test_the_first_key_of_a_record_removed_lets_the_next_take_its_place_and_keeps_its_comment() -> None:
    text = "items:\n  - gone: x  # why\n    # more\n    id: a\n    n: 1\n"
    old = {"items": [{"gone": "x", "id": "a", "n": 1}]}
    new = {"items": [{"gone": "", "id": "a", "n": 1}]}
    sparse = {"items": [{"id": "a", "n": 1}]}
    assert edited(text, old, new, sparse) == "items:\n    # why\n    # more\n  - id: a\n    n: 1\n"


def test_the_only_key_of_a_record_cannot_go() -> None:
    text = "items:\n  - gone: x\n"
    with pytest.raises(Declined):
        edited(text, {"items": [{"gone": "x"}]}, {"items": [{"gone": ""}]}, {"items": [{}]})


def test_a_key_that_comes_first_in_the_model_goes_before_the_first_kept_key() -> None:
    text = "items:\n  - id: a\n    n: 1\n"
    old = {"items": [{"first": "", "id": "a", "n": 1}]}
    new = {"items": [{"first": "f", "other": "o", "id": "a", "n": 1}]}
    assert edited(text, old, new) == "items:\n  - first: f\n    other: o\n    id: a\n    n: 1\n"


def test_keys_in_place_of_every_key_cannot_be_placed() -> None:
    with pytest.raises(Declined):
        edited("a: 1\n", {"a": 1, "b": None}, {"a": None, "b": 2}, {"b": 2})


def test_a_key_the_model_does_not_know_or_a_key_twice_is_declined() -> None:
    with pytest.raises(Declined):
        edited("a: 1\nz: 2\n", {"a": 1}, {"a": 2})
    with pytest.raises(Declined):
        edited("a: 1\n", {"a": 1}, [("a", 2)])  # type: ignore[arg-type]


def test_a_block_scalar_written_over_keeps_the_comment_after_it_as_a_comment() -> None:
    text = "a: |-\n  old text\nb: x  # kept\n"
    assert edited(text, {"a": "old text", "b": "x"}, {"a": "new text", "b": "y"}) == (
        "a: |-\n  new text\nb: y  # kept\n"
    )
    text = "a: 'old'  # about a\nb: 1\n"
    assert edited(text, {"a": "old", "b": 1}, {"a": "new\nlines", "b": 1}) == 'a: "new\\nlines"  # about a\nb: 1\n'


def test_a_value_s_inner_comments_go_above_its_key_when_it_is_written_anew() -> None:
    text = "ids:  # the ids\n  - a  # first\n  - b\nn: 1\n"
    assert edited(text, {"ids": ["a", "b"], "n": 1}, {"ids": [], "n": 2}, {"n": 2}) == ("# the ids\n# first\nn: 2\n")
    assert edited(text, {"ids": ["a", "b"], "n": 1}, {"ids": "x", "n": 1}) == ("# the ids\n# first\nids: x\nn: 1\n")


def test_a_block_list_of_ids_gains_and_loses_items_in_place() -> None:
    text = "ids:\n  - a  # first\n  - b\n  - c\nn: 1\n"
    old = {"ids": ["a", "b", "c"], "n": 1}
    assert edited(text, old, {"ids": ["x", "a", "c", "d"], "n": 1}) == (
        "ids:\n  - x\n  - a  # first\n  - c\n  - d\nn: 1\n"
    )
    assert edited(text, old, {"ids": ["b", "c"], "n": 1}) == "ids:\n  # first\n  - b\n  - c\nn: 1\n"


def test_ids_that_repeat_are_matched_by_position() -> None:
    text = "ids:\n  - 5\n  - 5\n"
    assert edited(text, {"ids": [5, 5]}, {"ids": [5, 6]}) == "ids:\n  - 5\n  - 6\n"


def test_a_scalar_item_among_records_is_written_anew() -> None:
    text = "items:\n  - {id: a}  # flow\n  - id: b\n"
    old = {"items": [{"id": "a"}, {"id": "b"}]}
    new = {"items": [{"id": "a", "n": 1}, {"id": "b"}]}
    assert edited(text, old, new) == "items:\n  # flow\n  - id: a\n    n: 1\n  - id: b\n"


@pytest.mark.parametrize(
    ("old", "new", "key", "expected"),
    [
        ([{"id": "a"}, {"id": "b"}], [{"id": "b"}, {"id": "c"}], "work_packets", ([(1, 0)], [0], [(1, [1])])),
        ([{"id": "a"}], [{"id": "a"}, {"x": 1}], "work_packets", ([(0, 0)], [], [(0, [1])])),
        ([{"id": "a"}, {"id": "b"}], [{"id": "c"}], "evidence", ([(0, 0)], [1], [])),
        ([{"id": "a"}, {"id": "a"}], [{"id": "a"}], "work_packets", ([(0, 0)], [1], [])),
        (["a", "b"], ["b", "a"], "ids", ([(0, 1)], [1], [(-1, [0])])),
        ([1, True], [True, 1], "ids", ([(0, 1)], [1], [(-1, [0])])),
        (["a"], ["a"], "ids", ([(0, 0)], [], [])),
    ],
    ids=[
        "by-identity",
        "a-record-without-it",
        "by-position",
        "a-repeated-identity",
        "by-value",
        "1-is-not-true",
        "same",
    ],
)
def test_items_are_matched_by_identity_value_or_position(
    old: list[Any], new: list[Any], key: str, expected: tuple[Any, ...]
) -> None:
    assert aligned(old, new, key) == expected


def test_long_lists_are_matched_without_junk_heuristics() -> None:
    before = [f"p{n}" for n in range(300)]
    after = [*before[:150], "new", *before[150:]]
    pairs, removed, inserted = matched(before, after)
    assert (len(pairs), removed, inserted) == (300, [], [(149, [150])])


def test_edits_that_overlap_are_declined_and_two_at_one_place_keep_their_order() -> None:
    lines = source_lines("a\nb\n")
    with pytest.raises(Declined):
        applied(lines, 0, 2, [Edit((0, 0), (1, 1), "x"), Edit((0, 1), (1, 0), "y")], "\n")
    at = [Edit((1, 0), (1, 0), "1\n"), Edit((1, 0), (1, 0), "2\n"), Edit((0, 0), (0, 1), "A")]
    assert applied(lines, 0, 2, at, "\r\n") == "A\n1\r\n2\r\nb\n"
    with pytest.raises(Declined):
        applied(lines, 1, 2, [Edit((0, 0), (0, 1), "x")], "\n")


def test_units_join_bottom_up_and_one_that_reads_back_wrong_is_declined() -> None:
    lines = source_lines("a: 1\nb: 2\nc: 3\n")
    units = [Unit(0, 1, "a: 9\n", None), Unit(2, 2, "x: 0\n", None), Unit(2, 3, "", None)]
    assert joined(lines, units) == "a: 9\nb: 2\nx: 0\n"
    with pytest.raises(Declined):
        joined(lines, [Unit(0, 2, "", None), Unit(1, 3, "", None)])
    with pytest.raises(Declined):
        joined(lines, [Unit(0, 1, "a: 9\n", lambda text: False)])


def test_records_read_back_only_as_the_records_they_stand_for() -> None:
    item = EvidenceRef(class_="issue", summary="s", ref="r")
    text = "- class: issue\n  summary: s\n  ref: r\n"
    assert records_read_back(text, [item])
    assert not records_read_back(text, [item, item])
    assert not records_read_back("class: issue\n", [item])
    assert not records_read_back(text.replace("ref: r", "ref: x"), [item])
    assert not records_read_back(text.replace("ref: r", "ref: [x]"), [item])
    assert records_read_back(
        '- class: issue\n  summary: s\n  ref: "r\\tx"\n', [item.model_copy(update={"ref": "r\tx"})]
    )
    with pytest.raises(Declined):
        records_read_back("- [\n", [item])


def test_top_level_keys_read_back_only_as_the_snapshot_has_them(seed: Any) -> None:
    snapshot: Snapshot = seed.model if hasattr(seed, "model") else seed
    day = snapshot.as_of.isoformat()
    assert fields_read_back(f"as_of: {day}\n", snapshot, ["as_of"])
    assert fields_read_back("# nothing here\n", snapshot, [])
    assert not fields_read_back(f"as_of: {day}\nschema: x\n", snapshot, ["as_of"])
    assert not fields_read_back(f"as_of: '{day}x'\n", snapshot, ["as_of"])
    assert not fields_read_back(f"as_of: {(snapshot.as_of + dt.timedelta(days=1)).isoformat()}\n", snapshot, ["as_of"])
    assert not fields_read_back("- a\n", snapshot, [])


def test_a_scalar_is_double_quoted_exactly_when_it_holds_a_character_yaml_does_not_print_plainly() -> None:
    # YAML 1.2's printable characters (c-printable), less the line breaks it reads in other
    # styles (NEL, LS, PS) and the byte order mark: checked at each edge of each range, and beside it.
    ranges = [(0x20, 0x7E), (0xA0, 0x2027), (0x202A, 0xD7FF), (0xE000, 0xFEFE), (0xFF00, 0xFFFD), (0x10000, 0x10FFFF)]
    edges = {0, *(edge for pair in ranges for edge in pair)}
    codes = sorted({code + step for code in edges for step in (-1, 0, 1)} & set(range(0x110000)))
    quoted = [code for code in codes if style_of(restyled("", chr(code))) == '"']
    assert quoted == [code for code in codes if not any(low <= code <= high for low, high in ranges)]
