"""The lever graph: readiness, grouping by envelope, every structural finding, and cycle search."""

from __future__ import annotations

import pytest

from bot.snapshot.fields import Finding
from bot.snapshot.levers import find_cycle, graph_findings, ready_by_envelope, ready_levers
from bot.snapshot.model import Lever
from bot.snapshot.sections import LeverEffect


def lever(
    ident: str,
    envelope: str = "e",
    *,
    on: bool = False,
    witnessed: bool = False,
    deps: tuple[str, ...] = (),
    conflicts: tuple[str, ...] = (),
) -> Lever:
    return Lever(
        id=ident, envelope_id=envelope, enabled=on, witnessed=witnessed, dependency_ids=deps, conflict_ids=conflicts
    )


def test_ready_levers_are_off_unwitnessed_with_every_dependency_enabled_in_graph_order() -> None:
    levers = [
        lever("z"),
        lever("base", on=True),
        lever("after-base", deps=("base",)),
        lever("after-off", deps=("z",)),
        lever("after-both", deps=("base", "z")),
        lever("seen", witnessed=True),
        lever("a"),
    ]
    assert ready_levers(levers) == ["z", "after-base", "a"]
    assert ready_levers(iter(levers)) == ["z", "after-base", "a"]  # any iterable, read once


def test_conflicts_do_not_affect_readiness() -> None:
    assert ready_levers([lever("a", conflicts=("b",)), lever("b", on=True, conflicts=("a",))]) == ["a"]


def test_ready_levers_grouped_by_envelope_in_graph_order() -> None:
    levers = [lever("m2", "metal"), lever("c1", "cuda"), lever("on", "cuda", on=True), lever("m1", "metal")]
    grouped = ready_by_envelope(iter(levers))
    assert grouped == {"metal": ["m2", "m1"], "cuda": ["c1"]}
    assert list(grouped) == ["metal", "cuda"]


def findings(*levers: Lever) -> list[Finding]:
    return list(graph_findings(levers))


def test_a_sound_graph_has_no_findings() -> None:
    sound = (lever("a", conflicts=("b",)), lever("b", conflicts=("a",)), lever("c", deps=("a", "b")), lever("d", "f"))
    assert findings(*sound) == []


@pytest.mark.parametrize("ident", ["", "  "])
def test_an_empty_id_is_reported_at_the_lever(ident: str) -> None:
    assert findings(lever("a"), lever(ident)) == [Finding(("levers", 1, "id"), f"lever {ident!r} has an empty id")]
    assert findings(lever(ident), lever("a"), lever(ident)) == [
        Finding(("levers", 0, "id"), f"lever {ident!r} has an empty id"),
        Finding(("levers", 2, "id"), f"lever {ident!r} has an empty id"),
    ]


def test_a_duplicate_id_is_reported_at_the_second_lever_and_the_first_one_counts() -> None:
    found = findings(lever("a", "e1"), lever("b", "e1", deps=("a",)), lever("a", "e2"))
    assert found == [Finding(("levers", 2, "id"), "duplicate lever id 'a'")]


def test_a_duplicate_id_is_one_problem_naming_the_id_and_nothing_follows_from_it() -> None:
    # A lever copied to make the next one, its id left unchanged: the copy depends on the original
    # (a self-reference and a cycle, read as written) and conflicts with a lever that does not
    # name it back. Only the repeated id is reported, once however often it repeats.
    found = findings(
        lever("a", conflicts=("c",)),
        lever("a", deps=("a",), conflicts=("c",)),
        lever("c", conflicts=("a",)),
        lever("a", "other", deps=("a", "a", "ghost")),
    )
    assert found == [Finding(("levers", 1, "id"), "duplicate lever id 'a'")]


def test_beside_a_duplicate_id_the_other_levers_are_still_checked() -> None:
    found = findings(
        lever("a"), lever("a"), lever("b", deps=("ghost",)), lever("x", deps=("y",)), lever("y", deps=("x",))
    )
    assert found == [
        Finding(("levers", 1, "id"), "duplicate lever id 'a'"),
        Finding(("levers", 2, "dependency_ids", 0), "lever 'b' references unknown lever 'ghost'"),
        Finding(("levers", 3, "dependency_ids"), "lever dependency cycle: x -> y -> x"),
    ]


def test_references_to_a_repeated_id_mean_its_first_lever() -> None:
    # The repeat is in another envelope and names no conflict: read as the lever `b` and `c` mean,
    # `c`'s edge would cross envelopes and `b`'s conflict would not be returned.
    found = findings(
        lever("a", conflicts=("b",)), lever("b", conflicts=("a",)), lever("c", deps=("a",)), lever("a", "other")
    )
    assert found == [Finding(("levers", 3, "id"), "duplicate lever id 'a'")]


@pytest.mark.parametrize("envelope", ["", " "])
def test_a_blank_envelope_is_reported(envelope: str) -> None:
    assert findings(lever("a"), lever("b", envelope)) == [
        Finding(("levers", 1, "envelope_id"), "lever 'b' has no envelope")
    ]


def test_a_repeated_reference_is_reported_once_per_repeat_across_both_lists() -> None:
    found = findings(
        lever("a", deps=("b", "b"), conflicts=("b",)),
        lever("b", conflicts=("a",)),
    )
    assert found == [
        Finding(("levers", 0, "dependency_ids", 1), "lever 'a' repeats dependency/conflict reference 'b'"),
        Finding(("levers", 0, "conflict_ids", 0), "lever 'a' repeats dependency/conflict reference 'b'"),
    ]


def test_unknown_and_self_references_are_reported() -> None:
    assert findings(lever("a", deps=("b", "nope")), lever("b")) == [
        Finding(("levers", 0, "dependency_ids", 1), "lever 'a' references unknown lever 'nope'")
    ]
    assert findings(lever("a", conflicts=("a",)), lever("b")) == [
        Finding(("levers", 0, "conflict_ids", 0), "lever 'a' references unknown lever 'a'")
    ]


def test_a_cross_envelope_edge_is_reported() -> None:
    assert findings(lever("a", "metal"), lever("b", "cuda", deps=("a",))) == [
        Finding(("levers", 1, "dependency_ids", 0), "lever 'b' has a cross-envelope edge to 'a'")
    ]


def test_an_asymmetric_conflict_is_reported_on_the_side_that_names_it() -> None:
    assert findings(lever("a"), lever("b", conflicts=("a",))) == [
        Finding(("levers", 1, "conflict_ids", 0), "lever conflict 'b' -> 'a' is not symmetric")
    ]


def test_two_conflicting_levers_both_enabled_are_reported_once_at_the_first_by_id() -> None:
    pair = (lever("b", on=True, conflicts=("a",)), lever("a", on=True, conflicts=("b",)))
    assert findings(*pair) == [
        Finding(("levers", 1, "conflict_ids", 0), "conflicting levers 'a' and 'b' are both enabled")
    ]
    assert findings(lever("a", on=True, conflicts=("b",)), lever("b", conflicts=("a",))) == []
    assert findings(lever("a", conflicts=("b",)), lever("b", on=True, conflicts=("a",))) == []


def test_a_dependency_is_not_a_conflict() -> None:
    assert findings(lever("a", on=True), lever("b", on=True, deps=("a",))) == []


def test_a_cycle_is_reported_at_its_first_lever() -> None:
    found = findings(lever("x"), lever("a", deps=("b",)), lever("b", deps=("a",)))
    assert found == [Finding(("levers", 1, "dependency_ids"), "lever dependency cycle: a -> b -> a")]


def test_no_cycle_in_a_diamond() -> None:
    # Regression (#14): without leaving the path on the way back, d looked like a cycle from c.
    assert find_cycle({"a": ("b", "c"), "b": ("d",), "c": ("d",), "d": ()}) == []


def test_a_cycle_reached_only_through_a_second_dependency() -> None:
    # Regression (#14): without dropping a finished node's list, c was never visited from a.
    assert find_cycle({"a": ("b", "c"), "b": (), "c": ("a",)}) == ["a", "c", "a"]


@pytest.mark.parametrize(
    ("edges", "cycle"),
    [
        ({}, []),
        ({"a": ("a",)}, ["a", "a"]),
        ({"a": ("b",), "b": ("c",), "c": ("b",)}, ["b", "c", "b"]),
        # A cycle in a later component, after a root that was explored already.
        ({"a": ("b",), "b": (), "c": ("d",), "d": ("c",)}, ["c", "d", "c"]),
        # Nodes outside the graph are not followed.
        ({"a": ("ghost", "b"), "b": ()}, []),
        # A finished node reached again is not a cycle; the cycle after it is still found.
        ({"a": ("b", "c"), "b": (), "c": ("b", "d"), "d": ("c",)}, ["c", "d", "c"]),
    ],
)
def test_find_cycle(edges: dict[str, tuple[str, ...]], cycle: list[str]) -> None:
    assert find_cycle(edges) == cycle


def test_a_long_chain_does_not_exhaust_the_stack() -> None:
    size = 5000
    chain: dict[str, tuple[str, ...]] = {f"n{i}": (f"n{i + 1}",) for i in range(size)}
    chain[f"n{size}"] = ("n0",)
    cycle = find_cycle(chain)
    assert (len(cycle), cycle[0], cycle[-1]) == (size + 2, "n0", "n0")


HYPOTHESIS = LeverEffect(summary="s", classification="hypothesis", provenance="p")
WITNESSED = LeverEffect(summary="s", classification="witnessed", provenance="p", receipt="r")


def stated(**fields: object) -> Lever:
    return Lever.model_validate({"id": "a", "envelope_id": "e", **fields})


def test_upstreams_states_and_effects_that_agree_have_no_findings() -> None:
    assert (
        findings(stated(enabled=True, witnessed=True, status="present", expected=HYPOTHESIS, witness=WITNESSED)) == []
    )
    assert findings(stated(status="partial", expected=HYPOTHESIS), stated(id="b", status="absent")) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"enabled": True, "status": "absent"},
            [(("levers", 0, "status"), "lever 'a' is enabled but its status is absent")],
        ),
        ({"status": "present"}, [(("levers", 0, "status"), "lever 'a' is not enabled but its status is present")]),
        (
            {"expected": WITNESSED},
            [
                (
                    ("levers", 0, "expected", "classification"),
                    "lever 'a' expected effect must be a hypothesis; witnessed evidence belongs in witness",
                )
            ],
        ),
        (
            {"witnessed": True, "witness": HYPOTHESIS.model_copy(update={"receipt": "r"})},
            [
                (
                    ("levers", 0, "witness", "classification"),
                    "lever 'a' witness must be witnessed; projections belong in expected",
                )
            ],
        ),
        (
            {"expected": HYPOTHESIS.model_copy(update={"summary": " "})},
            [(("levers", 0, "expected", "summary"), "lever 'a' expected has no summary")],
        ),
        (
            {"witnessed": True, "witness": WITNESSED.model_copy(update={"receipt": ""})},
            [(("levers", 0, "witness", "receipt"), "lever 'a' witness has no receipt")],
        ),
        ({"witness": WITNESSED}, [(("levers", 0, "witnessed"), "lever 'a' has a witness but is not witnessed")]),
    ],
)
def test_each_state_and_effect_upstream_refuses_is_one_finding(
    fields: dict[str, object], expected: list[tuple[object, str]]
) -> None:
    assert [(f.loc, f.message) for f in findings(stated(**fields))] == expected
