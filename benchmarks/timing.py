"""Running the CLI as a user's job would: a fresh process, with compiled bytecode, timed whole.

The machine may export PYTHONDONTWRITEBYTECODE=1; a real install has `.pyc` files, so the
package is compiled first and the children run without that variable.
"""

from __future__ import annotations

import compileall
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import bot
from benchmarks.growth import Timing
from benchmarks.worlds import merge_pull

APPLIED = re.compile(r"applied (\d+) actions; (\d+) deferred")


def child_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_package() -> None:
    """Write the package's `.pyc` files (the dependencies' were written when pip installed them)."""
    compileall.compile_dir(str(Path(bot.__file__).parent), quiet=1)


def perfbot(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One CLI process; a failure stops the benchmark with the CLI's own words."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=child_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"perfbot {' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done


def settle(args: Sequence[str], cwd: Path, runs: int = 10) -> None:
    """Run until a run writes nothing (every reply, label, link and the PR written)."""
    for _ in range(runs):
        stderr = perfbot([*args, "--max-writes", "1000000"], cwd).stderr
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


def timed(
    case: str, size: str, scale: float, args: Sequence[str], cwd: Path, repeat: int, state: Path | None
) -> Timing:
    """The median of `repeat` runs; each starts from the same state file (restored, untimed)."""
    pristine = state.with_suffix(".pristine") if state is not None else None
    if state is not None and pristine is not None:
        shutil.copyfile(state, pristine)
    walls, cpus = [], []
    for _ in range(repeat):
        if state is not None and pristine is not None:
            shutil.copyfile(pristine, state)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        perfbot(args, cwd)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    if state is not None and pristine is not None:
        shutil.copyfile(pristine, state)
    return Timing(case, size, scale, statistics.median(walls), statistics.median(cpus), repeat)
