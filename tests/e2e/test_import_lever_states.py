"""Upstream's lever states survive `perfbot import` (issue #40): each lever's status (present,
partial, absent) and its expected and witnessed effects are kept in the snapshot, held to
upstream's checks (a status that contradicts `enabled`, an expectation and a witness mixed up,
upstream issue #8738), shown by `perfbot graph`, and the page stays upstream's byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.snapshot.store import load_snapshot
from tests.e2e.test_import import CURRENT, GRAPH, PAGE, WRITTEN_PAGE, config, edited, run_import, tree
from tests.support import mermaid_grammar

PARTIAL = ("metal.command-buffer-amortization", "metal.fused-hybrid-graph-coverage")


def as_upstream(data: dict[str, Any]) -> None:
    """Upstream's graph as its page describes it: levers 2 and 3 are partial."""
    for lever in data["levers"]:
        if lever["id"] in PARTIAL:
            lever["status"] = "partial"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "fak"
    path.mkdir()
    return path


def test_every_partial_lever_still_says_so_and_the_page_is_upstreams(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = edited(tmp_path, GRAPH, as_upstream)
    assert run_import(repo, CURRENT, graph) == 0
    out = capsys.readouterr().out
    for kept in ("status", "expected", "witnessed"):
        assert kept not in out
    levers = load_snapshot(repo / "config" / "snapshot.yaml").model.levers
    upstream = json.loads(graph.read_text(encoding="utf-8"))["levers"]
    assert [(lever.id, lever.status) for lever in levers] == [(u["id"], u["status"]) for u in upstream]
    assert [lever.id for lever in levers if lever.status == "partial"] == list(PARTIAL)
    for lever, source in zip(levers, upstream, strict=True):
        assert lever.expected is not None
        assert lever.expected.model_dump() == source["expected"] | {"receipt": ""}
        assert (lever.witness.model_dump() if lever.witness else None) == source["witnessed"]
    assert (repo / WRITTEN_PAGE).read_bytes() == PAGE.read_bytes()
    assert main(["render", "--check", "--config", config(repo)]) == 0
    assert main(["validate", "--config", config(repo)]) == 0


def test_perfbot_graph_shows_each_levers_state(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_import(repo, CURRENT, edited(tmp_path, GRAPH, as_upstream)) == 0
    (repo / "leases.json").write_text("[]\n", encoding="utf-8")
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"repository": "o/r", "bot_login": "perfbot[bot]"}), encoding="utf-8")
    capsys.readouterr()
    base = ["graph", "--config", config(repo), "--offline", str(state), "--leases", str(repo / "leases.json")]
    assert main([*base, "--now", "2026-08-27T12:00:00Z"]) == 0, capsys.readouterr().err
    chart = mermaid_grammar.parse(capsys.readouterr().out)
    shown = {mermaid_grammar.decode(label) for key, label in chart.nodes.items() if key.startswith("l")}
    assert "metal.command-buffer-amortization<br/>partial" in shown
    assert "metal.fused-hybrid-graph-coverage<br/>partial" in shown
    assert "metal.resident-q4k-weights<br/>present / enabled / witnessed" in shown
    assert "cuda.scalar-f32-activation-baseline<br/>present / enabled" in shown
    assert len(shown) == 12
    assert main([*base, "--now", "2026-08-27T12:00:00Z", "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    assert 'l2 [label="metal.command-buffer-amortization\\npartial"' in dot
    assert 'l1 -> l2 [label="depends"];' in dot


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            lambda lever: lever["expected"].update(classification="witnessed"),
            "classification",
            "expected effect must be a hypothesis; witnessed evidence belongs in witness",
        ),
        (
            lambda lever: lever.update(
                witnessed={"summary": "s", "classification": "hypothesis", "provenance": "p", "receipt": "r"}
            ),
            "classification",
            "witness must be witnessed; projections belong in expected",
        ),
        (lambda lever: lever["expected"].update(provenance=""), "provenance", "expected has no provenance"),
    ],
)
def test_an_expectation_and_a_witness_mixed_up_are_refused_where_they_are(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str], change: Any, field: str, message: str
) -> None:
    def mixed(data: dict[str, Any]) -> None:
        change(data["levers"][3])

    graph = edited(tmp_path, GRAPH, mixed)
    assert run_import(repo, CURRENT, graph) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"{graph}:")
    assert f"lever 'metal.paged-kv' {message}" in line
    text = graph.read_text(encoding="utf-8").splitlines()
    at = int(line.split(":")[1])
    assert f'"{field}"' in text[at - 1]
    assert tree(repo) == {}


def test_an_unknown_key_in_a_lever_effect_is_still_refused(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = edited(tmp_path, GRAPH, lambda data: data["levers"][0]["witnessed"].update(colour="red"))
    assert run_import(repo, CURRENT, graph) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith('lever "metal.resident-q4k-weights": witnessed.colour: unknown key')
    assert tree(repo) == {}
