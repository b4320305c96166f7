"""The observation cache file: when it is used, how it is kept, and GitHub's time that dates it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.github.live import cache
from bot.github.live.client import server_time
from bot.github.observed import Comment, Issue

WATERMARK = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)


def made(**changes: object) -> cache.ObservationCache:
    entry = cache.CachedIssue(
        issue=Issue(number=7),
        updated_at=WATERMARK,
        comments=(Comment(id=1, issue=7, user="alice", created_at=WATERMARK, body="hi"),),
    )
    fields: dict[str, object] = {
        "format": cache.FORMAT,
        "repository": "o/r",
        "bot_login": "perfbot[bot]",
        "reads": "",
        "watermark": WATERMARK,
        "issues": {7: entry, 8: entry.model_copy(update={"issue": Issue(number=8)})},
    }
    return cache.ObservationCache.model_validate(fields | changes)


def expected(now: dt.datetime = WATERMARK, login: str | None = None) -> cache.Expected:
    return cache.Expected("O/R", login, now)


def test_a_cache_is_used_within_a_day_of_its_watermark_for_the_same_repository(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    cache.Keeper(path).keep(made())
    assert cache.load(path, expected(WATERMARK + dt.timedelta(hours=23))) == made()
    assert cache.load(path, expected(WATERMARK + dt.timedelta(hours=25))) is None
    assert cache.load(path, expected(login="github-actions[bot]")) is None
    assert cache.load(path, expected(login="perfbot[bot]")) == made()


def test_an_absent_file_is_a_silent_full_read_and_a_bad_one_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cache.load(tmp_path / "none.json", expected()) is None
    assert capsys.readouterr().err == ""
    (tmp_path / "bad.json").write_text('{"format": 1, "extra": true}', encoding="utf-8")
    assert cache.load(tmp_path / "bad.json", expected()) is None
    assert "warning: observation cache" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"format": 1,\n "format": 1}', 'unreadable at 2:2 (the cache: duplicate key "format")'),
        ('{"format": 1,\n x}', "unreadable at 2:2 (the cache is not valid JSON"),
        ("[" * 70 + "]" * 70, "unreadable"),
    ],
)
def test_a_cache_that_is_not_json_is_a_warning_naming_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    assert cache.load(tmp_path / "bad.json", expected()) is None
    assert f"warning: observation cache {tmp_path / 'bad.json'}: {said}" in capsys.readouterr().err


def test_touch_marks_each_issue_stale_once_and_writes_the_file_each_time(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    keeper = cache.Keeper(path)
    keeper.keep(made())
    keeper.touch(7)
    first = path.read_text(encoding="utf-8")
    keeper.touch(7)
    assert path.read_text(encoding="utf-8") == first
    on_disk = cache.load(path, expected())
    assert on_disk is not None
    assert {n: e.stale for n, e in on_disk.issues.items()} == {7: True, 8: False}


def test_a_read_without_a_server_time_removes_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    cache.Keeper(path).keep(made())
    keeper = cache.Keeper(path)
    keeper.keep(None)
    keeper.touch(7)
    assert not path.exists()


def test_a_file_that_cannot_be_written_is_a_warning_and_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "dir"
    blocked.mkdir()
    cache.Keeper(blocked).keep(made())  # a directory where the file should be
    assert "warning: observation cache" in capsys.readouterr().err


def test_server_time_reads_an_http_date_and_refuses_anything_else() -> None:
    assert server_time("Thu, 27 Aug 2026 23:00:05 GMT") == WATERMARK + dt.timedelta(seconds=5)
    assert server_time("") is None
    assert server_time("yesterday") is None
    assert server_time("Thu, 27 Aug 2026 23:00:05 -0000") is None  # no zone: not GitHub's form
