"""The C-backed reader (`store.load_data`) agrees with the round-trip loader on every text it accepts,
and accepts nothing the round-trip loader refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.errors import InputError
from bot.snapshot import store
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Marks, load_data, locate_in_data
from tests.support.malformed import SMALL_SNAPSHOT, _set, every_path, value_at
from tests.support.property_budget import examples

ROOT = Path(__file__).resolve().parents[2]


def fast(text: str, marks: Marks | None = None) -> tuple[bool, Any]:
    return load_data(
        text, max_depth=store.MAX_DEPTH, max_digits=store.MAX_INTEGER_DIGITS, date=store.PlainDate, marks=marks
    )


def paths(value: Any) -> list[tuple[Any, ...]]:
    """Every key and item path into `value`, and one step past each: a missing key, an index past
    the end, and -1 into each list."""
    found: list[tuple[Any, ...]] = []
    for path in every_path(value):
        found += [path, (*path, "no such key"), (*path, 10**6)]
        if isinstance(value_at(value, path), list):
            found.append((*path, -1))
    return found


def assert_located_alike(text: str, tree: Any = None) -> None:
    """The C parser's marks name the place the round-trip tree names (`tree`, if the text's was
    parsed already), for every path in the text."""
    marks: Marks = {}
    read, data = fast(text, marks)
    assert read
    tree = store.parse_tree(text, "t.yaml") if tree is None else tree
    for path in paths(data):
        assert locate_in_data(data, marks, path) == store.locate(tree, path), path


def plain(value: Any) -> Any:
    """The value with every ruamel subclass reduced to its base type, so types are compared too."""
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    for base in (bool, store.PlainDate, str, int, float):
        if isinstance(value, base):
            return (base.__name__, base(value))
    return (type(value).__name__, value)


def round_trip(text: str) -> tuple[bool, Any]:
    try:
        return True, store.parse_tree(text, "t.yaml")
    except InputError:
        return False, None


def test_the_seed_reads_the_same_on_both_paths() -> None:
    text = (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    read, data = fast(text)
    assert read
    tree = store.parse_tree(text, "seed")  # the 600-line seed, parsed the round-trip way once
    assert plain(data) == plain(tree)
    loaded = store.parse_model(text, "seed", Snapshot)
    assert loaded.parsed_tree is None  # valid: no round-trip tree was built
    assert loaded.model == Snapshot.model_validate(tree)
    assert loaded.locate(["work_packets", 0, "id"])[0] > 1
    assert loaded.parsed_tree is None  # located from the C parser's marks
    assert loaded.tree is not None  # the tree is built on demand
    assert_located_alike(text, loaded.tree)


SCALARS = [
    "2026-08-27",
    "2026-08-27T12:00:00Z",
    "2026-8-7",
    "12",
    "-0",
    "0x1F",
    "0o17",
    "017",
    "1_000",
    "+5",
    "1.5",
    "1e3",
    ".inf",
    "-.Inf",
    ".nan",
    "1.",
    "true",
    "True",
    "FALSE",
    "yes",
    "no",
    "on",
    "~",
    "null",
    "",
    "'quoted'",
    '"a\\tb"',
    '"\\u00e9"',
    "<<",
    "=",
    "a: b",
    "1" * 41,
    "1" * 40,
    "-" + "9" * 40,
    "plain text",
    "'it''s'",
    '"\\ud800"',
    "&a x",
    "*a",
    "!tag x",
    "!!str 1",
    "0b101",
    "1:20",
    "- x",
]
texts = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "1", "'a'", "2026-01-01"]), st.sampled_from(SCALARS)),
    min_size=1,
    max_size=6,
).map(lambda pairs: "".join(f"{k}: {v}\n" for k, v in pairs))
block = st.sampled_from(["k: |\n  line\n  two\n", "k: >\n  folded\n  text\n", "k:\n  - 1\n  - [2, {x: y}]\n"])


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts, block, st.text(alphabet="ab:-[]{}'\"#&*!|>\n 0.1", max_size=40)))
def test_the_fast_path_reads_what_the_round_trip_reads(text: str) -> None:
    read, data = fast(text)
    accepted, tree = round_trip(text)
    if read:
        assert accepted, f"the fast path took what the round-trip loader refuses: {text!r}"
        assert plain(data) == plain(tree)
        assert_located_alike(text)


@pytest.mark.parametrize(
    "text",
    ["a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: !t 1\n", "<<: {a: 1}\n", f"a: {'1' * 41}\n", "a: \u2028b\n", "[" * 40],
)
def test_refused_texts_go_the_round_trip_way(text: str) -> None:
    assert fast(text) == (False, None)


def test_dates_stay_source_text() -> None:
    read, data = fast("d: 2026-08-27\nt: '2026-08-27'\n")
    assert read
    assert type(data["d"]) is store.PlainDate
    assert data == {"d": "2026-08-27", "t": "2026-08-27"}


def problems_of(text: str, *, round_trip_only: bool) -> list[str]:
    """What `parse_model` reports for `text`; with `round_trip_only`, as if the C parser declined it."""
    with pytest.MonkeyPatch.context() as patch:
        if round_trip_only:
            patch.setattr(store, "load_data", lambda *args, **kwargs: (False, None))
        with pytest.raises(InputError) as refused:
            store.parse_model(text, "s.yaml", Snapshot)
    return [str(problem) for problem in refused.value.problems]


_SMALL_DATA = fast(SMALL_SNAPSHOT.format(style=" old value"))[1]
_NOT_VALID: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.booleans(), st.integers(), st.lists(st.integers(), max_size=2), st.builds(dict, k=st.just(1))
)


@st.composite
def invalid_snapshots(draw: st.DrawFn) -> str:
    """The small snapshot with a handful of keys added, dropped or given a value of the wrong type,
    anywhere in it: text the C parser reads and the model refuses."""
    data = _SMALL_DATA
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p in every_path(data) if p]
        path = draw(st.sampled_from(places))
        change = draw(st.sampled_from(["wrong", "unknown", "drop"]))
        parent = value_at(data, path[:-1])
        if change == "unknown" and isinstance(parent, dict):
            path = (*path[:-1], draw(st.sampled_from(["bogus", "Name", "id "])))
        if change == "drop" and isinstance(parent, dict):
            data = _set(data, path[:-1], {k: v for k, v in parent.items() if k != path[-1]})
        else:
            data = _set(data, path, draw(_NOT_VALID))
    return store.dump_tree(data)


_SMALL_LINES = SMALL_SNAPSHOT.format(style=" old value").splitlines(keepends=True)
_KEYED = [i for i, line in enumerate(_SMALL_LINES) if ":" in line and not line.lstrip().startswith("#")]
_WRONG_TEXT = ["[1, 2]", "{k: 1}", "{id: x, name: y}", "2026-01-01", "'quoted'", "", "12", "true", "~", "|\n  a\n"]


@st.composite
def edited_snapshots(draw: st.DrawFn) -> str:
    """The small snapshot's own text (comments, flow lists, dates) with a line or two edited: a value
    written otherwise, a key added beside one (unknown, quoted or not text), or a line dropped."""
    lines = list(_SMALL_LINES)
    for at in sorted(draw(st.lists(st.sampled_from(_KEYED), min_size=1, max_size=2, unique=True)), reverse=True):
        line = lines[at]
        indent = line[: len(line) - len(line.lstrip(" -"))].replace("-", " ")
        change = draw(st.sampled_from(["value", "key", "drop"]))
        if change == "value":
            lines[at] = line[: line.index(":") + 1] + " " + draw(st.sampled_from(_WRONG_TEXT)) + "\n"
        elif change == "key":
            key = draw(st.sampled_from(["bogus", '"quoted"', "1", "2026-01-01", "null", "id"]))
            lines.insert(at + 1, f"{indent}{key}: {draw(st.sampled_from(_WRONG_TEXT[:4]))}\n")
        else:
            del lines[at]
    return "".join(lines)


@settings(max_examples=examples(100, bounded=15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(invalid_snapshots(), edited_snapshots()))
def test_a_refused_snapshot_is_located_alike_on_both_paths(text: str) -> None:
    """Model problems in text the C parser reads are located with its marks, at the places (and
    under the names) the round-trip tree gives them."""
    read, data = fast(text)
    if not read or not isinstance(data, dict):
        return  # left to the round-trip loader either way
    try:
        Snapshot.model_validate(data)
    except ValidationError:
        pass
    else:
        return  # the change happened to leave it valid
    assert problems_of(text, round_trip_only=False) == problems_of(text, round_trip_only=True)


def test_a_refused_snapshot_read_by_the_c_parser_builds_no_round_trip_tree() -> None:
    text = SMALL_SNAPSHOT.format(style=" old value").replace("  - id: ", "  - bogus: 1\n    id: ", 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "parse_tree", lambda *args: pytest.fail("the round-trip tree was built"))
        with pytest.raises(InputError) as refused:
            store.parse_model(text, "s.yaml", Snapshot)
    assert [str(p) for p in refused.value.problems] == ['s.yaml:6:5: current constraint "c1": bogus: unknown key']
