"""The offline adapter's writes: a run still sees the markers another writer put in the state file
after it was opened, and comment ids follow the largest."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from bot.github.actions import CommentAction
from bot.github.markers import marker
from bot.github.offline import OfflineGitHub

NOW = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)


def flat(headers: list[frozenset[tuple[str, str]]]) -> set[tuple[str, str]]:
    """Every marker of the headers."""
    found: set[tuple[str, str]] = set().union(*headers)
    return found


def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    raw = {"repository": "o/n", "bot_login": "perfbot[bot]", "issues": [{"number": 5}], "comments": []}
    path.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return path


def said(key: str) -> CommentAction:
    return CommentAction(issue=5, topic="packet-ready", body=marker("packet-ready", key) + "\nReady.")


def test_a_run_sees_markers_another_writer_saved_after_it_opened_the_file(tmp_path: Path) -> None:
    path = state(tmp_path)
    mine, other = OfflineGitHub.open(path, NOW), OfflineGitHub.open(path, NOW)
    assert flat(mine.headers_now(5)) == set()
    assert other.comment(said("a")) == 1
    assert flat(mine.headers_now(5)) == {("packet-ready", "a")}
    assert mine.comment(said("b")) == 1  # its own reading of the state: ids are not re-read
    assert flat(mine.headers_now(5)) == {("packet-ready", "b")}  # the file is now its own write
    assert flat(other.headers_now(5)) == {("packet-ready", "b")}
    assert flat(OfflineGitHub.open(path, NOW).headers_now(6)) == set()


def test_comment_ids_follow_the_largest_even_when_the_comments_change_between_writes(tmp_path: Path) -> None:
    github = OfflineGitHub.open(state(tmp_path), NOW)
    assert [github.comment(said("a")), github.comment(said("b"))] == [1, 2]
    github.raw["comments"].append({"id": 40, "issue": 5, "user": "perfbot[bot]", "body": marker("packet-ready", "c")})
    assert github.comment(said("d")) == 41
    assert flat(github.headers_now(5)) == {("packet-ready", k) for k in "abcd"}
    assert github.path is not None
    assert json.loads(github.path.read_text(encoding="utf-8")) == github.raw
