"""The fast rewrite (`store_splice`) gives exactly the text the whole-tree rewrite gives, or declines.

The oracle is `save_text` without the fast path (`fast=False`): it patches the round-trip tree of
the whole file, and its own splice is held to a full dump in `test_store.py`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.snapshot import store, store_rewrite
from bot.snapshot.model import Snapshot, WorkPacket
from bot.snapshot.store_emit import source_lines
from bot.snapshot.store_layout import Section, sections
from bot.snapshot.store_libyaml import Seen, load_data
from bot.snapshot.store_splice import _records, fast_save_text
from tests.malformed import SMALL_SNAPSHOT
from tests.property_budget import examples
from tests.unit.snapshot.test_store import WORDS, seed_edits, snapshots


def agrees(loaded: store.Loaded[Snapshot], edited: Snapshot) -> str | None:
    """The fast text, after checking it against the oracle and that it loads back as `edited`."""
    fast = fast_save_text(loaded.text, loaded.model, edited, loaded.seen)
    oracle = store_rewrite.save_text(loaded, edited, fast=False)  # a pure function of its arguments
    if fast is not None:
        assert fast == oracle
        assert store.parse_model(fast, "x", Snapshot).model == edited

    asked: list[tuple[Any, ...]] = []

    def computed(*args: Any) -> str | None:
        """`fast_save_text` is pure: asked the same again, by `save_text`, it answers as it did."""
        asked.append(args)
        return fast

    with pytest.MonkeyPatch.context() as patch:  # `save_text` takes the fast text, or falls back
        patch.setattr(store_rewrite, "fast_save_text", computed)
        assert store_rewrite.save_text(loaded, edited) == oracle
    # An edit is offered to the fast rewrite first (an unchanged snapshot is its own text).
    assert asked == ([] if edited == loaded.model else [(loaded.text, loaded.model, edited, loaded.seen)])
    return fast


def packet_ids(text: str) -> list[int]:
    """Line numbers of the seed's work packets, past the section's first."""
    lines = source_lines(text)
    start = lines.index("work_packets:\n")
    end = next(i for i in range(start + 1, len(lines)) if lines[i][:1] not in " \n")
    return [i for i in range(start + 2, end) if lines[i].startswith("  - id: ")]


@st.composite
def seed_texts(draw: st.DrawFn, seed_text: str) -> str:
    """The seed, maybe with comment or blank lines between work packets, a comment on a key, or a
    packet whose first key is below its dash."""
    lines = source_lines(seed_text)
    if draw(st.booleans()):
        at = draw(st.sampled_from(packet_ids(seed_text)))
        lines[at + 1] = lines[at + 1].rstrip("\n") + "  # on a key\n"
    if draw(st.booleans()):
        at = draw(st.sampled_from(packet_ids(seed_text)))
        lines[at] = "  - # below the dash\n    " + lines[at][4:]
    # Inserted last, from the bottom up, so every index above still points at a packet's first line.
    for at in sorted(draw(st.lists(st.sampled_from(packet_ids(seed_text)), max_size=3, unique=True)), reverse=True):
        lines.insert(at, draw(st.sampled_from(["\n", "  # between records\n", "    # indented note\n"])))
    return "".join(lines)


@st.composite
def reshaped(draw: st.DrawFn, model: Snapshot) -> Snapshot:
    """`model` with packets appended, dropped or swapped, or a top-level list emptied."""
    packets = list(model.work_packets)
    change = draw(st.sampled_from(["append", "drop", "swap", "empty-ledger", "none"]))
    if change == "append":
        extra = packets[-1].model_copy(update={"id": "profile.extra", "owner": draw(WORDS), "hard_dependency_ids": ()})
        packets.append(extra)
    elif change == "drop":
        del packets[draw(st.integers(0, len(packets) - 1))]
    elif change == "swap":
        packets[0], packets[1] = packets[1], packets[0]
    elif change == "empty-ledger":
        return model.model_copy(update={"ledger": ()})
    return model.model_copy(update={"work_packets": tuple(packets)})


def test_fast_rewrite_agrees_on_random_edits_of_the_seed(seed_text: str) -> None:
    base = store.parse_model(seed_text, "snapshot.yaml", Snapshot).model
    parsed: dict[str, store.Loaded[Snapshot]] = {}

    # Each example rewrites the whole 600-line seed three ways (a third of a second): the costliest
    # property of the suite. Bounded to 8, as other whole-file properties are; the other splice
    # properties cover the same rewrite on small files at 15 and 20, `thorough` runs 100.
    @settings(
        max_examples=examples(100, bounded=8),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(seed_texts(seed_text), seed_edits(base), st.data())
    def check(text: str, edited: Snapshot, data: st.DataObject) -> None:
        # A text drawn again is not parsed again. The oracle only reads its round-trip tree (it
        # patches a copy); a write into it would part the oracle from the fast rewrite, which reads
        # the text.
        if text not in parsed:
            parsed[text] = store.parse_model(text, "snapshot.yaml", Snapshot)
        loaded = parsed[text]
        agrees(loaded, data.draw(reshaped(edited)))

    check()


@settings(max_examples=examples(100, bounded=15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots(), snapshots())
def test_fast_rewrite_agrees_over_another_snapshot(old: Snapshot, new: Snapshot) -> None:
    agrees(store.parse_model(store_rewrite.dump_new(old), "x", Snapshot), new)


@settings(max_examples=examples(100, bounded=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    style=st.sampled_from(["plain", "'single'", '"double"', "|-\n      block", ">-\n      folded"]),
    value=st.text(st.characters(exclude_categories=["Cs"]), max_size=30),
    tail=st.sampled_from(["", "# trailing comment\n", "\n# after a blank line\n"]),
)
def test_fast_rewrite_agrees_on_any_text_in_any_style(style: str, value: str, tail: str) -> None:
    loaded = store.parse_model(SMALL_SNAPSHOT.format(style=" " + style) + tail, "s.yaml", Snapshot)
    packet = loaded.model.work_packets[0].model_copy(update={"result": value})
    agrees(loaded, loaded.model.model_copy(update={"work_packets": (packet,)}))


def edited_packets(model: Snapshot, *indexes: int, state: str = "ready") -> Snapshot:
    packets = list(model.work_packets)
    for i in indexes:
        packets[i] = packets[i].model_copy(update={"state": state})
    return model.model_copy(update={"work_packets": tuple(packets)})


def test_usual_edits_of_the_seed_take_the_fast_path(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    model = loaded.model
    last = model.work_packets[-1]
    extra = WorkPacket.model_validate({**last.model_dump(), "id": "profile.extra", "hard_dependency_ids": ()})
    for edited in (
        edited_packets(model, 0, len(model.work_packets) // 2, len(model.work_packets) - 1, state="capacity-hold"),
        model.model_copy(update={"as_of": model.as_of + dt.timedelta(days=1), "definition": "Changed."}),
        model.model_copy(update={"work_packets": (*model.work_packets, extra)}),
        model.model_copy(update={"collisions": model.collisions[1:]}),
    ):
        assert agrees(loaded, edited) is not None


def test_a_comment_line_before_a_changed_record_re_emits_its_section(seed_text: str) -> None:
    """A comment between records may be attached to the next one: only a tree of the section knows."""
    second = packet_ids(seed_text)[0]
    lines = source_lines(seed_text)
    lines.insert(second, "  # about the next packet\n")
    loaded = store.parse_model("".join(lines), "snapshot.yaml", Snapshot)
    section = next(s for s in sections(lines, loaded.seen) or [] if s.key == "work_packets")
    old, _ = loaded.model.to_data()
    for index, declines in ((1, True), (2, False)):
        edited = edited_packets(loaded.model, index, state="capacity-hold")
        new, sparse = edited.to_data()
        records = _records(section, lines, old["work_packets"], new["work_packets"], sparse["work_packets"])
        assert (records is None) is declines
        assert agrees(loaded, edited) is not None


def test_a_line_separator_in_the_file_takes_the_slow_path() -> None:
    """libyaml ends a line at U+2028 where ruamel does not, so its marks would be off."""
    text = SMALL_SNAPSHOT.format(style=" 'old\u2028value'")
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    packet = loaded.model.work_packets[0].model_copy(update={"state": "running"})
    assert agrees(loaded, loaded.model.model_copy(update={"work_packets": (packet,)})) is None


@pytest.mark.parametrize(
    ("text", "records"),
    [
        ("a: 1\nb:\n  - id: x\n    v: 2\n  - id: y\n", (2, 4)),
        ("b:\n- id: x\n- id: y\nc: [1]\n", (1, 2)),
        ("b:\n  - id: x\n  -\n    id: y\n", None),  # the second record's lines do not start at its dash
        ("b:\n  - # note\n    id: x\n", None),
        ("b:\n  - {id: x}\n", None),
        ("b: [{id: x}]\n", None),
    ],
)
def test_records_are_found_only_where_their_lines_start_at_the_dash(text: str, records: tuple[int, ...] | None) -> None:
    found = layout(text)
    assert found is not None
    assert found[-1 if text.startswith("a") else 0].records == records


@pytest.mark.parametrize(
    "text", ["---\na: 1\n", "a: 1\n...\n", "a: 1\n---\nb: 2\n", "%YAML 1.1\n---\na: 1\n", "- 1\n", "{a: 1}\n"]
)
def test_anything_but_one_plain_block_mapping_has_no_layout(text: str) -> None:
    assert layout(text) is None


def test_a_record_split_after_its_dash_still_gives_the_oracles_text(seed_text: str) -> None:
    """Both paths spliced the record above it without the dash, which then failed to load."""
    at = packet_ids(seed_text)[1]
    lines = source_lines(seed_text)
    lines[at] = "  - # moved\n    " + lines[at][4:]
    loaded = store.parse_model("".join(lines), "snapshot.yaml", Snapshot)
    for index in (1, 2, 3):
        assert agrees(loaded, edited_packets(loaded.model, index, state="capacity-hold")) is not None


def layout(text: str) -> list[Section] | None:
    """The sections as loading saw them (`store_libyaml.Seen`)."""
    seen: Seen = []
    read, _ = load_data(
        text, max_depth=store.MAX_DEPTH, max_digits=store.MAX_INTEGER_DIGITS, date=store.PlainDate, seen=seen
    )
    return sections(source_lines(text), seen if read else None)


def test_a_plain_document_is_laid_out_by_key_and_record() -> None:
    text = "a: 1\nb:\n  - id: x\n    v: 2\n  - id: y\n# end\n"
    assert layout(text) == [Section("a", 0, 1, None), Section("b", 1, 6, (2, 4))]
    assert layout('"q": 1\nb:\n- x: 1\nc: [1]\n') == [
        Section("q", 0, 1, None),
        Section("b", 1, 3, (2,)),
        Section("c", 3, 4, None),
    ]
    assert layout("b:\n  - id: x\n  - 3\n") == [Section("b", 0, 3, None)]  # not every item is a record


@pytest.mark.parametrize("text", ["1: x\nb: 2\n", "", "a: &x 1\nb: *x\n", "a:\tb\n"])
def test_a_text_loading_did_not_lay_out_has_no_layout(text: str) -> None:
    """A key that is not text, no document, or a text only the round-trip loader reads."""
    assert layout(text) is None


def test_the_seed_is_laid_out_where_its_keys_and_packets_start(seed_text: str) -> None:
    @settings(max_examples=examples(50, bounded=10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed_texts(seed_text))
    def check(text: str) -> None:
        found = layout(text)
        assert found is not None
        lines = source_lines(text)
        keys = [(line.split(":")[0], i) for i, line in enumerate(lines) if line[:1].isalpha()]
        assert [(s.key, s.start) for s in found] == keys
        assert [s.end for s in found] == [start for _, start in keys[1:]] + [len(lines)]
        packets = next(s for s in found if s.key == "work_packets")
        below = any(line.startswith("  - # below the dash") for line in lines)
        assert packets.records == (
            None
            if below
            else tuple(
                i for i, line in enumerate(lines) if line.startswith("  - id: ") and packets.start < i < packets.end
            )
        )
        assert store.parse_model(text, "s.yaml", Snapshot).seen  # a snapshot keeps what loading saw

    check()
