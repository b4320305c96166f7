"""Mutation testing of the pure core: each module mutated alone, against its own fast unit tests.

Run: python -m benchmarks.mutation [--module NAME ...] [--jobs N] [--summary FILE] [--fail-under 90]

`[tool.mutmut]` in pyproject.toml holds mutmut's settings and lists the pure core
(`only_mutate`); `[tool.mutation.tests]` maps each of those modules to its unit tests, and
`[tool.mutation.equivalent]` lists the survivors that are equivalent, each with its changed line
and why. Each module runs in its own copy of the repository under `.cache/mutation/<module>/`, so
mutmut's test selection is that module's tests only. Prints the per-module table (parsed from
`mutmut results`), then each survivor not marked equivalent with its changed lines.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".cache" / "mutation"
# mutmut's statuses that mean a test noticed the mutant (a mutant that hangs the tests, or crashes
# the interpreter running them, as a null pointer handed to cmark-gfm does, is caught).
CAUGHT = frozenset({"killed", "timeout", "segfault"})
_RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")
_IGNORED = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache")


@dataclass(frozen=True)
class Equivalent:
    """A survivor that changes no behaviour anyone relies on: the line it writes, and why."""

    change: str
    why: str


@dataclass(frozen=True)
class Plan:
    """What to mutate and with which tests, read from pyproject.toml."""

    mutmut: dict[str, Any]
    tests: dict[str, list[str]]
    equivalent: dict[str, Equivalent]

    def module(self, name: str) -> str:
        """The source file of a module given by its name (`levers`) or its path."""
        found = [path for path in self.tests if name in (path, Path(path).stem)]
        if len(found) != 1:
            raise SystemExit(f"unknown module {name!r}; modules: {', '.join(Path(p).stem for p in self.tests)}")
        return found[0]


class RunFailed(Exception):
    """mutmut could not test a module (its clean test run failed, say); the log says why."""


@dataclass
class Outcome:
    """One module's mutants by status, and the survivors that are not marked equivalent."""

    module: str
    statuses: dict[str, str]
    equivalent: list[str] = field(default_factory=list)
    survivors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    failed: str = ""

    @property
    def killed(self) -> int:
        return sum(status in CAUGHT for status in self.statuses.values())

    @property
    def score(self) -> float:
        if self.failed:
            return 0.0
        counted = len(self.statuses) - len(self.equivalent)
        return 100.0 * self.killed / counted if counted else 100.0


def load_plan(pyproject: Path) -> Plan:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    mutmut = data["tool"]["mutmut"]
    extra = data["tool"]["mutation"]
    tests: dict[str, list[str]] = extra["tests"]
    if sorted(tests) != sorted(mutmut["only_mutate"]):
        raise SystemExit("[tool.mutation.tests] must map exactly the modules of [tool.mutmut] only_mutate")
    equivalent = {name: Equivalent(**mark) for name, mark in extra.get("equivalent", {}).items()}
    return Plan(mutmut, tests, equivalent)


def mutmut_table(settings: dict[str, Any]) -> str:
    """A `[tool.mutmut]` table; JSON's strings, lists and booleans are also TOML's."""
    return "[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())


def without_table(text: str, header: str) -> str:
    """The TOML text without one top-level table (its header up to the next header)."""
    lines = text.splitlines(keepends=True)
    start = lines.index(header + "\n")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    return "".join(lines[:start] + lines[end:])


def prepare(plan: Plan, source: str) -> Path:
    """A fresh copy of the repository whose mutmut mutates `source` against its own tests only."""
    work = WORK / Path(source).stem
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in sorted({*plan.mutmut["source_paths"], *plan.mutmut.get("also_copy", ()), "tests/"}):
        origin, target = ROOT / name, work / name
        if not origin.exists():
            continue
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=_IGNORED, dirs_exist_ok=True)
        else:
            shutil.copy2(origin, target)
    settings = {**plan.mutmut, "only_mutate": [source], "pytest_add_cli_args_test_selection": plan.tests[source]}
    text = without_table((ROOT / "pyproject.toml").read_text(encoding="utf-8"), "[tool.mutmut]")
    (work / "pyproject.toml").write_text(text + "\n" + mutmut_table(settings), encoding="utf-8")
    return work


def mutmut(work: Path, *args: str, log: Path | None = None) -> str:
    """Run the mutmut next to this interpreter in `work`; its output, or it goes to `log`. The
    property tests run their full example counts (tests/support/property_budget.py), as when the table
    in docs/testing.md was measured, unless HYPOTHESIS_PROFILE says otherwise."""
    command = [str(Path(sys.executable).with_name("mutmut")), *args]
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "thorough")}
    if log is None:
        return subprocess.run(command, cwd=work, check=True, capture_output=True, text=True, env=env).stdout
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(command, cwd=work, check=False, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        raise RunFailed(f"mutmut exited {done.returncode}; see {log.relative_to(ROOT)}")
    return ""


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a unified diff, stripped."""
    lines = diff.splitlines()
    removed = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    return removed, added


def judge(plan: Plan, source: str, work: Path, statuses: dict[str, str]) -> Outcome:
    """Sort the survivors: marked equivalent (when the mark still matches the mutant) or not."""
    outcome = Outcome(Path(source).stem, statuses)
    for name, status in sorted(statuses.items()):
        if status in CAUGHT:
            continue
        removed, added = changed_lines(mutmut(work, "show", name))
        mark = plan.equivalent.get(name)
        if mark is not None and mark.change in added:
            outcome.equivalent.append(name)
        else:
            stale = f"  (marked equivalent for {mark.change!r}, but it now writes {added})" if mark else ""
            outcome.survivors.append((name, f"{status}: {' / '.join(removed)} -> {' / '.join(added)}{stale}"))
    return outcome


def run_module(plan: Plan, source: str, jobs: int) -> Outcome:
    work = prepare(plan, source)
    started = time.perf_counter()
    mutmut(work, "run", "--max-children", str(jobs), log=work / "mutmut.log")
    statuses = {}
    for line in mutmut(work, "results", "--all", "true").splitlines():
        match = _RESULT_LINE.match(line)
        if match:
            statuses[match.group(1)] = match.group(2)
    if not statuses:
        raise RunFailed(f"no mutants; see {(work / 'mutmut.log').relative_to(ROOT)}")
    outcome = judge(plan, source, work, statuses)
    outcome.seconds = time.perf_counter() - started
    return outcome


def table(outcomes: list[Outcome]) -> str:
    rows = [
        "| module | mutants | killed | equivalent | survived | score | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for o in outcomes:
        if o.failed:
            rows.append(f"| {o.module} | failed: {o.failed} | | | | | |")
            continue
        rows.append(
            f"| {o.module} | {len(o.statuses)} | {o.killed} | {len(o.equivalent)} | {len(o.survivors)} "
            f"| {o.score:.0f}% | {o.seconds:.0f} |"
        )
    return "\n".join(rows)


def report(outcomes: list[Outcome], plan: Plan) -> str:
    """The table, the date it was measured, and each survivor to look at."""
    version = mutmut(ROOT, "--version").strip()
    lines = [f"Mutation score of the pure core, {dt.datetime.now(dt.UTC).date()} ({version}):", "", table(outcomes)]
    survivors = [(o.module, name, what) for o in outcomes for name, what in o.survivors]
    if survivors:
        lines += ["", "Survivors not marked equivalent:", ""]
        lines += [f"- {module}: `{name}` {what}" for module, name, what in survivors]
    found = {name for o in outcomes for name in o.statuses}
    ran = {o.module for o in outcomes}
    stale = [n for n in plan.equivalent if n not in found and any(f".{m}.x_" in n for m in ran)]
    if stale:
        lines += ["", "Equivalent marks that match no mutant: " + ", ".join(f"`{n}`" for n in stale)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", default=[], help="a module name or path; repeat; default all")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants tested at once")
    parser.add_argument("--summary", type=Path, help="also append the report to this Markdown file")
    parser.add_argument("--fail-under", type=float, default=0.0, help="exit 1 if a module scores below this")
    args = parser.parse_args()
    plan = load_plan(ROOT / "pyproject.toml")
    sources = [plan.module(name) for name in args.module] or list(plan.tests)
    outcomes = []
    for source in sources:
        print(f"mutating {source} ...", file=sys.stderr, flush=True)
        try:
            outcomes.append(run_module(plan, source, args.jobs))
        except RunFailed as failure:
            outcomes.append(Outcome(Path(source).stem, {}, failed=str(failure)))
    text = report(outcomes, plan)
    print(text)
    if args.summary is not None:
        with args.summary.open("a", encoding="utf-8") as summary:
            summary.write(text + "\n")
    if any(o.score < args.fail_under for o in outcomes):
        sys.exit(1)


if __name__ == "__main__":
    main()
