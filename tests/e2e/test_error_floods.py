"""A flood of problems in an input is told by its first hundred and a count of the rest (issue #40):
200,000 unknown snapshot keys once printed 11.4 MB, and `import` with 10,000 unknown keys 10,000
lines. The run still refuses, names each shown problem where it is, and writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.e2e.test_import import CURRENT, GRAPH, edited, run_import, tree
from tests.support.harness import Repo


def test_a_snapshot_with_thousands_of_unknown_keys_shows_the_first_hundred_and_counts_the_rest(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = sandbox.root / "config" / "snapshot.yaml"
    text = snapshot.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    snapshot.write_text(text + "".join(f"unknown_{n:05}: {n}\n" for n in range(5000)), encoding="utf-8")
    assert main(["validate", "--config", str(sandbox.config)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 101
    assert err[0] == f"{snapshot}:{lines + 1}:1: unknown_00000: unknown key"
    assert err[99] == f"{snapshot}:{lines + 100}:1: unknown_00099: unknown key"
    assert err[100] == "… and 4900 more problems"


@pytest.mark.parametrize(("count", "last"), [(100, None), (101, "… and 1 more problem")])
def test_an_import_with_many_unknown_keys_shows_at_most_a_hundred(
    tmp_path: Path, count: int, last: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    def unknowns(data: dict[str, Any]) -> None:
        for n in range(count):
            data["work_packets"][0][f"extra_{n:05}"] = n

    repo = tmp_path / "fak"
    repo.mkdir()
    assert run_import(repo, edited(tmp_path, CURRENT, unknowns), GRAPH) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == min(count, 100) + (1 if last else 0)
    assert all(": unknown key" in line for line in err[:100])
    assert (err[-1] if last else None) == last
    assert tree(repo) == {}
