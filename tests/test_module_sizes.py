"""The size rules of the house style: a module of `bot/` is at most 300 lines and a function at
most 60, so each stays readable as one concern."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT

MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def oversized(source: str) -> list[str]:
    """What in `source` breaks a size rule, as `name: N lines`."""
    found = []
    lines = source.count("\n") + (not source.endswith("\n") and bool(source))
    if lines > MAX_MODULE_LINES:
        found.append(f"module: {lines} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{node.name}: {length} lines")
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "bot").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_stay_within_the_size_rules(path: Path) -> None:
    assert oversized(path.read_text(encoding="utf-8")) == []


def test_the_rule_counts_a_long_function_and_a_long_module() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert oversized(f"def fits():\n{body}") == []
    assert oversized(f"async def long():\n{body}    y = 0\n") == [f"long: {MAX_FUNCTION_LINES + 1} lines"]
    assert oversized("x = 1\n" * MAX_MODULE_LINES) == []
    assert oversized("x = 1\n" * (MAX_MODULE_LINES + 1)) == [f"module: {MAX_MODULE_LINES + 1} lines"]
