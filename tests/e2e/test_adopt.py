"""`perfbot init`: a new repository that validates and renders, from files shipped in the package."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from bot.adopt import UNSET_ACTION, scaffold
from bot.cli import main
from bot.config import SHIPPED_TEMPLATES
from tests.paths import ROOT
from tests.test_workflows import PINNED, started_jobs

ACTION = "example/perfbot@3d3c42e5aac5ba805825da76410c181273ba90b1"
FILES = [
    "config/perfbot.yaml",
    "config/snapshot.yaml",
    "config/leases.json",
    ".github/workflows/perfbot.yml",
    "docs/current-constraints.md",
]


@pytest.fixture
def empty_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "adopter"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_init_then_validate_and_render_check_pass(empty_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--dir", str(empty_repo), "--action", ACTION]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {empty_repo / f}" for f in FILES]
    config = str(empty_repo / "config" / "perfbot.yaml")
    assert main(["validate", "--config", config]) == 0
    assert "valid (1 constraints, 1 programs, 1 packets)" in capsys.readouterr().out
    assert main(["render", "--check", "--config", config]) == 0
    snapshot = (empty_repo / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    assert snapshot.startswith("# yaml-language-server: $schema=../schema/snapshot.schema.json\n")
    state = empty_repo / "state.json"
    state.write_text('{"repository": "example/adopter"}', encoding="utf-8")
    assert main(["reconcile", "--config", config, "--offline", str(state), "--dry-run"]) == 0
    assert "pull request: none on perfbot/update" in capsys.readouterr().out


def test_init_refuses_to_overwrite_and_writes_nothing(empty_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = empty_repo / "docs" / "current-constraints.md"
    page.parent.mkdir()
    page.write_text("ours\n", encoding="utf-8")
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert capsys.readouterr().err == f"{page}: already exists; perfbot init writes nothing\n"
    assert sorted(p.relative_to(empty_repo).as_posix() for p in empty_repo.rglob("*") if ".git" not in p.parts) == [
        "docs",
        "docs/current-constraints.md",
    ]
    assert page.read_text(encoding="utf-8") == "ours\n"


def test_init_takes_only_a_pinned_action(empty_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--dir", str(empty_repo), "--action", "example/perfbot@v1"]) == 1
    assert "is not OWNER/REPO@<40-hex commit SHA>" in capsys.readouterr().err
    assert list(empty_repo.iterdir()) == [empty_repo / ".git"]


def test_the_scaffolded_workflow() -> None:
    files = scaffold(dt.date(2026, 9, 1), ACTION)
    workflow = YAML(typ="safe").load(files[".github/workflows/perfbot.yml"])
    job = workflow["jobs"]["perfbot"]
    uses = [step["uses"] for step in job["steps"]]
    assert uses[-1] == ACTION
    assert all(PINNED.match(ref) for ref in uses)
    assert workflow["permissions"] == {}
    plain = {"action": "created", "comment": {"body": "thanks", "user": {"type": "User"}}}
    command = {"action": "created", "comment": {"body": "/perf help", "user": {"type": "User"}}}
    assert started_jobs(workflow, "issue_comment", plain) == []
    assert started_jobs(workflow, "issue_comment", command) == ["perfbot"]
    assert UNSET_ACTION in scaffold(dt.date(2026, 9, 1), None)[".github/workflows/perfbot.yml"]


def test_the_snapshot_is_dated_by_the_run() -> None:
    snapshot = scaffold(dt.date(2026, 9, 1), None)["config/snapshot.yaml"]
    assert "\nas_of: 2026-09-01\n" in snapshot
    assert "    review_by: 2026-09-15\n" in snapshot


def test_the_templates_ship_inside_the_package() -> None:
    # In a checkout, bot/templates links to the repository's templates/; hatchling copies what
    # it points to into the wheel, so an installed perfbot needs nothing outside the package.
    assert SHIPPED_TEMPLATES.parent == ROOT / "bot"
    assert SHIPPED_TEMPLATES.resolve() == (ROOT / "templates").resolve()
    assert (SHIPPED_TEMPLATES / "scaffold" / "snapshot.yaml.j2").is_file()
