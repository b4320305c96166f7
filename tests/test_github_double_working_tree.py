"""The double reads the working tree's files again whenever one may have changed (`working_tree`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.github_double import working_tree
from tests.github_double.working_tree import file_text


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file written so far changed long enough ago to be settled."""
    monkeypatch.setattr(working_tree, "_now", lambda: time.time_ns() + 10 * working_tree.RACY_NS)


def test_what_is_not_a_file_has_no_text(tmp_path: Path) -> None:
    assert file_text(tmp_path / "missing") is None
    assert file_text(tmp_path) is None


def test_a_file_read_just_after_it_changed_is_never_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snapshot.yaml"
    path.write_text("one\n", encoding="utf-8")
    changed = max(path.stat().st_mtime_ns, path.stat().st_ctime_ns)
    monkeypatch.setattr(working_tree, "_now", lambda: changed + working_tree.RACY_NS - 1)  # however busy
    assert file_text(path) == "one\n"
    assert path not in working_tree._KEPT  # another write in the same tick could keep its identity


def test_a_settled_file_is_reused_until_its_identity_changes(tmp_path: Path, later: None) -> None:
    path, other = tmp_path / "snapshot.yaml", tmp_path / "other"
    path.write_text("one\n", encoding="utf-8")
    assert file_text(path) == "one\n"
    identity, _ = working_tree._KEPT[path]
    working_tree._KEPT[path] = (identity, "kept\n")
    assert file_text(path) == "kept\n"  # the same identity: the file is not read
    path.write_text("three\n", encoding="utf-8")  # another size
    assert file_text(path) == "three\n"
    other.write_text("four!\n", encoding="utf-8")
    other.replace(path)  # the same size, another inode
    assert file_text(path) == "four!\n"


def test_only_the_latest_texts_are_kept(tmp_path: Path, later: None) -> None:
    paths = [tmp_path / f"file-{n}" for n in range(working_tree._KEEP + 5)]
    for path in paths:
        path.write_text(path.name, encoding="utf-8")
        assert file_text(path) == path.name
    assert paths[-1] in working_tree._KEPT
    assert len(working_tree._KEPT) <= working_tree._KEEP
    assert paths[0] not in working_tree._KEPT


def test_a_file_dated_in_whole_seconds_is_settled_only_two_seconds_later() -> None:
    """A file system that keeps whole seconds gives two writes within one second the same times."""
    second = 1_900_000_000 * 10**9
    assert not working_tree.settled((second, second), second + working_tree.RACY_NS + 1)
    assert working_tree.settled((second, second), second + working_tree.COARSE_NS + 1)
    assert working_tree.settled((second, second + 7), second + 7 + working_tree.RACY_NS + 1)
    assert not working_tree.settled((second + 7, second), second + 7 + working_tree.RACY_NS)
