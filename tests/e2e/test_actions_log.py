"""What perfbot prints in a workflow: annotations (at most ten, the rest counted in the summary)
and text from outside that can never start a workflow command."""

from __future__ import annotations

import shutil
from pathlib import Path

import cmarkgfm
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import workflow
from bot.annotations import MAX_ANNOTATIONS, annotation, error_annotations
from bot.cli import main
from bot.errors import BotError, Problem
from bot.untrusted import log_safe, neutral, table_code
from tests.e2e.test_job_summary import assert_tables_whole, read
from tests.support.paths import ROOT


def test_annotation_escapes_its_properties_and_message() -> None:
    line = annotation(Problem("odd:dir,x/snap.yaml", 3, 7, "100% wrong\nsecond line\r"))
    assert line == "::error file=odd%3Adir%2Cx/snap.yaml,line=3,col=7::100%25 wrong%0Asecond line%0D"
    assert annotation(Problem("state.json", 0, 0, "no place")) == "::error file=state.json::no place"


def test_at_most_ten_annotations() -> None:
    problems = [Problem("f.yaml", n, 1, f"problem {n}") for n in range(1, 15)]
    lines = error_annotations(problems)
    assert len(lines) == MAX_ANNOTATIONS == 10
    assert lines[-1] == "::error file=f.yaml,line=10,col=1::problem 10"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain\n  indented :: not first\n", "plain\n  indented :: not first\n"),
        ("::error::x", ":\u200b:error::x"),
        ("a\n\t ::warning::y", "a\n\t :\u200b:warning::y"),
        ("a\r::add-mask::z", "a\r:\u200b:add-mask::z"),
        ("a\r\n::x\u2028::y\x85::z", "a\r\n:\u200b:x\u2028:\u200b:y\x85:\u200b:z"),
    ],
)
def test_log_safe(text: str, expected: str) -> None:
    assert log_safe(text) == expected


@given(st.text(alphabet=st.sampled_from([":", " ", "\n", "\r", "\u2028", "\x0b", "a", "\u200b"])))
def test_no_printed_line_starts_a_command(text: str) -> None:
    for line in log_safe(text).splitlines():
        assert not line.lstrip().startswith("::")
    assert log_safe(text).replace("\u200b", "") == text.replace("\u200b", "")


@given(st.text())
def test_neutral_is_idempotent(text: str) -> None:
    once = neutral(text)
    assert neutral(once) == once


def test_table_code_keeps_pipes_inside_their_cell() -> None:
    markdown = "| a | b |\n|---|---|\n| " + table_code("x|y\\|z `w`") + " | end |\n"
    assert assert_tables_whole(read(markdown)) == 1
    html = cmarkgfm.github_flavored_markdown_to_html(markdown)
    assert "<td><code>x|y\\|z `w`</code></td>\n<td>end</td>" in html


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A copy of the repository whose snapshot has a blank lane in every work packet (17 problems)."""
    for name in ("config", "templates", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    snapshot = tmp_path / "config" / "snapshot.yaml"
    lines = [
        "    lane: ''" if line.startswith("    lane: ") else line
        for line in snapshot.read_text(encoding="utf-8").splitlines()
    ]
    snapshot.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_a_failed_run_annotates_ten_and_counts_the_rest(
    broken: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["validate", "--config", str(broken / "config" / "perfbot.yaml")]) == 1
    captured = capsys.readouterr()
    annotations = captured.out.splitlines()
    assert len(annotations) == 10
    assert all(line.startswith("::error file=") and "lane is blank" in line for line in annotations)
    assert len(captured.err.splitlines()) == 17
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## perfbot stopped: nothing was written\n")
    assert (
        "17 problems in the input. The first 10 are annotations on the files; the other 7 are listed here only." in text
    )
    reading = read(text)
    assert assert_tables_whole(reading) == 1
    assert len(reading.tables[0]) == 1 + 17


def test_a_failure_without_a_place_is_one_annotation(tmp_path: Path) -> None:
    error = BotError("no token:\nset GITHUB_TOKEN")
    assert workflow.failure_lines(error) == ["::error title=perfbot::no token:%0Aset GITHUB_TOKEN"]
    summary = tmp_path / "summary.md"
    workflow.leave_failure(error, summary)
    text = summary.read_text(encoding="utf-8")
    assert text == "## perfbot stopped: nothing was written\n\n`no token: set GITHUB_TOKEN`\n"


def test_the_printed_page_starts_no_command(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = broken / "config" / "snapshot.yaml"
    shutil.copy(ROOT / "config" / "snapshot.yaml", snapshot)
    lines = [
        "definition: '::error::forged definition'" if line.startswith("definition: ") else line
        for line in snapshot.read_text(encoding="utf-8").splitlines()
    ]
    snapshot.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # The snapshot may not hold such text at all; nothing printed starts a command either way.
    assert main(["render", "--config", str(broken / "config" / "perfbot.yaml")]) == 1
    out, err = capsys.readouterr()
    assert "definition: '::' at the start or '##\u200b[' would be read as a GitHub Actions command" in err
    assert not any(line.lstrip().startswith("::") for line in (out + err).splitlines())
