"""The workers of `pytest -n` split the first import of the test modules (`tests/split_rewrite.py`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests import split_rewrite


def tree(root: Path, *files: str) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("", encoding="utf-8")


def session(root: Path, *args: str) -> Any:
    config = SimpleNamespace(
        args=list(args),
        invocation_params=SimpleNamespace(dir=root),
        getini=lambda name: ["test_*.py", "*_test.py"] if name == "python_files" else [],
    )
    return SimpleNamespace(config=config)


def test_a_module_is_named_by_its_packages(tmp_path: Path) -> None:
    tree(tmp_path, "t/__init__.py", "t/unit/__init__.py", "t/unit/test_a.py", "loose/test_b.py")
    assert split_rewrite.module_name(tmp_path / "t" / "unit" / "test_a.py") == "t.unit.test_a"
    assert split_rewrite.module_name(tmp_path / "loose" / "test_b.py") is None  # pytest names it otherwise


def test_only_the_modules_pytest_collects_under_its_paths(tmp_path: Path) -> None:
    tree(tmp_path, "t/__init__.py", "t/test_a.py", "t/b_test.py", "t/helper.py", "u/test_c.py", "t/sub/test_d.py")
    found = split_rewrite.modules_to_collect(session(tmp_path, "t", "u/test_c.py::test_x"))
    names = [p.relative_to(tmp_path).as_posix() for p in found]
    assert names == ["t/b_test.py", "t/sub/test_d.py", "t/test_a.py", "u/test_c.py"]


def test_each_worker_starts_at_its_share_and_wraps_around(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [f"t/test_{n}.py" for n in range(6)]
    tree(tmp_path, "t/__init__.py", *files)
    imported: list[str] = []

    def record(name: str) -> None:
        imported.append(name)
        if name.endswith("test_2"):
            raise ImportError("left for collection to report")

    monkeypatch.setattr(split_rewrite, "_import", record)
    split_rewrite.import_share(session(tmp_path, "t"), 1, 3)
    assert imported == [f"t.test_{n}" for n in (2, 3, 4, 5, 0, 1)]
