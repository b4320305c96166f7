"""The work-packet graph: counted from the model, quoted against hostile text, shown where promised."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.config import LeaseRules, Settings
from bot.evidence.derive import Derivation
from bot.evidence.leases import Lease, parse_leases
from bot.evidence.packet_graph import build, lease_notes, of_derivations, of_run
from bot.github.observed import Observed
from bot.reconcile import gather
from bot.reconcile.view import changed_graph, view
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from bot.untrusted import dot_line, dot_text, graph_line, mermaid_text
from tests.support import mermaid_grammar
from tests.support.harness import Repo, pull
from tests.support.paths import ROOT
from tests.support.property_budget import examples

SEED_DAY = "2026-08-27T12:00:00Z"
HOSTILE = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "`", "#", ";", "<", ">", "&", "\\", "\n", "%", ":", "|", "[", "]", "{", "}"]),
        st.sampled_from(["end", "-->", "%%", "#quot;", "style:#1;", "<br/>", "ﬂ°°", "¶ß", "\ud800", "\x00", "\u2028"]),
    ),
    max_size=12,
).map("".join)


@pytest.fixture(scope="module")
def seed_leases() -> tuple[Lease, ...]:
    path = ROOT / "config" / "leases.json"
    return parse_leases(path.read_text(encoding="utf-8"), str(path)).live


def model_edges(snapshot: Snapshot) -> set[tuple[str, str, str]]:
    """Every hard dependency, `blocked_by` and satisfied dependency, counted from the model."""
    return {
        (source, packet.id, kind)
        for packet in snapshot.work_packets
        for kind, sources in (
            ("hard", packet.hard_dependency_ids),
            ("blocked-by", packet.blocked_by_ids),
            ("satisfied", packet.satisfied_dependency_ids),
        )
        for source in sources
    }


def test_the_seed_graph_has_every_packet_in_its_program_and_every_edge(seed: Snapshot) -> None:
    graph = build(seed)
    assert len(graph.nodes) == len(seed.work_packets) == 17
    assert len(graph.groups) == len(seed.programs) == 4
    for group in graph.groups:
        assert {n.packet.id for n in group.nodes} == {
            p.id for p in seed.work_packets if p.program_id == group.program.id
        }
    ids = {n.key: n.packet.id for n in graph.nodes}
    drawn = {(ids[e.source], ids[e.target], e.kind) for e in graph.edges}
    assert len(graph.edges) == len(drawn) == len(model_edges(seed))
    assert drawn == model_edges(seed)
    assert sum(len(p.hard_dependency_ids) for p in seed.work_packets) == 20
    assert [(ids[e.source], ids[e.target]) for e in graph.edges if e.kind == "blocked-by"] == [
        ("cuda.cache-weight-residency", "cuda.q8_1-numerical-gate")
    ]


def test_the_mermaid_text_reads_back_as_the_same_graph(
    seed: Snapshot, seed_leases: tuple[Lease, ...], renderer: Renderer
) -> None:
    graph = build(seed, leases=seed_leases, rules=LeaseRules(), changed=["mac.m2-whole-sequence-prefill"])
    chart = mermaid_grammar.parse(renderer.graph(graph, "mermaid"))
    assert len(chart.nodes) == 17
    assert len(chart.groups) == 4
    ids = {key: mermaid_grammar.decode(label.split("<br/>")[0]) for key, label in chart.nodes.items()}
    solid = {(ids[a], ids[b]) for a, arrow, b in chart.edges if arrow == "-->"}
    assert solid == {(a, b) for a, b, kind in model_edges(seed) if kind == "hard"}
    dashed = [i for i, (_, arrow, _) in enumerate(chart.edges) if arrow == "-.->"]
    assert chart.link_styles == [(dashed, chart.link_styles[0][1])]
    assert "stroke-dasharray:8 4" in chart.link_styles[0][1]
    by_id = {ids[k]: k for k in ids}
    assert chart.styled == [by_id["mac.m2-whole-sequence-prefill"]]
    assert chart.classes[by_id["mac.m5-exact-p32t64-receipt"]] == "hold"
    assert chart.classes[by_id["cuda.q8_1-numerical-gate"]] == "waiting"
    assert chart.classes[by_id["profile.real-cuda"]] == "ready"
    gate = mermaid_grammar.decode(chart.nodes[by_id["cuda.q8_1-numerical-gate"]])
    assert (
        gate
        == "cuda.q8_1-numerical-gate<br/>waiting-coordination - #8635<br/>lease of issue-9420-cache-weight-residency (compute)"
    )


def test_lease_notes_name_foreign_holders_only(seed: Snapshot, seed_leases: tuple[Lease, ...]) -> None:
    notes = lease_notes(seed, seed_leases, LeaseRules())
    assert "cuda.cache-weight-residency" not in notes  # its own leases
    assert [(n.holder, n.lanes) for n in notes["mac.m4-coarse-resident-decode"]] == [
        ("issue-9420-cache-weight-residency", ("model", "compute"))
    ]
    assert "mac.m1-streamed-q4k-no-copy" not in notes  # docs/_witnesses/** overlaps neither tree
    assert lease_notes(seed, (), LeaseRules()) == {}


@settings(max_examples=examples(150), deadline=None)
@given(text=HOSTILE)
def test_mermaid_quoting_round_trips_hostile_text(text: str) -> None:
    quoted = mermaid_text(text)
    assert re.fullmatch(r"(?:[A-Za-z0-9 _.,/+*()\-]|#[0-9]+;)*", quoted)
    assert mermaid_grammar.decode(quoted) == graph_line(text)


@settings(max_examples=examples(150), deadline=None)
@given(text=HOSTILE)
def test_dot_quoting_round_trips_hostile_text(text: str) -> None:
    quoted = dot_text(text)
    assert re.fullmatch(r'(?:[^"\\\n\r]|\\.)*', quoted)
    assert re.sub(r"\\(.)", r"\1", quoted) == dot_line(text)
    assert "##[" not in quoted
    assert not re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", quoted)
    quoted.encode("utf-8")


@settings(max_examples=examples(25), deadline=None)
@given(ids=st.lists(HOSTILE, min_size=17, max_size=17, unique=True), names=st.lists(HOSTILE, min_size=4, max_size=4))
def test_hostile_ids_and_names_never_break_the_mermaid(
    seed: Snapshot, renderer: Renderer, ids: list[str], names: list[str]
) -> None:
    rename = dict(zip((p.id for p in seed.work_packets), ids, strict=True))
    packets = tuple(
        p.model_copy(
            update={
                "id": rename[p.id],
                "hard_dependency_ids": tuple(rename[d] for d in p.hard_dependency_ids),
                "blocked_by_ids": tuple(rename[d] for d in p.blocked_by_ids),
            }
        )
        for p in seed.work_packets
    )
    programs = tuple(p.model_copy(update={"name": n}) for p, n in zip(seed.programs, names, strict=True))
    hostile = seed.model_copy(update={"work_packets": packets, "programs": programs})
    # A lease file cannot carry a lone surrogate (the reader refuses it); the snapshot's text can.
    lane, holder = (n.encode("utf-8", "replace").decode("utf-8") for n in names[:2])
    lease = Lease(lane=lane or "l", loop_ts="t", holder=holder or "h", tree=("internal/**",))
    graph = build(hostile, changed=[ids[0]], leases=[lease], rules=LeaseRules(holder_issue_pattern="never-([0-9]+)"))
    chart = mermaid_grammar.parse(renderer.graph(graph, "mermaid"))
    shown = [mermaid_grammar.decode(label.split("<br/>")[0]) for label in chart.nodes.values()]
    assert sorted(shown) == sorted(graph_line(i) for i in ids)
    assert len(chart.edges) == len(model_edges(seed))
    dot = renderer.graph(graph, "dot")
    assert dot.count("\n") == renderer.graph(build(seed), "dot").count("\n")


def test_of_run_outlines_changed_states_and_is_none_without_changes(
    sandbox: Repo,
    settings: Settings,
    seed: Snapshot,
    seed_leases: tuple[Lease, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = sandbox.reconcile(capsys, "--now", SEED_DAY, dry_run=True)
    derivations = [Derivation.model_validate(p) for p in plan["packets"]]
    assert of_run(seed, derivations, seed_leases, LeaseRules()) is None
    assert of_derivations(seed, derivations, seed_leases, LeaseRules()).changed == ()
    moved = [
        d.model_copy(update={"derived_state": "ready"}) if d.id.endswith("q8_1-numerical-gate") else d
        for d in derivations
    ]
    graph = of_run(seed, moved, seed_leases, LeaseRules())
    assert graph is not None
    assert [(n.packet.id, n.state) for n in graph.changed] == [("cuda.q8_1-numerical-gate", "ready")]


def test_the_pr_body_shows_the_graph_when_a_state_changes(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pull(sandbox.reconcile(capsys, "--now", SEED_DAY, dry_run=True))["operation"] == "none"
    empty = tmp_path / "none.json"
    empty.write_text("[]", encoding="utf-8")
    body = pull(sandbox.reconcile(capsys, "--now", SEED_DAY, "--leases", str(empty), dry_run=True))["body"]
    block = body.split("```mermaid\n", 1)[1].split("```", 1)[0]
    chart = mermaid_grammar.parse(block)
    ids = {mermaid_grammar.decode(label.split("<br/>")[0]): key for key, label in chart.nodes.items()}
    assert sorted(chart.styled) == sorted([ids["cuda.q8_1-numerical-gate"], ids["cuda.cache-weight-residency"]])
    assert body.index("## Changes") < body.index("## Dependency graph") < body.index("## Evidence")


def test_a_graph_too_large_to_draw_is_a_note(seed: Snapshot, renderer: Renderer) -> None:
    packets = tuple(
        p.model_copy(update={"id": f"{p.id}.{i}", "program_id": p.program_id, "hard_dependency_ids": ()})
        for i in range(40)
        for p in seed.work_packets
    )
    big = build(seed.model_copy(update={"work_packets": packets}))
    assert len(renderer.graph(big, "mermaid")) > 50_000
    note = renderer.mermaid_block(big)
    assert "```mermaid" not in note
    assert "680 packets" in note
    assert renderer.mermaid_block(None) == ""


def test_the_page_section_is_off_by_default_and_sits_under_the_packets(
    settings: Settings, seed: Snapshot, renderer: Renderer
) -> None:
    text = settings.config.page_text
    assert text.dependency_graph is False
    off = renderer.page(seed, text)
    assert off == (ROOT / "docs" / "current-constraints.md").read_text(encoding="utf-8")
    on = renderer.page(seed, text.model_copy(update={"dependency_graph": True}))
    start = on.index("\n### Work packet dependencies\n")
    end = on.index("\n## Graph-dependency-ready arms and collisions\n")
    assert on[:start] + on[end:] == off
    assert on.rindex("| 3 / `profile.returned-receipt-gate`", 0, start) > on.index("| # / packet |")
    chart = mermaid_grammar.parse(on[start:end].split("```mermaid\n", 1)[1].split("```", 1)[0])
    assert len(chart.nodes) == 17
    assert chart.styled == []


def test_perfbot_graph_prints_mermaid_and_dot(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["graph", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", SEED_DAY]
    assert main(base) == 0
    chart = mermaid_grammar.parse(capsys.readouterr().out)
    assert (len(chart.nodes), len(chart.groups), len(chart.edges)) == (17, 4, 21)
    assert main([*base, "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph packets {\n")
    assert dot.endswith("}\n")
    assert len(re.findall(r"^    p[0-9]+ \[label=", dot, re.M)) == 17
    assert len(re.findall(r"^  subgraph cluster_g[0-9]+ \{$", dot, re.M)) == 4
    assert len(re.findall(r"^  p[0-9]+ -> p[0-9]+", dot, re.M)) == 21
    assert "style=dashed" in dot
    assert main(["graph", "--config", str(sandbox.config)], environ={}) == 1
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err


def test_the_job_summary_gets_the_same_block_as_the_pr_body(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)
    observed = Observed.model_validate_json((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    inputs = gather.inputs(settings, observed, now)
    assert changed_graph(inputs, view(inputs).derivations) == ""
    empty = tmp_path / "none.json"
    empty.write_text("[]", encoding="utf-8")
    released = gather.inputs(settings, observed, now, empty)
    block = changed_graph(released, view(released).derivations)
    assert block.startswith("Packets whose derived state changed are outlined;")
    assert len(mermaid_grammar.parse(block.split("```mermaid\n")[1].split("```")[0]).styled) == 2


def test_satisfied_dependencies_are_dotted(seed: Snapshot, renderer: Renderer) -> None:
    packets = tuple(
        p.model_copy(update={"state": "complete", "result": "kept"})
        if p.id == "mac.m1-streamed-q4k-no-copy"
        else p.model_copy(update={"hard_dependency_ids": (), "satisfied_dependency_ids": p.hard_dependency_ids})
        if p.id == "mac.m2-whole-sequence-prefill"
        else p
        for p in seed.work_packets
    )
    graph = build(seed.model_copy(update={"work_packets": packets}))
    chart = mermaid_grammar.parse(renderer.graph(graph, "mermaid"))
    dotted = [(indices, line) for indices, line in chart.link_styles if "stroke-dasharray:2 4" in line]
    assert len(dotted) == 1
    (index,) = dotted[0][0]
    ids = {key: mermaid_grammar.decode(label.split("<br/>")[0]) for key, label in chart.nodes.items()}
    source, arrow, target = chart.edges[index]
    assert (ids[source], arrow, ids[target]) == ("mac.m1-streamed-q4k-no-copy", "-.->", "mac.m2-whole-sequence-prefill")
    assert chart.classes[source] == "complete"
    assert "style=dotted" in renderer.graph(graph, "dot")
