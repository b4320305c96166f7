"""The double reads the working tree's files as they are at each request (`working_tree`)."""

from __future__ import annotations

from pathlib import Path

from tests.github_double.working_tree import file_text


def test_what_is_not_a_file_has_no_text(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "missing")
    assert [file_text(tmp_path / name) for name in ("folder", "link", "absent")] == [None, None, None]


def test_a_file_is_read_as_it_is_now(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text("one", encoding="utf-8")
    assert file_text(path) == "one"
    path.write_text("two", encoding="utf-8")  # same size, likely the same clock tick
    assert file_text(path) == "two"
