"""`perfbot import` (issue #28) through the command line: upstream fak's snapshot and lever graph
become a repository's perfbot files whose page is upstream's byte for byte; a second import, an
existing file, and every kind of bad input are refused, writing nothing, with the place named.

The upstream files are copies in `tests/fixtures/upstream/` (see its README for where each came from).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.snapshot.levers import ready_by_envelope, ready_levers
from bot.snapshot.store import load_snapshot
from tests.support.paths import FIXTURES, ROOT

UPSTREAM = FIXTURES / "upstream"
CURRENT = UPSTREAM / "current-1c9008f.json"
GRAPH = UPSTREAM / "graph-1c9008f.json"
PAGE = UPSTREAM / "NATIVE-PERFORMANCE-CURRENT-6bb3d731.md"
CURRENT_ONE = UPSTREAM / "current-schema-1.json"
PAGE_ONE = UPSTREAM / "NATIVE-PERFORMANCE-CURRENT-schema-1.md"
WRITTEN_PAGE = "docs/benchmarks/NATIVE-PERFORMANCE-CURRENT.md"
FILES = ["config/snapshot.yaml", "config/perfbot.yaml", WRITTEN_PAGE]


def run_import(repo: Path, current: Path = CURRENT, graph: Path = GRAPH, *more: str) -> int:
    return main(["import", "--current", str(current), "--graph", str(graph), "--dir", str(repo), *more])


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def edited(tmp_path: Path, source: Path, change: Callable[[Any], None], name: str | None = None) -> Path:
    """A copy of an upstream JSON file with `change` made to its data, written as Go writes it."""
    data = json.loads(source.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / (name or source.name)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "fak"
    path.mkdir()
    return path


def config(repo: Path) -> str:
    return str(repo / "config" / "perfbot.yaml")


def test_importing_1c9008f_renders_upstreams_page_6bb3d731_byte_for_byte(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_import(repo) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [f"wrote {repo / path}" for path in FILES]
    assert out[3].startswith("not kept from graph-1c9008f.json (perfbot's levers do not hold them; ")
    assert "levers[].name (12)" in out[3]
    assert "status" not in out[3]  # kept, as are the expected and witnessed effects
    assert "expected" not in out[3]
    assert "witnessed" not in out[3]
    assert out[4] == f"check the page: perfbot render --check --config {repo / 'config' / 'perfbot.yaml'}"
    assert sorted(tree(repo)) == sorted(FILES)
    assert (repo / WRITTEN_PAGE).read_bytes() == PAGE.read_bytes()
    assert main(["render", "--config", config(repo)]) == 0
    assert capsys.readouterr().out == PAGE.read_text(encoding="utf-8")
    assert main(["render", "--check", "--config", config(repo)]) == 0


def test_importing_schema_one_renders_its_own_layout_byte_for_byte(repo: Path) -> None:
    assert run_import(repo, CURRENT_ONE) == 0
    assert (repo / WRITTEN_PAGE).read_bytes() == PAGE_ONE.read_bytes()
    snapshot = load_snapshot(repo / "config" / "snapshot.yaml").model
    assert (snapshot.schema_, snapshot.programs, snapshot.work_packets) == ("fak-native-performance-current/1", (), ())
    assert main(["render", "--check", "--config", config(repo)]) == 0


def page_arms(page: str) -> dict[str, list[str]]:
    """The ready arms of each envelope as the page's waves table shows them."""
    waves = page.split("| Wave | Envelope | Ready arms |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| `[^`]+` \| `([^`]+)` \| (`[^|]*`) \|", waves, re.M)
    return {envelope: re.findall(r"`([^`]+)`", arms) for envelope, arms in rows}


@pytest.mark.parametrize(("current", "page"), [(CURRENT, PAGE), (CURRENT_ONE, PAGE_ONE)], ids=["schema-2", "schema-1"])
def test_the_imported_snapshot_validates_and_derives_the_pages_ready_arms(
    repo: Path, capsys: pytest.CaptureFixture[str], current: Path, page: Path
) -> None:
    assert run_import(repo, current) == 0
    capsys.readouterr()
    assert main(["validate", "--config", config(repo)]) == 0
    assert "config/snapshot.yaml: valid (" in capsys.readouterr().out
    levers = load_snapshot(repo / "config" / "snapshot.yaml").model.levers
    arms = page_arms(page.read_text(encoding="utf-8"))
    assert arms == {
        "qwen38-27b-q4km-m3pro-p32-t64": [
            "metal.command-buffer-amortization",
            "metal.paged-kv",
            "metal.chunked-prefill",
        ],
        "qwen38-27b-q4k-a100-p1-decode": ["cuda.q8_1-activation-quant"],
    }
    assert ready_by_envelope(levers) == arms
    assert ready_levers(levers) == [lever for wave in arms.values() for lever in wave]


def test_the_snapshot_says_where_each_part_came_from(repo: Path) -> None:
    assert run_import(repo) == 0
    lines = (repo / "config" / "snapshot.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# The typed performance-constraints snapshot, written by `perfbot import`")
    assert any("current-1c9008f.json: `fak native-performance --current`" in line for line in lines[:5])
    assert any("graph-1c9008f.json: `fak native-performance --json`" in line for line in lines[:5])
    for key, source in [("schema", "current-1c9008f.json"), ("constraints", "current-1c9008f.json `constraints`")]:
        above = lines[
            lines.index(f"{key}:") - 1
            if key != "schema"
            else lines.index(f"{key}: fak-native-performance-current/2") - 1
        ]
        assert above.startswith(f"# From {source}")
    levers = lines.index("levers:")
    comment = lines[
        lines.index(
            "# From graph-1c9008f.json `levers`: each lever's id, applicability.envelope_id (as envelope_id), enabled,"
        ) : levers
    ]
    assert not [line for line in comment if "status (12)" in line or ("expected" in line and "(12)" in line)]
    assert "#   levers[].owning_issue.url (12)" in comment


def test_a_second_import_over_it_refuses_and_writes_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_import(repo) == 0
    before = tree(repo)
    capsys.readouterr()
    assert run_import(repo, CURRENT_ONE) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{repo / 'config' / 'snapshot.yaml'}: already exists; perfbot import writes nothing",
        f"{repo / 'config' / 'perfbot.yaml'}: already exists; perfbot import writes nothing",
        f"{repo / WRITTEN_PAGE}: already exists and is not the page current-schema-1.json renders; "
        "perfbot import writes nothing",
    ]
    assert tree(repo) == before


def test_in_upstreams_checkout_its_page_is_kept_and_render_check_compares_with_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "docs" / "benchmarks").mkdir(parents=True)
    (repo / WRITTEN_PAGE).write_bytes(PAGE.read_bytes())
    assert run_import(repo) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        f"wrote {repo / 'config' / 'snapshot.yaml'}",
        f"wrote {repo / 'config' / 'perfbot.yaml'}",
        f"kept {repo / WRITTEN_PAGE}: it is already the page current-1c9008f.json renders, byte for byte",
    ]
    assert main(["render", "--check", "--config", config(repo)]) == 0


def test_an_existing_page_that_differs_is_not_overwritten(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "docs" / "benchmarks").mkdir(parents=True)
    (repo / WRITTEN_PAGE).write_bytes(PAGE.read_bytes() + b"\n")
    before = tree(repo)
    assert run_import(repo) == 1
    assert capsys.readouterr().err == (
        f"{repo / WRITTEN_PAGE}: already exists and is not the page current-1c9008f.json renders; "
        "perfbot import writes nothing\n"
    )
    assert tree(repo) == before
    assert run_import(repo, CURRENT, GRAPH, "--page", "docs/current-constraints.md") == 0
    assert (repo / "docs" / "current-constraints.md").read_bytes() == PAGE.read_bytes()
    assert "page: docs/current-constraints.md\n" in (repo / "config" / "perfbot.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "page", ["/etc/page.md", "../page.md", "docs/../page.md", "docs//page.md", "a b.md", "config/perfbot.yaml"]
)
def test_a_page_outside_the_repository_or_on_another_file_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], page: str
) -> None:
    assert run_import(repo, CURRENT, GRAPH, "--page", page) == 1
    assert capsys.readouterr().err.startswith(f"--page: {page!r} is ")
    assert tree(repo) == {}


def test_malformed_json_is_named_with_its_line_and_column(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "current.json"
    text = CURRENT.read_text(encoding="utf-8")
    broken.write_text(text.replace('"as_of": "2026-08-27",', '"as_of": "2026-08-27"', 1), encoding="utf-8")
    assert run_import(repo, broken) == 1
    assert capsys.readouterr().err == (
        f"{broken}:4:3: the current snapshot is not valid JSON: Expecting ',' delimiter\n"
    )
    graph = tmp_path / "graph.json"
    graph.write_text('{"levers": [\n  {"id": "a",}\n]}\n', encoding="utf-8")
    assert run_import(repo, CURRENT, graph) == 1
    assert (
        capsys.readouterr().err
        == f"{graph}:2:14: the lever graph is not valid JSON: Expecting property name enclosed in double quotes\n"
    )
    assert tree(repo) == {}


def test_a_wrong_schema_id_is_named_where_it_is(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    current = edited(tmp_path, CURRENT, lambda d: d.update(schema="fak-native-performance-current/3"))
    assert run_import(repo, current) == 1
    assert capsys.readouterr().err == (
        f"{current}:2:3: schema: 'fak-native-performance-current/3' is not upstream's current snapshot "
        "(fak-native-performance-current/2 or fak-native-performance-current/1)\n"
    )
    graph = edited(tmp_path, GRAPH, lambda d: d.update(schema="fak-native-performance-graph/v1"))
    assert run_import(repo, CURRENT, graph) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{graph}:")
    assert (
        ": schema: 'fak-native-performance-graph/v1' is not upstream's lever graph (fak-native-performance-graph/v2)"
        in err
    )
    assert tree(repo) == {}


def test_unknown_fields_are_named_where_they_are_in_either_file(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def colour(data: dict[str, Any]) -> None:
        data["work_packets"][3]["colour"] = "red"

    def lever_colour(data: dict[str, Any]) -> None:
        data["levers"][1]["applicability"]["gpu"] = "m3"

    current, graph = edited(tmp_path, CURRENT, colour), edited(tmp_path, GRAPH, lever_colour)
    assert run_import(repo, current, graph) == 1
    current_lines = current.read_text(encoding="utf-8").splitlines()
    graph_lines = graph.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(current_lines, 1) if '"colour"' in line)
    gpu = next(i for i, line in enumerate(graph_lines, 1) if '"gpu"' in line)
    assert capsys.readouterr().err.splitlines() == [
        f'{current}:{at}:7: work packet "mac.m3-q8-gdn-handoff": colour: unknown key',
        f'{graph}:{gpu}:9: lever "metal.command-buffer-amortization": applicability.gpu: unknown key',
    ]
    assert tree(repo) == {}


def test_null_lists_become_empty(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def nulls(data: dict[str, Any]) -> None:
        data["collisions"][0]["members"] = None
        data["oss_routes"] = None
        data["work_packets"][0]["hard_dependency_ids"] = None

    assert run_import(repo, edited(tmp_path, CURRENT, nulls)) == 0
    page = (repo / WRITTEN_PAGE).read_text(encoding="utf-8")
    assert "| `live-model-compute-lease` | `live-coordination` | `` | The current #9420" in page  # upstream's quirk
    assert page.split("| Source @ revision |")[1].split("## Update contract")[0] == (
        " State | Seam | Proposed constraint / deduped issue | Next |\n|---|---|---|---|---|\n\n"
    )


def test_a_duplicate_lever_is_one_problem_naming_it(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def copied(data: dict[str, Any]) -> None:
        data["levers"][4]["id"] = "metal.paged-kv"  # prefix-reuse, which depends on paged-kv, left unrenamed

    graph = edited(tmp_path, GRAPH, copied)
    assert run_import(repo, CURRENT, graph) == 1
    line = [
        i
        for i, text in enumerate(graph.read_text(encoding="utf-8").splitlines(), 1)
        if '"id": "metal.paged-kv"' in text
    ][1]
    assert capsys.readouterr().err == f"{graph}:{line}:7: duplicate lever id 'metal.paged-kv'\n"
    assert tree(repo) == {}


def test_a_padded_as_of_is_refused_as_upstream_refuses_it(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = edited(tmp_path, CURRENT, lambda d: d.update(as_of=" 2026-08-27"))
    assert run_import(repo, current) == 1
    assert capsys.readouterr().err == f"{current}:3:3: as_of: ' 2026-08-27' is not a valid date (YYYY-MM-DD)\n"
    assert tree(repo) == {}


def test_an_invariant_is_named_in_the_file_its_value_came_from(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def witnessed(data: dict[str, Any]) -> None:
        data["levers"][5]["applicability"]["envelope_id"] = " "

    graph = edited(tmp_path, GRAPH, witnessed)
    assert run_import(repo, CURRENT, graph) == 1
    lines = graph.read_text(encoding="utf-8").splitlines()
    envelope = next(i for i, text in enumerate(lines, 1) if '"envelope_id": " "' in text)
    dependency = next(i for i, text in enumerate(lines[envelope:], envelope + 1) if "metal.resident" in text)
    assert capsys.readouterr().err.splitlines() == [  # under upstream's names: applicability.envelope_id
        f"{graph}:{envelope}:9: lever 'metal.chunked-prefill' has no envelope",
        f"{graph}:{dependency}:9: lever 'metal.chunked-prefill' has a cross-envelope edge to 'metal.resident-q4k-weights'",
    ]
    # A ready arm witnessed upstream: no longer ready, so the wave that lists it is what is wrong.
    graph = edited(tmp_path, GRAPH, lambda d: d["levers"][3].update(witnessed=dict(d["levers"][0]["witnessed"])))
    assert run_import(repo, CURRENT, graph) == 1
    err = capsys.readouterr().err.splitlines()
    assert err
    assert all(line.startswith(f"{CURRENT}:") for line in err)
    assert any('current ready wave "metal" has unknown or duplicate lever "metal.paged-kv"' in line for line in err)
    assert tree(repo) == {}


def test_the_migration_guide_runs_as_written_in_a_fak_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    guide = (ROOT / "docs" / "migrate-from-fak.md").read_text(encoding="utf-8")
    block = guide.split("# Move from upstream fak\n", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    upstream = [line for line in lines if line.startswith("fak ")]
    assert upstream == [
        "fak native-performance --current > current.json",
        "fak native-performance --json > graph.json",
    ]
    checkout = tmp_path / "fak"
    (checkout / "docs" / "benchmarks").mkdir(parents=True)
    (checkout / WRITTEN_PAGE).write_bytes(PAGE.read_bytes())  # as fak commits it
    (checkout / "current.json").write_bytes(CURRENT.read_bytes())  # what the two fak lines write
    (checkout / "graph.json").write_bytes(GRAPH.read_bytes())
    monkeypatch.chdir(checkout)
    ours = [shlex.split(line) for line in lines if line.startswith("perfbot ")]
    assert [argv[1] for argv in ours] == ["import", "render"]
    for argv in ours:
        assert main(argv[1:]) == 0, argv
    assert "docs/benchmarks/NATIVE-PERFORMANCE-CURRENT.md is up to date" in capsys.readouterr().out
    assert (checkout / WRITTEN_PAGE).read_bytes() == PAGE.read_bytes()
