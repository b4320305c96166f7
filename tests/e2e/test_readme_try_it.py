"""The README's "Try it", run as written: each line of its two blocks in bash, from a folder that
stands for a fresh clone (its `.venv` is this one's), against the playground's GitHub double.

The first line installs the test extra; the suite runs inside that install, so it is checked
for what it installs and not run again.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.closed_pipe import assert_ends_quietly_on_a_closed_pipe
from tests.support.paths import ROOT

INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'"
PLAYGROUND = ".venv/bin/python -m tests.github_double.playground"


def section() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    text = readme.split("\n## Try it\n", 1)[1].split("\n## ", 1)[0]
    return [block.strip().splitlines() for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Path]:
    """A folder with this project's venv as its `.venv`; the double it starts is stopped after."""
    (tmp_path / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    yield tmp_path
    if (tmp_path / "playground" / "double.json").exists():
        shell(tmp_path, f"{PLAYGROUND} stop")


def shell(folder: Path, line: str) -> str:
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}  # a clone's root: `tests` importable
    done = subprocess.run(
        ["bash", "-c", line], cwd=folder, env=environ, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_five_commands_from_a_fresh_clone_comment_on_the_double_and_show_the_dashboard(clone: Path) -> None:
    first, then = section()
    assert len(first) == 5
    assert first[0] == INSTALL
    assert sys.prefix != sys.base_prefix  # the suite runs in a venv, as the install line makes one
    said = [shell(clone, line) for line in first[1:]]
    started, commented, ran, shown = said
    assert "What to do next:" in started
    assert re.search(r"GitHub double for acme/widgets at http://127\.0\.0\.1:\d+", started)
    assert "sam commented on #3" in commented
    assert "accepted (sam will be assigned to #3" in ran
    assert "open the dashboard issue" in ran
    assert "### Ready now" in shown
    assert (clone / "playground" / "dashboard.html").read_text(encoding="utf-8").count("<h3") >= 2
    # `show` to a reader that went away (`show 3 | head`) stops with no traceback.
    show = [".venv/bin/python", "-m", "tests.github_double.playground", "show", "3"]
    assert_ends_quietly_on_a_closed_pipe(show, clone, {**os.environ, "PYTHONPATH": str(ROOT)})

    outputs = [shell(clone, line) for line in then]
    assert outputs[-1].startswith("stopped the double of acme/widgets")
    assert not (clone / "playground" / "double.json").exists()
    state = json.loads((clone / "playground" / "state.json").read_text(encoding="utf-8"))
    assert [p["state"] for p in state["pulls"]] == ["merged"]
    assert ("sam" in next(i for i in state["issues"] if i["number"] == 3)["assignees"]) is True
    snapshot = (clone / "playground" / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    profile = snapshot.split("- id: api.profile-handlers", 1)[1].split("- id:", 1)[0]
    assert "state: complete" in profile  # merged, and checked out by the last run
