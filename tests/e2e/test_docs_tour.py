"""The dashboard guide's tour shows real output (docs/dashboard.md, once the README's): every
`$ perfbot …` block and the graph it draws are rerun here."""

from __future__ import annotations

import re
import shlex

import pytest

from bot.cli import main
from tests.support import mermaid_grammar
from tests.support.paths import ROOT

GUIDE = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")


def output(capsys: pytest.CaptureFixture[str], command: str) -> str:
    argv = shlex.split(command)
    assert argv[0] == "perfbot"
    assert main(argv[1:]) == 0
    return capsys.readouterr().out


def test_every_shown_command_prints_what_the_readme_shows(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```text\n\$ (perfbot [^\n]*)\n(.*?)```\n", GUIDE, re.S)
    assert {command.split()[1] for command, _ in blocks} >= {"explain", "status"}
    for command, shown in blocks:
        assert output(capsys, command) == shown, command


def test_the_graph_in_the_readme_is_the_seed_graph(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    command, shown = re.findall(r"Its output for `(perfbot graph [^`]*)`:\n\n```mermaid\n(.*?)```\n", GUIDE, re.S)[0]
    assert output(capsys, command) == shown
    chart = mermaid_grammar.parse(shown)
    assert (len(chart.nodes), len(chart.groups)) == (17, 4)


def test_the_explain_claims_hold_on_the_seed() -> None:
    """The guide says the gate waits on #9420's compute lease, and that only its release is missing."""
    shown = re.findall(r"```text\n\$ perfbot explain cuda.q8_1-numerical-gate[^\n]*\n(.*?)```\n", GUIDE, re.S)[0]
    assert "`issue-9420-cache-weight-residency` (lane `compute`, on `internal/compute/**`)" in shown
    assert "#8635" in shown
    assert shown.endswith(
        "- #9420 releases `internal/compute/**` (lane `compute`, holder `issue-9420-cache-weight-residency`).\n"
    )
