"""Hostile text through the snapshot store: every value reloads as written, every refused file is located.

Regression cases of issue #10 (items 1, 2, 6 and 8) and the rewrite property of item 3: any text,
written into a value of any existing scalar style, reloads to exactly that text.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.errors import InputError
from bot.snapshot import store, store_outline, store_save
from bot.snapshot.model import Snapshot
from bot.snapshot.validation import validate
from tests.support.harness import Repo, pull
from tests.support.malformed import SMALL_SNAPSHOT
from tests.support.property_budget import examples

STYLES = {
    "plain": " old value",
    "single": " 'old value'",
    "double": ' "old value"',
    "literal": " |-\n      old value",
    "folded": " >-\n      old value",
}
VALID = SMALL_SNAPSHOT.format(style=STYLES["plain"])

# The characters and shapes that broke the file before: line separators, \x0b, \x85, edge spaces.
NASTY = [
    "a\u2028b",
    "a\u2029b",
    "a\x85b",
    "a\x0bb",
    "a\x0cb",
    "a\x1cb",
    "\ufeffa",
    "a\x7fb",
    "a\tb",
    " lead",
    "trail ",
    "a  b",
    "- item",
    "#hash",
    "a #b",
    "a: b",
    "'quoted'",
    '"dq"',
    "null",
    "~",
    "2026-01-01",
    "0x1F",
    "|",
    ">",
    "@x",
    "a\\",
    "",
    " ",
    "\u202eevil",
]


@functools.cache
def loaded_with(style: str) -> store.Loaded[Snapshot]:
    """The small snapshot in `style`, read once per process: `save_text` never changes the tree it
    writes from (tests/unit/snapshot/test_store.py checks), so every rewrite starts from the same."""
    return store.parse_model(SMALL_SNAPSHOT.format(style=STYLES[style]), "s.yaml", Snapshot)


def with_result(model: Snapshot, text: str) -> Snapshot:
    packets = (model.work_packets[0].model_copy(update={"result": text}), *model.work_packets[1:])
    return model.model_copy(update={"work_packets": packets})


def test_every_style_is_what_the_fixture_says() -> None:
    assert validate(loaded_with("plain").model) == []
    loaded = loaded_with("literal")
    assert type(loaded.tree["work_packets"][0]["result"]).__name__ == "LiteralScalarString"
    assert loaded.model.work_packets[0].result == "old value"


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("text", NASTY, ids=repr)
def test_nasty_text_in_any_style_reloads_exactly(style: str, text: str) -> None:
    loaded = loaded_with(style)
    wanted = with_result(loaded.model, text)
    saved = store_save.save_text(loaded, wanted)
    assert store.parse_model(saved, "s.yaml", Snapshot).model == wanted
    assert saved.startswith("# a comment that must survive\n")
    assert saved.endswith("# trailing comment\n")


long_words = st.lists(st.sampled_from(["a", "bb", " ", "  ", "x" * 50]), min_size=100, max_size=200).map("".join)


@settings(max_examples=examples(150, bounded=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    style=st.sampled_from(sorted(STYLES)),
    text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40) | st.sampled_from(NASTY) | long_words,
    splice=st.booleans(),
)
def test_any_text_in_any_existing_style_reloads_to_exactly_that_text(style: str, text: str, splice: bool) -> None:
    loaded = loaded_with(style)
    wanted = with_result(loaded.model, text)
    saved = store_save.save_text(loaded, wanted, splice=splice)
    assert store.parse_model(saved, "s.yaml", Snapshot).model == wanted


def test_a_line_separator_in_another_value_does_not_shift_the_splice() -> None:
    """U+2028 in one value made the splice (splitlines) drop a line and duplicate a key further on."""
    base = VALID.replace("    driver: d\n", "    driver: 'd\u2028e'\n", 1)
    loaded = store.parse_model(base, "s.yaml", Snapshot)
    assert loaded.model.constraints[0].driver == "d\u2028e"
    packets = list(loaded.model.work_packets)
    packets[1] = packets[1].model_copy(update={"state": "running"})
    wanted = loaded.model.model_copy(update={"work_packets": tuple(packets)})
    saved = store_save.save_text(loaded, wanted)
    assert store.parse_model(saved, "s.yaml", Snapshot).model == wanted
    head, tail = base.rsplit("    state: ready\n", 1)
    assert saved == head + "    state: running\n" + tail


def test_source_lines_split_only_where_ruamel_counts_a_line() -> None:
    assert store_outline.source_lines("a\nb\u2028c\x85d\x0be\r\nf\rg") == ["a\n", "b\u2028c\x85d\x0be\r\n", "f\r", "g"]


def refused(text: str) -> str:
    with pytest.raises(InputError) as info:
        store.parse_model(text, "s.yaml", Snapshot)
    return str(info.value)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # Item 6: an alias bomb in a date field (31 s, 3.9 GB before).
        (
            "as_of: 2026-08-27",
            "as_of: [&l0 [lol, lol, lol], &l1 [*l0, *l0, *l0], &l2 [*l1, *l1, *l1]]",
            "s.yaml:3:9: anchors and aliases are not allowed",
        ),
        ("definition: One line.", "definition: &d One line.", "s.yaml:4:13: anchors and aliases are not allowed"),
        # Item 2: a merge key hid `blocked_by_condition` from `/perf unblock`.
        (
            "    next_action: n\n    exit_when: e\noss_states:",
            "    next_action: n\n    <<: {blocked_by_condition: window}\n    exit_when: e\noss_states:",
            "s.yaml:52:5: merge keys (<<) are not allowed",
        ),
        ("as_of: 2026-08-27", "as_of: " + "[" * 100_000, "s.yaml:3:8: more than 32 nested [ or { in a row"),
        ("as_of: 2026-08-27", "as_of: " + "[a, " * 40, "nested deeper than 32 levels"),
        (
            "as_of: 2026-08-27",
            "as_of:\n" + "".join(" " * (n + 1) + "-\n" for n in range(40)),
            "nested deeper than 32 levels",
        ),
        (
            "    issue: 5\n",
            "    issue: " + "1" * 5000 + "\n",
            "s.yaml:35:12: an integer of 5000 characters (at most 40)",
        ),
        ("as_of: 2026-08-27", "as_of: !!int zz", "s.yaml:3:8: tags (!...) are not allowed"),
        ("definition: One line.", 'definition: "\\ud800"', "s.yaml:4:13: a lone UTF-16 surrogate escape"),
        # Item 8: a model error names the record by its id, as validation findings do.
        (
            "    state: complete",
            "    state: paused",
            "s.yaml:36:5: work packet \"w1\": state: Input should be 'running'",
        ),
        (
            "    hero_metric: h",
            "    hero_metric: 5",
            'execution program "p1": hero_metric: Input should be a valid string',
        ),
        (
            "      - class: issue",
            "      - class: 7",
            'current constraint "c1": evidence.0.class: Input should be a valid string',
        ),
        ("as_of: 2026-08-27", "as_of: [" + "1, " * 50 + "1]", "s.yaml:3:1: as_of: a list is not a valid date"),
        (
            "as_of: 2026-08-27",
            "as_of: '" + "x" * 5000 + "'",
            "s.yaml:3:1: as_of: '" + "x" * 59 + "…' is not a valid date",
        ),
    ],
    ids=[
        "alias-bomb",
        "anchor",
        "merge-key",
        "deep-flow",
        "deep-flow-with-items",
        "deep-block",
        "5000-digit-integer",
        "tag",
        "lone-surrogate",
        "unknown-state",
        "wrong-type-in-program",
        "wrong-type-in-evidence",
        "list-as-date",
        "long-echo",
    ],
)
def test_refused_snapshots_name_the_place(old: str, new: str, message: str) -> None:
    assert old in VALID
    text = refused(VALID.replace(old, new, 1))
    assert message in text
    assert "\n" not in text
    assert len(text) < 300


def test_a_record_whose_id_is_the_problem_is_named_by_its_place() -> None:
    assert "s.yaml:31:5: work_packets.0.id: Input should be a valid string" in refused(
        VALID.replace("  - id: w1", "  - id: [w1]", 1)
    )


def test_an_oversized_snapshot_is_refused_before_parsing() -> None:
    assert "larger than the 16,777,216 characters" in refused(VALID + "#" * (16 * 1024 * 1024))


def test_the_33_kb_alias_bomb_is_refused_at_its_first_anchor() -> None:
    """It took 31 s and 3.9 GB (`benchmarks/hostile.py` times it now); no alias is ever expanded."""
    assert "s.yaml:3:9: anchors and aliases are not allowed" in refused(alias_bomb())


def alias_bomb() -> str:
    levels = "".join(f"&l{n} [{', '.join([f'*l{n - 1}'] * 9)}], " for n in range(1, 500))
    bomb = VALID.replace("as_of: 2026-08-27", f"as_of: [&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol], {levels}]")
    assert len(bomb) > 33_000
    return bomb


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b"], ids=repr)
@pytest.mark.parametrize("style", ["|-", ">-", "'"])
def test_a_command_argument_with_a_line_separator_never_reaches_the_proposed_snapshot(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], separator: str, style: str
) -> None:
    """It made the PR propose a file that no longer loaded when the condition was a block scalar."""
    existing = {"|-": "|-\n      old condition", ">-": ">-\n      old condition", "'": "'old condition'"}[style]
    sandbox.edit_snapshot(
        "    next_action: Read back landed commit b12f23f04",
        f"    blocked_by_condition: {existing}\n    next_action: Read back landed commit b12f23f04",
    )
    sandbox.edit_state(permissions={"root": "admin"})
    body = f"/perf block cuda.cache-weight-residency waiting{separator}for a window"
    sandbox.add_comment(101, 9420, "root", body)
    plan = sandbox.reconcile(capsys, "--now", "2026-08-27T23:00:00Z", dry_run=True)
    # No page line may carry one, so the command is refused, with a reply that says why. (Written
    # anyway, the store would double-quote it: see the property above.)
    assert [c["decision"] for c in plan["commands"]] == ["refused"]
    assert "control character or line separator" in plan["commands"][0]["reason"]
    proposed = store.parse_model(pull(plan)["files"]["config/snapshot.yaml"], "s.yaml", Snapshot).model
    assert proposed.work_packets[0].blocked_by_condition == "old condition"
