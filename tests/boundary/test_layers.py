"""The package order: every import of `bot` runs down the layers below, and no module imports
itself back through others (no circle), whether the import is at the top of a module, inside a
function, or only for type checking.

The shared words sit at the bottom: the errors, the neutralising of outside text, times, files,
the run context, then `github` (the port, the actions it performs, what GitHub sends, the
adapters), then the snapshot, the config, the evidence, the renderer, the commands, the
reconcile, and the command line on top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.support.paths import ROOT

BOT = ROOT / "bot"
# Bottom first. A module is placed by its longest matching prefix (`bot` names the package alone).
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "bot",
        "bot.errors",
        "bot.untrusted",
        "bot.timestamps",
        "bot.files",
        "bot.json_input",
        "bot.json_text",
        "bot.recent",
        "bot.schema_kinds",
        "bot.issue_refs",
    ),
    ("bot.context", "bot.annotations"),
    ("bot.github",),
    ("bot.snapshot",),
    ("bot.config",),
    ("bot.evidence",),
    ("bot.render",),
    ("bot.bodies",),
    ("bot.commands",),
    ("bot.reconcile",),
    ("bot.workflow", "bot.schemas", "bot.reference", "bot.adopt", "bot.generated", "bot.upstream"),
    ("bot.compiled_templates",),
    ("bot.action_metadata",),
    ("bot.cli", "bot.__main__"),
)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, name: str, package: bool) -> set[str]:
    """Every `bot` module `source` imports, anywhere in it; `from bot.x import y` names `bot.x.y`
    too, which counts only when that is a module."""
    found: set[str] = set()
    base = name.split(".") if package else name.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join([*base[: len(base) - node.level + 1], *([module] if module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {m for m in found if m == "bot" or m.startswith("bot.")}


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    return {
        name: {m for m in imports_of(p.read_text(encoding="utf-8"), name, p.name == "__init__.py") if m in modules}
        - {name}
        for name, p in modules.items()
    }


def layer_of(module: str) -> int:
    matches = [
        (len(prefix), index)
        for index, prefixes in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (prefix != "bot" and module.startswith(prefix + "."))
    ]
    if not matches:
        raise AssertionError(f"{module} is in no layer of LAYERS")
    return max(matches)[1]


def upward(graph: Mapping[str, Iterable[str]]) -> list[str]:
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(source)
    )


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def bot_graph() -> dict[str, set[str]]:
    """The package's import graph, read once for the tests of it (about a second of parsing)."""
    return import_graph(BOT)


def test_every_import_runs_down_the_layers(bot_graph: dict[str, set[str]]) -> None:
    assert upward(bot_graph) == []


def test_no_module_imports_itself_back(bot_graph: dict[str, set[str]]) -> None:
    assert circles(bot_graph) == []


def test_the_ports_words_import_nothing_else_of_bot(bot_graph: dict[str, set[str]]) -> None:
    """`bot.github.actions` is named by every layer above it, down to the adapters."""
    assert bot_graph["bot.github.actions"] <= {"bot.issue_refs"}


def test_every_module_has_a_layer(bot_graph: dict[str, set[str]]) -> None:
    for module in bot_graph:
        layer_of(module)


@pytest.mark.parametrize(
    ("files", "expected_up", "expected_circles"),
    [
        (
            {"bot/errors.py": "", "bot/github/__init__.py": "", "bot/github/port.py": "from bot.errors import X\n"},
            [],
            [],
        ),
        (
            {
                "bot/errors.py": "def f():\n    from bot.github import port\n",
                "bot/github/__init__.py": "",
                "bot/github/port.py": "",
            },
            ["bot.errors -> bot.github", "bot.errors -> bot.github.port"],
            [],
        ),
        (
            {
                "bot/reconcile/__init__.py": "",
                "bot/reconcile/a.py": "from bot.reconcile import b\n",
                "bot/reconcile/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n",
            },
            [],
            [["bot.reconcile.a", "bot.reconcile.b"]],
        ),
    ],
)
def test_the_rules_catch_an_upward_import_and_a_circle(
    tmp_path: Path, files: dict[str, str], expected_up: list[str], expected_circles: list[list[str]]
) -> None:
    for name, text in {"bot/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path / "bot")
    assert upward(graph) == expected_up
    assert circles(graph) == expected_circles
