"""The README a newcomer reads in ten minutes: at most 250 lines, its generated tables as
generated, and every link into docs/ (and between the guides) leading to a file and a heading
that exist. The first lines' two commands are run by tests/e2e/test_offline.py, its "Try it" by
tests/e2e/test_readme_try_it.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.action_metadata import load, tables, with_tables
from bot.cli import main
from bot.commands.registry import table_drift
from tests.support.paths import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_readme_is_read_in_ten_minutes() -> None:
    assert len(text(README).splitlines()) <= 250


def test_the_action_tables_are_generated_from_action_yml() -> None:
    """To regenerate: python -m bot.action_metadata --readme < README.md > README.md.new && mv README.md.new README.md"""
    readme = text(README)
    assert with_tables(readme, load(ROOT / "action.yml")) == readme
    assert table_drift(readme) == ""


def test_the_outputs_table_names_every_output_a_run_sets(tmp_path: Path) -> None:
    """Each output's value is held to its description by tests/e2e/test_outputs.py."""
    action = load(ROOT / "action.yml")
    shown = re.findall(r"^\| `([a-z-]+)` \|", tables(action)["action-outputs"], re.M)
    assert shown == list(action.outputs)
    out = tmp_path / "outputs.txt"
    argv = ["reconcile", "--config", str(ROOT / "config/perfbot.yaml"), "--dry-run", "--outputs", str(out)]
    assert main([*argv, "--offline", str(ROOT / "examples/offline-state.json")]) == 0
    assert sorted(line.split("=", 1)[0] for line in text(out).splitlines()) == sorted(shown)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    words = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return words.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, fenced = set(), False
    for line in text(path).splitlines():
        fenced ^= line.startswith("```")
        heading = re.match(r"#{1,6} (.*)", line)
        if heading and not fenced:
            found.add(slug(heading.group(1)))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    for target in LINK.findall(text(page)):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        destination = (page.parent / file).resolve() if file else page
        assert destination.exists(), f"{page.name}: {target}"
        if anchor:
            assert anchor in anchors(destination), f"{page.name}: {target}"


def test_the_readme_links_every_guide() -> None:
    linked = {Path(t.partition("#")[0]).name for t in LINK.findall(text(README))}
    guides = {p.name for p in (ROOT / "docs").glob("*.md")} - {"current-constraints.md"}
    assert guides <= linked
