"""A run's journal of offline writes: the state file it folds into is the one per-write saves give,
a stopped run's writes are read back exactly once, and a journal never lands on another state."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import InputError
from bot.github.actions import AssignAction, CommentAction, LabelAction, PullRequestAction, ReactAction
from bot.github.branch_file import BranchFile
from bot.github.markers import marker
from bot.github.offline import OfflineGitHub, journal_path

NOW = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)
LEASES = BranchFile(branch="perfbot/leases", path="leases.json")


def flat(headers: list[frozenset[tuple[str, str]]]) -> set[tuple[str, str]]:
    """Every marker of the headers."""
    found: set[tuple[str, str]] = set().union(*headers)
    return found


def state(tmp_path: Path, name: str = "state.json") -> Path:
    path = tmp_path / name
    raw = {
        "repository": "o/n",
        "bot_login": "perfbot[bot]",
        "issues": [{"number": 5, "assignees": ["bob"]}, {"number": 6}],
        "comments": [{"id": 3, "issue": 6, "user": "alice", "created_at": "2026-08-27T10:00:00Z", "body": "hello"}],
        "branch_files": {"perfbot/leases": {"leases.json": "[]"}},
    }
    path.write_text(json.dumps(raw), encoding="utf-8")  # not the adapter's own layout: it rewrites it
    return path


def writes(github: OfflineGitHub) -> None:
    """One of each kind of write, two on the same issue, and the PR created then updated."""
    github.comment(CommentAction(issue=5, topic="packet-ready", body=marker("packet-ready", "a") + "\nReady."))
    github.react(ReactAction(issue=6, comment_id=3, content="eyes"))
    github.assign(AssignAction(issue=5, login="carol", add=True))
    github.label(LabelAction(issue=6, name="perf:ready", add=True))
    pull = PullRequestAction(operation="create", branch="perfbot/update", title="t", body="b", files={"a": "1"})
    number = github.pull_request(pull)
    github.pull_request(pull.model_copy(update={"operation": "update", "number": number, "files": {"a": "2"}}))
    github.publish(LEASES, "[1]", "readback")


def saved_each_write(tmp_path: Path) -> str:
    """The state text when every write rewrites the file (no journal)."""
    path = state(tmp_path, "plain.json")
    writes(OfflineGitHub.open(path, NOW, (LEASES,)))
    return path.read_text(encoding="utf-8")


def test_a_folded_journal_gives_the_file_that_saving_every_write_gives(tmp_path: Path) -> None:
    path = state(tmp_path)
    before = path.read_text(encoding="utf-8")
    github = OfflineGitHub.open(path, NOW, (LEASES,), journal=True)
    writes(github)
    assert path.read_text(encoding="utf-8") == before  # nothing folded yet
    # the header, then one line per value set: a label sets the issue and adds its event, a PR
    # written sets the PR and its branch
    assert len(journal_path(path).read_text(encoding="utf-8").splitlines()) == 1 + 10
    github.fold()
    assert path.read_text(encoding="utf-8") == saved_each_write(tmp_path)
    assert not journal_path(path).exists()


def stopped_run(tmp_path: Path, name: str = "state.json") -> Path:
    """A run that journalled its writes and stopped before folding them."""
    path = state(tmp_path, name)
    writes(OfflineGitHub.open(path, NOW, (LEASES,), journal=True))
    return path


def test_the_next_reader_takes_a_stopped_runs_writes_once(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    again = OfflineGitHub.open(path, NOW, (LEASES,), journal=True)
    assert [c["id"] for c in again.raw["comments"]] == [3, 4]
    assert flat(again.headers_now(5)) == {("packet-ready", "a")}
    again.fold()
    assert path.read_text(encoding="utf-8") == saved_each_write(tmp_path)
    assert not journal_path(path).exists()


def test_a_journal_already_folded_in_changes_nothing_and_is_replaced(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    kept = tmp_path / "kept.journal"
    shutil.copyfile(journal_path(path), kept)
    OfflineGitHub.open(path, NOW, journal=True).fold()
    folded = path.read_text(encoding="utf-8")
    shutil.copyfile(kept, journal_path(path))  # stopped after the rename, before the removal
    github = OfflineGitHub.open(path, NOW, journal=True)
    assert github.text() == folded
    github.react(ReactAction(issue=6, comment_id=4, content="rocket"))
    assert journal_path(path).read_text(encoding="utf-8").count("\n") == 2  # a new journal over `folded`
    reread = OfflineGitHub.open(path, NOW)
    assert reread.raw["reactions"][-1]["content"] == "rocket"
    assert len(reread.raw["comments"]) == 2


def test_a_write_cut_off_while_appending_is_left_out(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    journal = journal_path(path)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:2]) + lines[2][:7], encoding="utf-8")
    github = OfflineGitHub.open(path, NOW)
    assert [c["id"] for c in github.raw["comments"]] == [3, 4]
    assert "reactions" not in github.raw


@pytest.mark.parametrize(
    "change",
    [
        lambda p: p.write_text(p.read_text(encoding="utf-8").replace("hello", "hi"), encoding="utf-8"),
        lambda p: journal_path(p).write_text('{"extends": "0"}\n{"set": ["issues", 9], "value": 1}\n'),
        lambda p: journal_path(p).write_text("not json\n"),
    ],
)
def test_a_journal_that_does_not_fit_its_state_is_refused_naming_it(
    tmp_path: Path, change: Callable[[Path], object]
) -> None:
    path = stopped_run(tmp_path)
    change(path)
    with pytest.raises(InputError) as refused:
        OfflineGitHub.open(path, NOW)
    assert str(journal_path(path)) in str(refused.value)


def test_a_state_file_that_cannot_be_written_fails_the_first_write(tmp_path: Path) -> None:
    path = state(tmp_path)
    (tmp_path / ".state.json.tmp").mkdir()
    github = OfflineGitHub.open(path, NOW, journal=True)
    with pytest.raises(Exception, match="cannot write the state file"):
        github.react(ReactAction(issue=6, comment_id=3, content="eyes"))
    assert not journal_path(path).exists()


def test_a_run_after_a_cut_off_write_starts_its_own_line(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    journal = journal_path(path)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:2]) + lines[2][:7], encoding="utf-8")
    github = OfflineGitHub.open(path, NOW, journal=True)
    github.react(ReactAction(issue=6, comment_id=3, content="rocket"))  # the run stops before folding
    reread = OfflineGitHub.open(path, NOW)
    assert [c["id"] for c in reread.raw["comments"]] == [3, 4]
    assert [r["content"] for r in reread.raw["reactions"]] == ["rocket"]


@pytest.mark.parametrize(
    "line", ['{"set": ["issues", 0, "title"], "value": NaN}\n', "[" * 100_000 + "]" * 100_000 + "\n"]
)
def test_a_journal_line_outside_what_json_inputs_take_is_refused_naming_it(tmp_path: Path, line: str) -> None:
    path = stopped_run(tmp_path)
    with journal_path(path).open("a", encoding="ascii") as handle:
        handle.write(line)
    with pytest.raises(InputError) as refused:
        OfflineGitHub.open(path, NOW)
    assert str(journal_path(path)) in str(refused.value)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"set": "abc", "value": 1}', "expected {"),
        ('{"set": [], "value": 1}', "expected {"),
        ('{"set": ["issues"]}', "expected {"),
        ('{"set": ["issues", 0], "value": 1, "also": 2}', "expected {"),
        ('{"set": ["issues", true], "value": 1}', "a key or index is not text or a number"),
        ('{"set": ["issues", 0.5], "value": 1}', "a key or index is not text or a number"),
        ("[1, 2]", "a line is not a JSON object"),
    ],
)
def test_a_journal_line_that_is_no_write_is_refused_at_its_line(tmp_path: Path, line: str, said: str) -> None:
    path = stopped_run(tmp_path)
    lines = journal_path(path).read_text(encoding="utf-8").count("\n")
    with journal_path(path).open("a", encoding="ascii") as handle:
        handle.write(line + "\n")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(InputError) as refused:
        OfflineGitHub.open(path, NOW)
    assert str(refused.value).startswith(f"{journal_path(path)}:{lines + 1}: not a ")
    assert said in str(refused.value)
    assert path.read_text(encoding="utf-8") == before


def test_a_journal_whose_first_line_names_no_state_is_refused_at_line_1(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    journal = journal_path(path)
    journal.write_text("7\n" + journal.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
    with pytest.raises(InputError) as refused:
        OfflineGitHub.open(path, NOW)
    assert str(refused.value).startswith(f"{journal}:1: not a journal of state writes")


def test_writes_over_a_changed_state_that_no_longer_fit_it_say_the_state_changed(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    journal_path(path).write_text('{"extends": "0"}\n{"set": ["issues", 99, "title"], "value": "x"}\n')
    with pytest.raises(InputError, match="holds writes over a different state file"):
        OfflineGitHub.open(path, NOW)


def test_a_problem_the_journal_brought_in_names_the_journal_too(tmp_path: Path) -> None:
    path = stopped_run(tmp_path)
    with journal_path(path).open("a", encoding="ascii") as handle:
        handle.write('{"set": ["issues", 0, "number"], "value": "x"}\n')
    with pytest.raises(InputError) as refused:
        OfflineGitHub.open(path, NOW)
    assert str(refused.value).startswith(f"{path} (with {journal_path(path).name})")
