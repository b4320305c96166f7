"""The layering rules: the pure core reads no files, no network and no clock; I/O stays at the edges.

Checked on each module's own imports and calls (its source), so a rule broken in one module is
named there, whatever that module's imports bring in transitively.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

BOT = ROOT / "bot"
PURE = [
    *sorted((BOT / "snapshot").glob("*.py")),
    *sorted((BOT / "evidence").glob("*.py")),
    *sorted((BOT / "commands").glob("*.py")),
    BOT / "reconcile" / "decide.py",
    BOT / "reconcile" / "inputs.py",
    BOT / "reconcile" / "plan.py",
    BOT / "reconcile" / "view.py",
    BOT / "reconcile" / "nudges.py",
    BOT / "reconcile" / "proposal.py",
    BOT / "reconcile" / "labels_and_links.py",
    BOT / "reconcile" / "schedule.py",
    BOT / "reconcile" / "reach.py",
    BOT / "reconcile" / "changes.py",
    BOT / "reconcile" / "dashboard.py",
]
# The store (store*.py) is the one place that touches ruamel and the snapshot file.
PURE = [p for p in PURE if not p.name.startswith("store")]
FORBIDDEN_MODULES = ("os", "pathlib", "httpx", "githubkit", "ruamel", "socket", "subprocess", "time")
CLOCK_CALLS = ("now", "utcnow", "today", "time")


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def clock_reads(tree: ast.AST) -> list[str]:
    """Calls such as `dt.datetime.now()` or `date.today()`: the clock is an argument in the core."""
    return [
        ast.unparse(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCK_CALLS
        and any(part in ast.unparse(node.func) for part in ("datetime", "date", "time"))
    ]


def violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [m for m in imported_modules(tree) if m.split(".")[0] in FORBIDDEN_MODULES]
    return [f"imports {m}" for m in sorted(bad)] + [f"reads the clock: {c}()" for c in clock_reads(tree)]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pure_core_does_no_io_and_reads_no_clock(path: Path) -> None:
    assert violations(path) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os\n", ["imports os"]),
        ("from pathlib import Path\n", ["imports pathlib"]),
        ("import githubkit.versions\n", ["imports githubkit.versions"]),
        ("from httpx import Client\n", ["imports httpx"]),
        ("import datetime as dt\nx = dt.datetime.now(dt.UTC)\n", ["reads the clock: dt.datetime.now()"]),
        ("from datetime import date\nx = date.today()\n", ["reads the clock: date.today()"]),
        ("import datetime as dt\nx = dt.datetime.fromisoformat('2026-01-01')\n", []),
        ("from bot.snapshot.model import Snapshot\n", []),
    ],
)
def test_the_rule_catches_each_kind_of_break(tmp_path: Path, source: str, expected: list[str]) -> None:
    module = tmp_path / "module.py"
    module.write_text(source, encoding="utf-8")
    assert violations(module) == expected


def test_every_pure_package_is_checked() -> None:
    names = {p.relative_to(BOT).parts[0] for p in PURE}
    assert names == {"snapshot", "evidence", "commands", "reconcile"}
    assert len(PURE) >= 12


def test_only_the_cli_reads_the_environment() -> None:
    readers = sorted(
        str(p.relative_to(ROOT))
        for p in BOT.rglob("*.py")
        if re.search(r"os\.environ|getenv", p.read_text(encoding="utf-8")) and p.relative_to(BOT).parts[0] != "cli"
    )
    assert readers == []
