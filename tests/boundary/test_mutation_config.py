"""The mutation-testing setup in pyproject.toml holds together, and the runner's text helpers work.

The run itself is slow and lives outside the suite (`python -m benchmarks.mutation`, docs/testing.md).
"""

from __future__ import annotations

import tomllib

from benchmarks.mutation import changed_lines, load_plan, mutmut_table, without_table
from tests.support.paths import ROOT


def test_every_module_of_the_pure_core_has_unit_tests_that_exist() -> None:
    plan = load_plan(ROOT / "pyproject.toml")
    assert len(plan.tests) >= 20
    for source, tests in plan.tests.items():
        assert (ROOT / source).is_file(), source
        assert tests, source
        for test in tests:
            assert (ROOT / test).is_file(), test


def test_every_equivalent_mark_names_a_mutant_of_the_core_and_says_why() -> None:
    plan = load_plan(ROOT / "pyproject.toml")
    modules = {source.removesuffix(".py").replace("/", ".") for source in plan.tests}
    for name, mark in plan.equivalent.items():
        assert name.rsplit(".", 1)[0] in modules, name
        assert "__mutmut_" in name, name
        assert mark.change.strip(), name
        assert len(mark.why) > 10, name


def test_the_module_table_is_swapped_for_a_generated_one() -> None:
    text = '[project]\nname = "x"\n\n[tool.mutmut]\nonly_mutate = [\n    "a.py",\n]\n\n[tool.other]\nkey = 1\n'
    swapped = without_table(text, "[tool.mutmut]") + mutmut_table({"only_mutate": ["b.py"], "debug": False})
    data = tomllib.loads(swapped)
    assert data["tool"]["mutmut"] == {"only_mutate": ["b.py"], "debug": False}
    assert data["tool"]["other"] == {"key": 1}
    assert data["project"] == {"name": "x"}


def test_changed_lines_reads_a_unified_diff() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1,3 +1,3 @@\n def f():\n-    return a < b\n+    return a <= b\n"
    assert changed_lines(diff) == (["return a < b"], ["return a <= b"])


def test_the_workflow_runs_the_benchmark_and_ci_does_not() -> None:
    workflow = (ROOT / ".github" / "workflows" / "mutation.yml").read_text(encoding="utf-8")
    assert "python -m benchmarks.mutation" in workflow
    assert "mutation" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
