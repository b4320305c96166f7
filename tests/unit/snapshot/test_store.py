"""Round-trip storage: unchanged saves are byte-identical, edits touch only their lines."""

from __future__ import annotations

import datetime as dt
import difflib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import files
from bot.snapshot import store, store_save
from bot.snapshot.model import Constraint, EvidenceRef, LedgerEntry, Lever, Program, Snapshot, WorkPacket
from tests.support.paths import FIXTURES, ROOT
from tests.support.property_budget import examples
from tests.support.words import DIGITS, LOWER, words


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_unchanged_save_is_byte_identical() -> None:
    for path in (ROOT / "config" / "snapshot.yaml", FIXTURES / "snapshot-newest.yaml"):
        loaded = store.load_snapshot(path)
        assert store_save.save_text(loaded, loaded.model) == path.read_text(encoding="utf-8")


def test_one_field_edit_changes_only_that_line(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    packets = list(loaded.model.work_packets)
    index = next(i for i, p in enumerate(packets) if p.id == "cuda.q8_1-numerical-gate")
    packets[index] = packets[index].model_copy(update={"state": "ready"})
    edited = store_save.save_text(loaded, loaded.model.model_copy(update={"work_packets": tuple(packets)}))
    assert changed_lines(seed_text, edited) == ["-    state: waiting-coordination", "+    state: ready"]


def test_quoted_string_edit_keeps_its_quoting_and_comments(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    first = loaded.model.constraints[0]
    assert "'DOS lease WAL; issue #9420'" in seed_text
    constraints = (
        first.model_copy(update={"authority_owner": "DOS lease WAL; issue #9421"}),
        *loaded.model.constraints[1:],
    )
    edited = store_save.save_text(loaded, loaded.model.model_copy(update={"constraints": constraints}))
    assert changed_lines(seed_text, edited) == [
        "-    authority_owner: 'DOS lease WAL; issue #9420'",
        "+    authority_owner: 'DOS lease WAL; issue #9421'",
    ]
    assert [line for line in edited.splitlines() if line.startswith("#")] == [
        line for line in seed_text.splitlines() if line.startswith("#")
    ]


def test_date_edit_stays_a_plain_date(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    first = loaded.model.constraints[0].model_copy(update={"review_by": dt.date(2026, 9, 4)})
    edited = store_save.save_text(
        loaded, loaded.model.model_copy(update={"constraints": (first, *loaded.model.constraints[1:])})
    )
    assert changed_lines(seed_text, edited) == ["-    review_by: 2026-08-28", "+    review_by: 2026-09-04"]


def test_moving_a_dependency_to_satisfied_edits_flow_lists_in_place(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    packets = [
        p.model_copy(update={"hard_dependency_ids": (), "satisfied_dependency_ids": ("mac.m1-streamed-q4k-no-copy",)})
        if p.id == "profile.real-metal"
        else p
        for p in loaded.model.work_packets
    ]
    edited = store_save.save_text(loaded, loaded.model.model_copy(update={"work_packets": tuple(packets)}))
    assert changed_lines(seed_text, edited) == [
        "-    hard_dependency_ids: [mac.m1-streamed-q4k-no-copy]",
        "+    satisfied_dependency_ids: [mac.m1-streamed-q4k-no-copy]",
    ]


def test_appended_record_goes_before_the_next_sections_comment(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    last = loaded.model.work_packets[-1]
    extra = last.model_copy(update={"id": "profile.extra", "program_order": 4, "hard_dependency_ids": ()})
    edited = store_save.save_text(
        loaded, loaded.model.model_copy(update={"work_packets": (*loaded.model.work_packets, extra)})
    )
    lines = edited.splitlines()
    new_at = lines.index("  - id: profile.extra")
    comment_at = next(i for i, line in enumerate(lines) if line.startswith("# ") and i > new_at)
    assert lines[comment_at + 1] == "ready_waves:"
    assert store.parse_model(edited, "x", Snapshot).model.work_packets[-1] == extra


def test_removed_record_and_new_key_are_written(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    model = loaded.model.model_copy(update={"collisions": loaded.model.collisions[1:]})
    edited = store_save.save_text(loaded, model)
    assert "live-model-compute-lease" not in edited
    assert store.parse_model(edited, "x", Snapshot).model == model


text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
ident = words(LOWER, LOWER + DIGITS + ".-", 12)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2100, 1, 1))
ids = st.lists(ident, max_size=3).map(tuple)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    constraints = tuple(
        Constraint(
            id=draw(ident),
            name=draw(text),
            type=draw(st.sampled_from(["evidence", "capacity"])),
            horizon="transient",
            state=draw(st.sampled_from(["ready", "held-correctness"])),
            observed_at=draw(dates),
            review_by=draw(dates),
            evidence=tuple(
                EvidenceRef(class_=draw(text), summary=draw(text), ref=draw(text))
                for _ in range(draw(st.integers(0, 2)))
            ),
            envelope=draw(text),
            driver=draw(text),
            authority_owner=draw(text),
            next_action=draw(text),
            exit_when=draw(text),
            ready_lever_ids=draw(ids),
            review_issue=draw(st.none() | st.integers(1, 10**6)),
        )
        for _ in range(draw(st.integers(0, 3)))
    )
    packets = tuple(
        WorkPacket(
            id=draw(ident),
            name=draw(text),
            program_id=draw(ident),
            constraint_ids=draw(ids),
            issue=draw(st.integers(1, 10**6)),
            related_issues=tuple(draw(st.lists(st.integers(1, 99), max_size=2))),
            program_order=draw(st.integers(0, 20)),
            state=draw(st.sampled_from(["ready", "complete", "running"])),
            owner=draw(text),
            lane=draw(text),
            paths=draw(ids),
            hard_dependency_ids=draw(ids),
            blocked_by_condition=draw(text),
            next_action=draw(text),
            result=draw(text),
            exit_when=draw(text),
        )
        for _ in range(draw(st.integers(0, 3)))
    )
    programs = tuple(
        Program(
            id=draw(ident),
            name=draw(text),
            authority_issue=draw(st.integers(-5, 10**6)),
            constraint_ids=draw(ids),
            hero_metric=draw(text),
            current_result=draw(text),
            sequence_rule=draw(text),
        )
        for _ in range(draw(st.integers(0, 2)))
    )
    levers = tuple(
        Lever(
            id=draw(ident),
            envelope_id=draw(ident),
            enabled=draw(st.booleans()),
            witnessed=draw(st.booleans()),
            dependency_ids=draw(ids),
        )
        for _ in range(draw(st.integers(0, 2)))
    )
    return Snapshot(
        schema_=draw(text),
        as_of=draw(dates),
        definition=draw(text),
        constraints=constraints,
        programs=programs,
        work_packets=packets,
        levers=levers,
    )


@settings(max_examples=examples(150, bounded=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots())
def test_load_of_dump_is_the_model(model: Snapshot) -> None:
    text_out = store_save.dump_new(model)
    assert store.parse_model(text_out, "x", Snapshot).model == model


@settings(max_examples=examples(50, bounded=10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots(), snapshots())
def test_save_over_another_snapshot_loads_back_as_the_new_model(old: Snapshot, new: Snapshot) -> None:
    loaded = store.parse_model(store_save.dump_new(old), "x", Snapshot)
    assert store.parse_model(store_save.save_text(loaded, new), "x", Snapshot).model == new


def test_write_atomic_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "page.md"
    files.write_atomic(target, "one\n")
    files.write_atomic(target, "two\n")
    assert target.read_text(encoding="utf-8") == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["page.md"]


WORDS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30)


@st.composite
def seed_edits(draw: st.DrawFn, seed: Snapshot) -> Snapshot:
    """The seed with a random handful of the edits reconciles and commands make."""
    packets = list(seed.work_packets)
    for index in draw(st.lists(st.integers(0, len(packets) - 1), max_size=4)):
        p = packets[index]
        change = draw(st.sampled_from(["state", "owner", "next", "satisfy", "condition", "related"]))
        if change == "state":
            packets[index] = p.model_copy(
                update={"state": draw(st.sampled_from(["ready", "running", "capacity-hold"]))}
            )
        elif change == "owner":
            packets[index] = p.model_copy(update={"owner": draw(WORDS)})
        elif change == "next":
            packets[index] = p.model_copy(update={"next_action": draw(WORDS)})
        elif change == "satisfy":
            packets[index] = p.model_copy(
                update={"hard_dependency_ids": (), "satisfied_dependency_ids": p.hard_dependency_ids}
            )
        elif change == "condition":
            packets[index] = p.model_copy(update={"blocked_by_condition": draw(st.sampled_from(["", "window"]))})
        else:
            packets[index] = p.model_copy(update={"related_issues": (*p.related_issues, draw(st.integers(1, 99)))})
    constraints = list(seed.constraints)
    for index in draw(st.lists(st.integers(0, len(constraints) - 1), max_size=2)):
        c = constraints[index]
        constraints[index] = c.model_copy(
            update={"review_by": c.review_by + dt.timedelta(days=draw(st.integers(1, 30)))}
        )
    ledger = tuple(
        LedgerEntry(comment_id=n, line=1, issue=8325, author=draw(WORDS), at="2026-08-28T10:00:00Z", effect=draw(WORDS))
        for n in range(draw(st.integers(0, 3)))
    )
    collisions = seed.collisions[: draw(st.integers(len(seed.collisions) - 1, len(seed.collisions)))]
    return seed.model_copy(
        update={
            "work_packets": tuple(packets),
            "constraints": tuple(constraints),
            "ledger": ledger,
            "collisions": collisions,
            "as_of": seed.as_of + dt.timedelta(days=draw(st.sampled_from([0, 0, 1]))),
        }
    )


def test_splicing_gives_the_text_a_full_dump_gives(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)

    @settings(
        max_examples=examples(25, bounded=5),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(seed_edits(loaded.model))
    def check(edited: Snapshot) -> None:
        spliced = store_save.save_text(loaded, edited)
        assert spliced == store_save.save_text(loaded, edited, splice=False)
        assert store.parse_model(spliced, "x", Snapshot).model == edited

    check()
    # The source tree is never touched: a write by any example would still be in it (dumping the
    # whole seed once, rather than after each example).
    assert store.dump_tree(loaded.tree) == seed_text


@pytest.mark.parametrize("tail", ["", "# a note after the last section\n", "  # an indented note\n\n# and another\n"])
def test_a_first_ledger_entry_goes_after_the_last_section_and_keeps_the_notes_after_it(
    seed_text: str, tail: str
) -> None:
    loaded = store.parse_model(seed_text + tail, "snapshot.yaml", Snapshot)
    entry = LedgerEntry(comment_id=5, issue=8325, author="alice", at="2026-08-27T10:00:00Z", effect="m1 complete")
    edited = loaded.model.model_copy(update={"ledger": (entry,), "commands_settled_through": 3})
    added = (
        "ledger:\n"
        "  - comment_id: 5\n"
        "    issue: 8325\n"
        "    author: alice\n"
        "    at: '2026-08-27T10:00:00Z'\n"
        "    effect: m1 complete\n"
        "commands_settled_through: 3\n"
    )
    assert store_save.save_text(loaded, edited) == seed_text + added + tail
    # The whole round trip keeps the notes at the end too (ruamel may indent them otherwise).
    whole = store_save.save_text(loaded, edited, splice=False)
    assert [line.strip() for line in whole.splitlines()] == [
        line.strip() for line in (seed_text + added + tail).splitlines()
    ]
