"""Issue references across repositories in perfbot's files, through the command line: a snapshot
naming `owner/repo#N` and issue URLs validates against the model and the published JSON Schema,
renders them as GitHub links them (the seed's page is untouched), is refused at `file:line:col` for
anything else, and `perfbot import` takes them from upstream's JSON."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from bot.cli import main
from tests.support.harness import Repo
from tests.support.paths import FIXTURES, ROOT

RESIDENCY = "    issue: 9420\n"


def test_a_snapshot_across_repositories_validates_and_renders_owner_repo_links(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.edit_snapshot(
        RESIDENCY,
        "    issue: acme/kernel#12\n    related_issues: ['https://github.com/acme/bench/issues/3', '#8819']\n",
    )
    sandbox.edit_snapshot("    authority_issue: 8635\n", "    authority_issue: Acme/Kernel#4\n")
    assert main(["validate", "--config", str(sandbox.config)]) == 0
    assert main(["render", "--config", str(sandbox.config)]) == 0
    page = capsys.readouterr().out
    assert "<br>acme/kernel#12/acme/bench#3/#8819 |" in page
    assert "| Acme/Kernel#4 |" in page
    assert "#9420 |" in page  # the program whose umbrella stays in the bot's own repository


def test_the_schema_accepts_every_form_the_model_accepts(sandbox: Repo) -> None:
    sandbox.edit_snapshot(RESIDENCY, "    issue: https://github.com/acme/kernel/issues/12\n")
    data = YAML(typ="safe").load(sandbox.snapshot_path.read_text(encoding="utf-8"))
    data["work_packets"][1]["issue"] = "acme/kernel#13"
    data["work_packets"][2]["issue"] = "#9230"
    schema = json.loads((ROOT / "schema" / "snapshot.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(json.dumps(data, default=str)), schema)


@pytest.mark.parametrize("written", ["kernel#12", "acme/kernel#0", "https://github.com/acme/kernel/pull/12"])
def test_anything_else_is_refused_at_its_place(sandbox: Repo, capsys: pytest.CaptureFixture[str], written: str) -> None:
    sandbox.edit_snapshot(RESIDENCY, f"    issue: '{written}'\n")
    line = sandbox.snapshot_path.read_text(encoding="utf-8").splitlines().index(f"    issue: '{written}'") + 1
    assert main(["validate", "--config", str(sandbox.config)]) == 1
    err = capsys.readouterr().err
    said = [f"snapshot.yaml:{line}:", "is not an issue", "owner/repo#N"]
    assert [part for part in said if part not in err] == []
    assert "Traceback" not in err


def test_import_takes_issues_of_other_repositories_from_upstreams_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = json.loads((FIXTURES / "upstream" / "current-1c9008f.json").read_text(encoding="utf-8"))
    current["work_packets"][0]["issue"] = "acme/kernel#12"
    current["programs"][0]["authority_issue"] = "https://github.com/acme/kernel/issues/4"
    edited = tmp_path / "current.json"
    edited.write_text(json.dumps(current, indent=2), encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    graph = FIXTURES / "upstream" / "graph-1c9008f.json"
    assert main(["import", "--current", str(edited), "--graph", str(graph), "--dir", str(repo)]) == 0
    snapshot = (repo / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    # Written in the one form perfbot writes, `owner/repo#N`: the URL reads as the same issue.
    assert "    issue: acme/kernel#12\n" in snapshot
    assert "    authority_issue: acme/kernel#4\n" in snapshot
    assert main(["validate", "--config", str(repo / "config" / "perfbot.yaml")]) == 0
    capsys.readouterr()
    current["work_packets"][0]["issue"] = "kernel#12"
    edited.write_text(json.dumps(current, indent=2), encoding="utf-8")
    again = tmp_path / "again"
    again.mkdir()
    assert main(["import", "--current", str(edited), "--graph", str(graph), "--dir", str(again)]) == 1
    err = capsys.readouterr().err
    assert "current.json:" in err
    assert "is not an issue" in err
    assert not any(again.iterdir())


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        (RESIDENCY, "    issue: https://github.com/Anthony-Chaudhary/FAK/issues/9420\n", "issue"),
        ("    authority_issue: 8635\n", "    authority_issue: anthony-chaudhary/fak#8635\n", "authority_issue"),
        (
            "    authority_owner: 'issue #8635'\n",
            "    authority_owner: 'see anthony-chaudhary/fak#8635'\n",
            "authority_owner",
        ),
    ],
)
def test_a_run_asks_for_its_own_repositorys_issues_by_number(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str
) -> None:
    """The bot's own repository written as another's would be read, nudged and labelled under two
    names: the run (which knows its repository) names the place and the number to write, and
    writes nothing."""
    sandbox.edit_snapshot(old, new)
    line = sandbox.snapshot_path.read_text(encoding="utf-8").splitlines().index(new.rstrip("\n")) + 1
    before = sandbox.state_path.read_text(encoding="utf-8")
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"snapshot.yaml:{line}:5: {field}: " in err
    assert "is an issue of this repository (anthony-chaudhary/fak): write it #" in err
    assert "Traceback" not in err
    assert sandbox.state_path.read_text(encoding="utf-8") == before


@pytest.mark.parametrize(
    ("written", "hint"),
    [
        ("acme/kernel#12", 'the packet on acme/kernel#12 is "cuda.cache-weight-residency"'),
        ("https://github.com/acme/kernel/issues/12", 'the packet on acme/kernel#12 is "cuda.cache-weight-residency"'),
        ("acme/bench#3", "no packet is on acme/bench#3"),
    ],
)
def test_a_dependency_written_as_an_issue_is_told_which_packet_that_is(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], written: str, hint: str
) -> None:
    """Dependencies name packets (their issues may be anywhere): one written as an issue is refused
    at its place, naming the packet on that issue when there is one."""
    sandbox.edit_snapshot(RESIDENCY, "    issue: acme/kernel#12\n")
    old = "    hard_dependency_ids: [mac.m1-streamed-q4k-no-copy]\n"
    sandbox.edit_snapshot(old, f"    hard_dependency_ids: ['{written}']\n")
    line = (
        sandbox.snapshot_path.read_text(encoding="utf-8").splitlines().index(f"    hard_dependency_ids: ['{written}']")
    )
    assert main(["validate", "--config", str(sandbox.config)]) == 1
    err = capsys.readouterr().err
    assert f"snapshot.yaml:{line + 1}:27: " in err
    assert f'invalid dependency/blocker "{written}"; a dependency names a packet id' in err
    assert hint in err
