"""Where the suite's temporary files go (`tests/support/scratch_space.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.scratch_space import memory_folder


def test_a_memory_folder_with_room_is_used(tmp_path: Path) -> None:
    assert memory_folder({}, tmp_path, room=1) == str(tmp_path)


def test_a_folder_the_person_chose_is_kept(tmp_path: Path) -> None:
    assert memory_folder({"TMPDIR": "/var/tmp"}, tmp_path, room=1) is None


def test_an_empty_tmpdir_is_no_choice(tmp_path: Path) -> None:
    assert memory_folder({"TMPDIR": ""}, tmp_path, room=1) == str(tmp_path)


def test_a_folder_without_room_is_not_used(tmp_path: Path) -> None:
    stats = os.statvfs(tmp_path)
    free = stats.f_bavail * stats.f_frsize
    assert memory_folder({}, tmp_path, room=free + 2**30) is None


def test_no_folder_or_a_file_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert memory_folder({}, tmp_path / "absent", room=1) is None
    assert memory_folder({}, tmp_path / "file", room=1) is None


def test_this_run_keeps_its_temporary_files_where_tmpdir_says(tmp_path: Path) -> None:
    """The conftest sets TMPDIR before pytest first asks for its folder, so tmp_path follows it."""
    chosen = os.environ.get("TMPDIR")
    if chosen:
        assert tmp_path.resolve().is_relative_to(Path(chosen).resolve())
    else:
        assert memory_folder(os.environ) is None


def test_a_folder_that_cannot_be_written_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`os.access` stands in for a folder without write permission (root, which runs CI, may write anywhere)."""
    monkeypatch.setattr("tests.support.scratch_space.os.access", lambda path, mode: False)
    assert memory_folder({}, tmp_path, room=1) is None
