"""A flat record rewritten line by line (`store_flat`) gives exactly ruamel's text, or declines.

The oracle is ruamel itself: the record's lines under a list header are parsed into the round-trip
tree, patched with `store_patch.patch_map` and dumped, as `store_splice` does for a record it
round-trips. Source lines come in every style ruamel reads (plain, quoted, canonical or not), and
new values include what only some styles carry.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import ScalarString

from bot.errors import InputError
from bot.snapshot import store, store_splice
from bot.snapshot.model import LedgerEntry, Snapshot
from bot.snapshot.store_emit import source_lines
from bot.snapshot.store_flat import flat_record
from bot.snapshot.store_patch import patch_map
from tests.property_budget import examples
from tests.unit.snapshot.test_store_splice import agrees, edited_packets
from tests.words import DIGITS, LOWER, words

KEYS = st.sampled_from(["id", "state", "owner", "paths", "note", "issue", "due", "flag", "true", "null", "a1_b"])
# Text that is plain-safe, and text that needs quotes, escapes, or looks like another type.
TEXT = st.one_of(
    words(LOWER, LOWER + DIGITS + " ./*+-", 20, last=LOWER + DIGITS),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
    st.sampled_from(["", " x", "x ", "a: b", "a #b", "#a", "- a", "-a", "?", ":", "a:", "it's", "5", "0x1F", "true"]),
    st.sampled_from(["2026-09-04", "null", "~", "yes", "1.5", "---x", "...", "[a]", "a,b", "{x}", "a\u2028b", "é’"]),
)
SCALARS = st.one_of(TEXT, st.integers(-5, 10**6), st.booleans(), st.dates(dt.date(1990, 1, 1), dt.date(2100, 1, 1)))
VALUES = st.one_of(SCALARS, st.lists(st.one_of(TEXT, st.integers(0, 99)), max_size=3).map(tuple))
# How a source line may write a value: as ruamel would, or in a style of its own.
STYLES = st.sampled_from(["dump", "plain", "single", "double", "spaced"])


def written(value: Any, style: str) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(written(v, style) for v in value) + "]"
    if isinstance(value, bool):
        return "True" if style == "plain" and value else str(value).lower()
    if isinstance(value, int | dt.date) or style == "plain":
        return str(value.isoformat() if isinstance(value, dt.date) else value)
    text = str(value)
    if style == "single":
        return "'" + text.replace("'", "''") + "'"
    if style == "double":
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return " " + text if style == "spaced" else text


def canonical(record: Mapping[str, Any]) -> list[str]:
    """The record's lines as ruamel dumps a new record."""
    tree = CommentedMap()
    tree["r"] = CommentedSeq([CommentedMap()])
    patch_map(tree["r"][0], record, record)
    return source_lines(store.dump_tree(tree))[1:]


def as_model(value: Any) -> Any:
    """A round-trip tree value as the model dumps it: dates as dates, lists as tuples, plain str."""
    if isinstance(value, store.PlainDate):
        return dt.date.fromisoformat(value)
    if isinstance(value, list):
        return tuple(as_model(v) for v in value)
    return str(value) if isinstance(value, ScalarString) else value


def oracle(lines: list[str], new: Mapping[str, Any], sparse: Mapping[str, Any]) -> list[str]:
    tree = store.parse_tree("r:\n" + "".join(lines), "t.yaml")
    patch_map(tree["r"][0], new, sparse)
    return source_lines(store.dump_tree(tree))[1:]


@st.composite
def records(draw: st.DrawFn) -> tuple[list[str], dict[str, Any]]:
    """Lines of a record and the values the round-trip loader reads from them."""
    values = draw(st.dictionaries(KEYS, VALUES, min_size=1, max_size=5))
    if draw(st.booleans()):
        lines = canonical(values)
    else:
        keys = list(values)
        styles = [draw(STYLES) for _ in keys]
        lines = [
            ("  - " if i == 0 else "    ") + f"{k}: {written(values[k], s)}\n"
            for i, (k, s) in enumerate(zip(keys, styles, strict=True))
        ]
    try:
        tree = store.parse_tree("r:\n" + "".join(lines), "t.yaml")
    except InputError:
        assume(False)
    assume(isinstance(tree["r"], list) and len(tree["r"]) == 1 and isinstance(tree["r"][0], CommentedMap))
    return lines, {str(k): as_model(v) for k, v in tree["r"][0].items()}


@settings(
    max_examples=examples(2000, bounded=50),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(records(), st.dictionaries(KEYS, VALUES, max_size=4), st.lists(KEYS, max_size=2), st.data())
def test_a_flat_record_is_rewritten_as_ruamel_writes_it(
    record: tuple[list[str], dict[str, Any]], changes: dict[str, Any], dropped: list[str], data: st.DataObject
) -> None:
    lines, old = record
    new = {k: v for k, v in {**old, **changes}.items() if k not in dropped}
    sparse = {k: v for k, v in new.items() if data.draw(st.booleans(), label=f"{k} kept")}
    got = flat_record(lines, old, new, sparse)
    if got is not None:
        assert got == oracle(lines, new, sparse)


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("    note: plain words\n", True),
        ("    note: 'quoted # words'\n", True),
        ("    paths: [a/**, 'b c', '#d']\n", True),
        ("    due: 2026-09-04\n", True),
        ("    note:  two spaces\n", False),  # ruamel writes one space
        ('    note: "double"\n', False),  # not a style this writes
        ("    note: 'needless'\n", True),  # ruamel keeps the quotes it read
        ("    paths: [a,b]\n", False),
        ("    flag: True\n", False),  # ruamel writes `true`
        ("    note: # a comment\n", False),
    ],
)
def test_lines_are_trusted_only_as_ruamel_writes_them(line: str, reads: bool) -> None:
    lines = ["  - id: x\n", line]
    tree = store.parse_tree("r:\n" + "".join(lines), "t.yaml")
    old = {str(k): as_model(v) for k, v in tree["r"][0].items()}
    new = {**old, "id": "y"}
    got = flat_record(lines, old, new, new)
    assert (got is not None) is reads
    if got is not None:
        assert got == oracle(lines, new, new)


def test_state_changes_of_the_seed_are_written_without_a_round_trip(
    seed_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = store.parse_model(seed_text, "snapshot.yaml", Snapshot)

    def no_round_trip(*args: object) -> None:
        raise AssertionError("a flat record was round-tripped")

    expected = store_splice.fast_save_text(seed_text, loaded.model, edited_packets(loaded.model, 1, 2, 5), loaded.seen)
    assert expected is not None  # the fast rewrite takes these changes at all
    monkeypatch.setattr(store_splice, "_record", no_round_trip)
    edited = edited_packets(loaded.model, 1, 2, 5)
    assert agrees(loaded, edited) == expected


def ledger(count: int, start: int = 1) -> tuple[LedgerEntry, ...]:
    effects = ["`m1` blocked: `waiting for review`", "re-observed 2026-08-27", "it's done", "#9420: done", "x|y"]
    return tuple(
        LedgerEntry(
            comment_id=start + n,
            line=1 + n % 2,
            issue=9000 + n,
            author=f"writer{n}",
            at="2026-08-27T09:00:00Z",
            effect=effects[n % len(effects)],
        )
        for n in range(count)
    )


@pytest.mark.parametrize("tail", ["", "\n", "# after the levers\n"])
@pytest.mark.parametrize("settled", [0, 7])
def test_a_first_ledger_is_appended_without_a_round_trip(seed_text: str, tail: str, settled: int) -> None:
    """Keys added after the file's last section: the last one is written again, the new ones alone."""
    loaded = store.parse_model(seed_text + tail, "snapshot.yaml", Snapshot)
    edited = loaded.model.model_copy(update={"ledger": ledger(5), "commands_settled_through": settled})
    fast = agrees(loaded, edited)
    assert (fast is not None) is (tail == "")  # a line after the last section: ruamel moves it
    assert fast is None or fast.startswith(seed_text)


def test_ledger_entries_appended_to_a_ledger_are_written_without_a_round_trip(
    seed_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = store.parse_model(seed_text, "snapshot.yaml", Snapshot)
    text = store_splice.fast_save_text(
        seed_text, first.model, first.model.model_copy(update={"ledger": ledger(2)}), first.seen
    )
    assert text is not None
    loaded = store.parse_model(text, "snapshot.yaml", Snapshot)
    monkeypatch.setattr(store_splice, "_record", lambda *args: pytest.fail("a flat record was round-tripped"))
    grown = loaded.model.model_copy(update={"ledger": ledger(2) + ledger(40, start=100)})
    assert agrees(loaded, grown) is not None


def test_a_first_ledger_before_another_new_key_is_not_spliced(seed_text: str) -> None:
    """Keys added before the file's last section would go in the middle: the slow path places them."""
    lines = source_lines(seed_text)
    as_of = next(i for i, line in enumerate(lines) if line.startswith("as_of:"))
    loaded = store.parse_model("".join([*lines[as_of:], *lines[:as_of]]), "snapshot.yaml", Snapshot)
    edited = loaded.model.model_copy(update={"ledger": ledger(3)})
    assert store_splice.fast_save_text(loaded.text, loaded.model, edited, loaded.seen) is None
    agrees(loaded, edited)


def test_an_empty_flow_list_given_items_is_left_to_ruamel() -> None:
    """ruamel reads `[]` with no style and writes it back as a block list once it has items."""
    lines = ["  - id: x\n", "    paths: []\n"]
    old = {"id": "x", "paths": ()}
    assert flat_record(lines, old, old, old) == lines
    assert flat_record(lines, old, {"id": "x", "paths": ("a",)}, {"id": "x", "paths": ("a",)}) is None
    assert oracle(lines, {"id": "x", "paths": ("a",)}, {"id": "x", "paths": ("a",)})[1:] == [
        "    paths:\n",
        "      - a\n",
    ]
