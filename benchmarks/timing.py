"""Running the CLI as a user's job would, and timing it in interleaved rounds.

Each timed run is a fresh `python -m bot` process whose CPU time is read from `os.wait4`, so it is
that child's own user+system time (no other process's, and not the double serving it). The rounds
run every case at every size once, in a new shuffled order each round: a machine that slows down
for a minute slows all sizes alike instead of the one case that happened to run then.

The machine may export PYTHONDONTWRITEBYTECODE=1; a real install has `.pyc` files, so the
package is compiled first and the children run without that variable.
"""

from __future__ import annotations

import compileall
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bot
from benchmarks.growth import Timing
from benchmarks.paths import REPOSITORY
from benchmarks.worlds import merge_pull

APPLIED = re.compile(r"applied (\d+) actions; (\d+) deferred")
PLANTED = REPOSITORY / "benchmarks" / "planted.py"


@dataclass(frozen=True)
class Child:
    wall: float
    cpu: float
    stderr: str


@dataclass(frozen=True)
class Run:
    """One case at one size: the CLI's arguments, and the state file each timed run starts from."""

    case: str
    size: str
    scale: float
    args: tuple[str, ...]
    cwd: Path
    state: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    plant: str | None = None  # a slowdown `benchmarks/planted.py` adds, to show the judge fails it


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without the bytecode switch, and without a job's GITHUB_* (a live
    case names its double in `extra`; a benchmark started in Actions must not read the job's event)."""
    keep = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("GITHUB_")}
    return {**keep, **extra}


def compile_package() -> None:
    """Write the package's `.pyc` files (the dependencies' were written when pip installed them)."""
    compileall.compile_dir(str(Path(bot.__file__).parent), quiet=1)


def command(run: Run) -> list[str]:
    if run.plant is None:
        return [sys.executable, "-m", "bot", *run.args]
    return [sys.executable, str(PLANTED), run.plant, f"{run.scale:g}", *run.args]


def child(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Child:
    """One process, waited for with `os.wait4` for its own rusage; a failure stops the benchmark."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=child_environment(env), stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:])} exited {process.returncode}:\n{stderr[-2000:]}")
    return Child(wall, usage.ru_utime + usage.ru_stime, stderr)


def perfbot(args: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> Child:
    return child([sys.executable, "-m", "bot", *args], cwd, env or {})


def settle(args: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None, runs: int = 10) -> None:
    """Run until a run writes nothing (every reply, label, link and the PR written)."""
    for _ in range(runs):
        stderr = perfbot([*args, "--max-writes", "1000000"], cwd, env).stderr
        found = APPLIED.search(stderr)
        if found is None:  # the summary line is what tells a settled world: without it, nothing is known
            raise SystemExit(f"perfbot {' '.join(args)} printed no `applied … actions` line:\n{stderr[-2000:]}")
        if found.group(1) == "0" and found.group(2) == "0":
            return
    raise SystemExit(f"perfbot {' '.join(args)} still writes after {runs} runs")


def settle_merged(args: Sequence[str], cwd: Path, state: Path, merges: int = 5) -> None:
    """Settle, merging the bot's PR each time, until the default branch holds what the bot derives."""
    for _ in range(merges):
        settle(args, cwd)
        if not merge_pull(cwd, state):
            return
    raise SystemExit(f"perfbot {' '.join(args)} still proposes a PR after {merges} merges")


def rounds(runs: Sequence[Run], repeat: int, seed: int = 0) -> list[Timing]:
    """`repeat` rounds of every run, each round in its own shuffled order; a run's state file is
    restored (untimed) before each of its runs, so every round times the same work."""
    pristine = {run.state: run.state.read_bytes() for run in runs if run.state is not None}
    cpus: list[list[float]] = [[] for _ in runs]
    walls: list[list[float]] = [[] for _ in runs]
    for n in range(repeat):
        order = list(range(len(runs)))
        random.Random(seed * 1000 + n).shuffle(order)
        for index in order:
            run = runs[index]
            if run.state is not None and run.state.read_bytes() != pristine[run.state]:
                run.state.write_bytes(pristine[run.state])
            done = child(command(run), run.cwd, run.env)
            cpus[index].append(done.cpu)
            walls[index].append(done.wall)
        print(f"round {n + 1} of {repeat} done", file=sys.stderr)
    for path, text in pristine.items():
        path.write_bytes(text)
    return [Timing(r.case, r.size, r.scale, tuple(c), tuple(w)) for r, c, w in zip(runs, cpus, walls, strict=True)]
