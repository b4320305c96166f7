"""Upstream's lever graph as perfbot's levers (`bot.upstream.lever_graph`): what is kept, what is listed as
dropped, the same ready arms as upstream's rule, and every refusal at its place."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.snapshot.levers import ready_levers
from bot.snapshot.model import Lever
from bot.snapshot.sections import LeverEffect
from bot.upstream.lever_graph import GRAPH_SCHEMA, dropped, read_graph
from tests.support.property_budget import examples
from tests.unit.upstream.reading import refusals, through

FILE = "graph.json"


def upstream_lever(ident: str, **changes: Any) -> dict[str, Any]:
    """A lever as `fak native-performance --json` writes it."""
    lever: dict[str, Any] = {
        "id": ident,
        "name": ident,
        "applicability": {"envelope_id": "env", "platform": "darwin/arm64", "backend": "metal"},
        "enabled": False,
        "status": "absent",
        "dependency_ids": None,
        "conflict_ids": None,
        "expected": {"summary": "s", "classification": "hypothesis", "provenance": "p"},
        "witnessed": None,
        "owning_issue": {"number": 1, "url": "https://example.invalid/1"},
        "next_witness": "n",
    }
    lever.update(changes)
    return lever


def read(graph: dict[str, Any]) -> tuple[tuple[Lever, ...], list[str]]:
    return through(read_graph, graph, FILE)


def refused(graph: dict[str, Any]) -> list[str]:
    return refusals(read_graph, graph, FILE)


def test_what_perfbot_models_is_kept_and_null_lists_read_as_empty() -> None:
    witness = {"summary": "w", "classification": "witnessed", "provenance": "p", "receipt": "r"}
    levers, _ = read(
        {
            "levers": [
                upstream_lever("a", enabled=True, status="present", witnessed=witness),
                upstream_lever("b", dependency_ids=["a"], conflict_ids=["c"], applicability={"envelope_id": "e2"}),
                upstream_lever("c", dependency_ids=[], conflict_ids=["b"]),
            ]
        }
    )
    expected = LeverEffect(summary="s", classification="hypothesis", provenance="p")
    assert levers == (
        Lever(
            id="a",
            envelope_id="env",
            enabled=True,
            witnessed=True,
            status="present",
            expected=expected,
            witness=LeverEffect(summary="w", classification="witnessed", provenance="p", receipt="r"),
        ),
        Lever(id="b", envelope_id="e2", dependency_ids=("a",), conflict_ids=("c",), status="absent", expected=expected),
        Lever(id="c", envelope_id="env", conflict_ids=("b",), status="absent", expected=expected),
    )


def test_every_field_not_kept_is_listed_with_how_many_levers_carry_it() -> None:
    witness = {"summary": "w", "classification": "witnessed", "provenance": "", "receipt": "r"}
    graph = {
        "schema": GRAPH_SCHEMA,
        "envelopes": [{"id": "env"}],
        "rungs": None,
        "levers": [
            upstream_lever("a", witnessed=witness, next_witness=""),
            upstream_lever("b", name="", status=None, expected=None, owning_issue={"number": 0, "url": ""}),
        ],
    }
    assert read(graph)[1] == [
        "envelopes",
        "levers[].name (1)",
        "levers[].applicability.platform (2)",
        "levers[].applicability.backend (2)",
        "levers[].owning_issue.number (2)",
        "levers[].owning_issue.url (1)",
        "levers[].next_witness (1)",
    ]


def test_a_lever_of_only_what_perfbot_keeps_drops_nothing() -> None:
    lean = {"id": "a", "applicability": {"envelope_id": "env"}, "enabled": True, "dependency_ids": ["b"]}
    assert dropped({"levers": [lean, {"id": "b", "enabled": False, "witnessed": None}]}) == []
    assert dropped({"levers": None}) == []


@st.composite
def graphs(draw: st.DrawFn) -> list[dict[str, Any]]:
    idents = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=8, unique=True))
    witness = {"summary": "w", "classification": "witnessed", "provenance": "p", "receipt": "r"}
    return [
        upstream_lever(
            ident,
            enabled=draw(st.booleans()),
            status=None,
            witnessed=witness if draw(st.booleans()) else None,
            dependency_ids=draw(st.none() | st.lists(st.sampled_from(idents), max_size=3, unique=True)),
        )
        for ident in idents
    ]


def upstream_ready(levers: list[dict[str, Any]]) -> list[str]:
    """Upstream's `ReadyLevers`, on upstream's own fields: not enabled, a null witness, and every
    dependency an enabled lever."""
    enabled = {lever["id"] for lever in levers if lever["enabled"]}
    return [
        lever["id"]
        for lever in levers
        if not lever["enabled"]
        and lever["witnessed"] is None
        and all(d in enabled for d in lever["dependency_ids"] or ())
    ]


@settings(max_examples=examples(500))
@given(graphs())
def test_the_ready_arms_are_upstreams(levers: list[dict[str, Any]]) -> None:
    assert ready_levers(read({"levers": levers})[0]) == upstream_ready(levers)


@pytest.mark.parametrize("schema", ["fak-native-performance-graph/v1", "", 2])
def test_a_graph_of_another_schema_is_refused_at_its_schema(schema: object) -> None:
    shown = repr(schema) if isinstance(schema, str) else str(schema)
    assert refused({"schema": schema, "levers": [upstream_lever("a")]}) == [
        f"{FILE}:2:3: schema: {shown} is not upstream's lever graph ({GRAPH_SCHEMA})"
    ]


def test_a_graph_without_levers_and_a_lever_without_what_perfbot_needs() -> None:
    assert refused({"schema": GRAPH_SCHEMA}) == [f"{FILE}:1:1: levers: required key is missing"]
    lean = {"id": "a", "applicability": {"platform": "x"}}
    assert refused({"levers": [lean]}) == [  # a missing key where its object starts
        f'{FILE}:3:5: lever "a": enabled: required key is missing',
        f'{FILE}:5:7: lever "a": applicability.envelope_id: required key is missing',
    ]


def test_an_unknown_key_is_refused_where_it_is() -> None:
    assert refused({"levers": [upstream_lever("a", colour="red")], "extra": 1}) == [
        f'{FILE}:26:7: lever "a": colour: unknown key',
        f"{FILE}:29:3: extra: unknown key",
    ]
    applicability = {"envelope_id": "env", "gpu": "m3"}
    assert refused({"levers": [upstream_lever("a", applicability=applicability)]}) == [
        f'{FILE}:8:9: lever "a": applicability.gpu: unknown key'
    ]


def test_a_witness_that_is_not_an_object_and_a_status_upstream_lacks_are_refused() -> None:
    found = refused({"levers": [upstream_lever("a", witnessed=True), upstream_lever("b", status="on")]})
    assert [p.split(": ", 1)[1] for p in found] == [
        'lever "a": witnessed: Input should be a valid dictionary or instance of _Effect',
        "lever \"b\": status: Input should be 'present', 'partial' or 'absent'",
    ]


def test_a_status_that_contradicts_enabled_is_refused_as_upstream_refuses_it() -> None:
    graph = {
        "levers": [
            upstream_lever("on", enabled=True, status="absent"),
            upstream_lever("off", status="present"),
            upstream_lever("fine", enabled=True, status="partial"),
            upstream_lever("also", status="partial"),
        ]
    }
    assert refused(graph) == [
        f"{FILE}:12:7: lever 'on' is enabled but its status is absent",
        f"{FILE}:36:7: lever 'off' is not enabled but its status is present",
    ]
