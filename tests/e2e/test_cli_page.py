"""`perfbot validate` and `perfbot render`: exit codes, located errors, the staleness check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main
from tests.support.paths import ROOT


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the repository's config, templates and page to break safely."""
    for name in ("config", "templates", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def run(repo: Path, *args: str) -> int:
    return main([*args, "--config", str(repo / "config" / "perfbot.yaml")])


def test_validate_the_seed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(repo, "validate") == 0
    assert "valid (8 constraints, 4 programs, 17 packets)" in capsys.readouterr().out


def test_validate_reports_every_problem_located(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repo / "config" / "snapshot.yaml"
    text = (
        path.read_text(encoding="utf-8")
        .replace("    lane: metal\n", "    lane: ''\n")
        .replace("authority_issue: 9430", "authority_issue: 0")
    )
    path.write_text(text, encoding="utf-8")
    assert run(repo, "validate") == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0].endswith(': invalid execution program "mac-top10": authority_issue must be > 0')
    assert err[0].split(":")[1].isdigit()


def test_github_actions_annotations(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = repo / "config" / "snapshot.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("    lane: metal\n", "    lane: ''\n"), encoding="utf-8")
    assert run(repo, "validate") == 1
    out = capsys.readouterr().out
    assert out.startswith("::error file=")
    assert ",line=" in out
    assert "lane is blank" in out


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "    lane: metal\n",
            "    lane: metal\n    lane: again\n",
            "duplicate key 'lane': a key appears once in a mapping",
        ),
        ("as_of: 2026-08-27", "as_of: 27/08/2026", "as_of: '27/08/2026' is not a valid date"),
        (
            "    lane: metal\n",
            "    lane: metal\n   lane2: x\n",
            "a new key here does not line up with the lines above it",
        ),
        ("    issue: 9216\n", "    issue: [9216]\n", "issue: a list is not an issue: write an issue number"),
    ],
)
def test_bad_yaml_is_a_clear_error_not_a_traceback(
    repo: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, message: str
) -> None:
    path = repo / "config" / "snapshot.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    assert run(repo, "render") == 1
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_missing_snapshot_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "config" / "snapshot.yaml").unlink()
    assert run(repo, "validate") == 1
    assert "snapshot.yaml: file not found" in capsys.readouterr().err


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--config", str(tmp_path / "nope.yaml")]) == 1
    assert "nope.yaml: file not found" in capsys.readouterr().err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["render", "--check", "--write"])
    assert exit_info.value.code == 2


def test_render_prints_the_committed_page(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(repo, "render") == 0
    assert capsys.readouterr().out == (repo / "docs" / "current-constraints.md").read_text(encoding="utf-8")


def test_render_check_passes_then_fails_with_a_diff(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(repo, "render", "--check") == 0
    assert "is up to date" in capsys.readouterr().out
    path = repo / "config" / "snapshot.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("    lane: metal\n", "    lane: metal+docs\n"), encoding="utf-8"
    )
    assert run(repo, "render", "--check") == 1
    captured = capsys.readouterr()
    assert "-| 3 / `mac.m3-q8-gdn-handoff`" in captured.out
    assert "Lane: `metal+docs`" in captured.out
    assert "is stale at character" in captured.err
    assert run(repo, "render", "--write") == 0
    assert run(repo, "render", "--check") == 0


def test_check_on_the_repository_itself(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "--check", "--config", str(ROOT / "config" / "perfbot.yaml")]) == 0


@pytest.mark.parametrize("tabbed", ["    lane: metal\t\n", "    lane:\tmetal\n", "    lane: metal\t# why\n"])
def test_a_tab_libyaml_would_take_is_refused_where_it_stands(
    repo: Path, capsys: pytest.CaptureFixture[str], tabbed: str
) -> None:
    path = repo / "config" / "snapshot.yaml"
    text = path.read_text(encoding="utf-8")
    line = text[: text.index("    lane: metal\n")].count("\n") + 1
    path.write_text(text.replace("    lane: metal\n", tabbed, 1), encoding="utf-8")
    assert run(repo, "validate") == 1
    err = capsys.readouterr().err
    assert f"snapshot.yaml:{line}:" in err
    assert "a tab character where YAML takes only spaces" in err


def test_validate_counts_in_words() -> None:
    from bot.cli.file_commands import counted

    assert [counted(1, "program"), counted(0, "packet"), counted(4, "constraint")] == [
        "1 program",
        "0 packets",
        "4 constraints",
    ]
