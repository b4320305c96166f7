"""The config refuses what would make perfbot quietly do nothing or fail later: an empty or
padded command prefix, a branch name git refuses, a templates folder that is not there. Each
is one error naming the file, the key's line and the key, and exit 1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from tests.support.harness import Repo


def edited(repo: Repo, old: str, new: str) -> str:
    text = repo.config.read_text(encoding="utf-8")
    assert old in text
    repo.config.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(repo.config)


def line_of(repo: Repo, start: str) -> int:
    lines = repo.config.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line.lstrip().startswith(start))


@pytest.mark.parametrize("prefix", ['""', '" /perf"', '"/perf "', '"/perf\\n"', '"/p\\u0007"', '"\\t"'])
def test_a_prefix_that_no_line_could_start_with_is_refused(
    sandbox: Repo, prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = edited(sandbox, "  prefix: /perf\n", f"  prefix: {prefix}\n")
    assert main(["validate", "--config", config]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{config}:{line_of(sandbox, 'prefix:')}:3: commands.prefix: ")
    assert "a prefix must be at least one character" in err


@pytest.mark.parametrize("prefix", ["/bench", "!perf", "@perfbot please", "/p"])
def test_a_prefix_of_one_or_more_words_is_taken(sandbox: Repo, prefix: str, capsys: pytest.CaptureFixture[str]) -> None:
    config = edited(sandbox, "  prefix: /perf\n", f"  prefix: '{prefix}'\n")
    assert main(["validate", "--config", config]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "branch", ["bad..name", "-dash", "HEAD", "a b", "trail/", "/lead", "x.lock", "a@{1}", "co:lon", ".hidden", "end."]
)
def test_a_pull_request_branch_git_would_refuse_is_refused(
    sandbox: Repo, branch: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = edited(sandbox, "  branch: perfbot/update\n", f"  branch: '{branch}'\n")
    assert main(["validate", "--config", config]) == 1
    err = capsys.readouterr().err
    assert re.match(rf"{re.escape(config)}:{line_of(sandbox, 'branch:')}:3: pull_request.branch: ", err), err
    assert "is not a branch name git accepts" in err


@pytest.mark.parametrize("branch", ["perfbot/update", "bots/perf-2", "ünï", "a+b"])
def test_a_branch_git_takes_is_taken(sandbox: Repo, branch: str, capsys: pytest.CaptureFixture[str]) -> None:
    config = edited(sandbox, "  branch: perfbot/update\n", f"  branch: '{branch}'\n")
    assert main(["validate", "--config", config]) == 0, capsys.readouterr().err


def test_a_templates_folder_that_is_not_there_is_refused(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    config = edited(sandbox, "templates: templates\n", "templates: our-templates\n")
    assert main(["render", "--config", config]) == 1
    line = line_of(sandbox, "templates:")
    missing = Path(sandbox.root) / "our-templates"
    assert capsys.readouterr().err.endswith(f":{line}:1: templates: 'our-templates' ({missing}) does not exist\n")
    missing.write_text("a file\n", encoding="utf-8")
    assert main(["render", "--config", config]) == 1
    assert capsys.readouterr().err.endswith(f"({missing}) is not a folder\n")
    missing.unlink()
    missing.mkdir()  # an empty folder: every template comes from the shipped set
    assert main(["validate", "--config", config]) == 0


def test_a_yaml_syntax_error_is_said_in_plain_words_with_its_place(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #25: not the parser's "expected <block end>, but found '<block mapping start>'"."""
    config = edited(sandbox, "  prefix: /perf\n", "  prefix: /perf\n extra: 1\n")
    assert main(["validate", "--config", config]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{config}:{line_of(sandbox, 'extra:')}:2: a new key here does not line up"), err
    assert "check this line's indentation" in err
    assert "<block" not in err
    assert "expected" not in err
