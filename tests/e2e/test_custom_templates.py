"""A repository's own templates (`templates:` in the config): they override the shipped ones by name,
and a broken one is bad input, named by file and line, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot import render
from bot.cli import main
from tests.support.paths import ROOT


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The repository's config and page, with an empty directory of its own templates."""
    for name in ("config", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "templates").mkdir()
    return tmp_path


def run(repo: Path, *args: str) -> int:
    return main([*args, "--config", str(repo / "config" / "perfbot.yaml")])


def test_templates_a_repository_lacks_are_the_shipped_ones(repo: Path) -> None:
    assert run(repo, "render", "--check") == 0


def test_a_repository_template_replaces_the_shipped_one_of_its_name(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "templates" / "page.md.j2").write_text("{{ s.constraints | length }} constraints\n", encoding="utf-8")
    assert run(repo, "render", "--check") == 1
    assert "8 constraints" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("source", "where", "says"),
    [
        pytest.param("title\n{% if %}\n", "page.md.j2:2: ", "Expected an expression", id="syntax"),
        pytest.param("a\nb\n{{ nothing.here }}\n", "page.md.j2:3: ", "'nothing' is undefined", id="undefined"),
        pytest.param("{% include 'absent.j2' %}\n", "page.md.j2:1: ", "cannot render: absent.j2", id="include"),
        pytest.param("{{ s | no_such_filter }}\n", "page.md.j2:1: ", "No filter named 'no_such_filter'", id="filter"),
        pytest.param(
            "{% for x in s.constraints %}\n{{ x.id.nope }}\n{% endfor %}\n",
            "page.md.j2:2: ",
            "cannot render:",
            id="loop",
        ),
        pytest.param("a\n{{ 1 / 0 }}\n", "page.md.j2:2: ", "ZeroDivisionError", id="arithmetic"),
        pytest.param("{{ s.constraints + 1 }}\n", "page.md.j2:1: ", "TypeError", id="type"),
        pytest.param("{% include 'page.md.j2' %}\n", "page.md.j2:1: ", "RecursionError", id="self-include"),
        pytest.param("{{ 5 | issue_chain }}\n", "page.md.j2:1: ", "AttributeError", id="filter-type"),
    ],
)
def test_a_broken_template_is_named_by_file_and_line_and_nothing_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str], source: str, where: str, says: str
) -> None:
    (repo / "templates" / "page.md.j2").write_text(source, encoding="utf-8")
    before = {p: p.read_bytes() for p in (repo / "docs").rglob("*")}
    assert run(repo, "render") == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{repo / 'templates'}/{where}") or first.startswith(f"templates/{where}"), first
    assert says in first
    assert {p: p.read_bytes() for p in (repo / "docs").rglob("*")} == before


def test_template_errors_echo_the_template_as_one_inert_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "templates" / "page.md.j2").write_text('{% include "a\n::error::forged" %}\n', encoding="utf-8")
    assert run(repo, "render") == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert not any(line.startswith("::") for line in lines)


def test_a_missing_templates_directory_is_named(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(repo / "templates")
    # The config names a folder that is not there: every command refuses it, naming the key, rather
    # than quietly using the shipped templates instead of the repository's own.
    for command in ("validate", "render"):
        assert run(repo, command) == 1
        err = capsys.readouterr().err
        assert ":1: templates: 'templates' (" in err
        assert "templates) does not exist" in err
        assert "Traceback" not in err


def test_reconcile_with_a_broken_template_exits_1_before_any_write(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = repo / "state.json"
    shutil.copyfile(ROOT / "examples" / "offline-state.json", state)
    before = state.read_bytes()
    (repo / "templates" / "page.md.j2").write_text("{{ missing }}\n", encoding="utf-8")
    code = main(
        [
            "reconcile",
            "--config",
            str(repo / "config" / "perfbot.yaml"),
            "--offline",
            str(state),
            "--now",
            "2026-08-27T17:00:00Z",
        ]
    )
    assert code == 1
    assert "page.md.j2:1: cannot render: 'missing' is undefined" in capsys.readouterr().err
    assert state.read_bytes() == before


def test_an_error_in_an_included_template_names_that_template(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "templates" / "part.j2").write_text("fine\n{{ nope }}\n", encoding="utf-8")
    (repo / "templates" / "page.md.j2").write_text("top\n{% include 'part.j2' %}\n", encoding="utf-8")
    assert run(repo, "render") == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith("part.j2:2: cannot render: 'nope' is undefined"), first


def test_an_install_without_its_own_templates_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render, "SHIPPED_TEMPLATES", repo / "no-such-install")
    render.shipped_templates.cache_clear()
    try:
        assert run(repo, "render") == 1
    finally:
        render.shipped_templates.cache_clear()
    assert "no-such-install: perfbot's own templates are missing: reinstall perfbot" in capsys.readouterr().err
