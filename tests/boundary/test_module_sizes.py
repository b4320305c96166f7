"""The size rule of the house style: a function of `bot/` is at most 60 lines, so each reads as one
step. Modules are split by concern, not by length: a long module is a prompt to look for a second
concern in it (`docs/architecture.md`), never a reason on its own to split it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

MAX_FUNCTION_LINES = 60


def oversized(source: str) -> list[str]:
    """The functions in `source` that break the size rule, as `name: N lines`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{node.name}: {length} lines")
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "bot").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_stay_within_the_size_rule(path: Path) -> None:
    assert oversized(path.read_text(encoding="utf-8")) == []


def test_the_rule_counts_a_long_function_and_not_a_long_module() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert oversized(f"def fits():\n{body}") == []
    assert oversized(f"async def long():\n{body}    y = 0\n") == [f"long: {MAX_FUNCTION_LINES + 1} lines"]
    assert oversized("x = 1\n" * 2_000) == []
