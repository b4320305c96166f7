"""Whole-process timings of the CLI, as a user or a workflow waits for them.

Each case runs `python -m bot` in a fresh process, `--repeat` times (default 5), on a throwaway
repository built with `benchmarks.synthetic` in a temporary directory, and reports the median
wall-clock and CPU seconds. Before timing, the package is compiled (`compileall`) and the children
run without PYTHONDONTWRITEBYTECODE, as an installed perfbot would. Cases:

- seed reconcile: the seed and `examples/offline-state.json`, `--dry-run`;
- a non-command comment event (the early exit) and `validate`;
- nothing changed: 1×, 10×, 100× the seed once every write is made and the bot's PR is merged;
- leases released: the same worlds with no live lease, so packets change and the PR is built;
- 1,000 and 10,000 comments, one in ten a command, before the bot answered (a run with the
  default write budget) and after (the first run answers everything; the second is timed).

Every timed run starts from the same state file. The table gives, from one size to the next, the
size factor and the growth factor; the exit status is 1 when a growth factor exceeds 1.5× its
size factor (`benchmarks.growth`).

Run: python -m benchmarks [--repeat N] [--quick] [--json]   (`--quick` skips 100× and 10,000)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks import worlds
from benchmarks.growth import Timing, as_json, exit_status, table
from benchmarks.timing import compile_package, settle, settle_merged, timed


def reconcile_args(root: Path, state: Path, *extra: str) -> list[str]:
    config = str(root / "config" / "perfbot.yaml")
    return ["reconcile", "--config", config, "--offline", str(state), "--now", worlds.NOW, *extra]


def seed_cases(root: Path, repeat: int) -> list[Timing]:
    state = worlds.repository(root, 1)
    event = worlds.comment_event(root)
    quiet = ["--event-name", "issue_comment", "--event-path", str(event)]
    return [
        timed("seed reconcile (--dry-run)", "seed", 1, reconcile_args(root, state, "--dry-run"), root, repeat, None),
        timed("non-command comment event", "seed", 1, reconcile_args(root, state, *quiet), root, repeat, state),
    ]


def size_cases(root: Path, factor: int, repeat: int) -> list[Timing]:
    """validate, nothing changed and leases released at `factor` times the seed."""
    state = worlds.repository(root, factor)
    size = "seed" if factor == 1 else f"{factor}×"
    config = ["--config", str(root / "config" / "perfbot.yaml")]
    settle_merged(reconcile_args(root, state), root, state)
    found = [
        timed("validate", size, factor, ["validate", *config], root, repeat, None),
        timed("reconcile, nothing changed", size, factor, reconcile_args(root, state), root, repeat, state),
    ]
    worlds.release_leases(root)
    found.append(timed("reconcile, leases released", size, factor, reconcile_args(root, state), root, repeat, state))
    return found


def comment_cases(root: Path, count: int, repeat: int) -> list[Timing]:
    """`count` comments before the bot's replies (one run's budget of writes) and after all of them."""
    state = worlds.repository(root, 1)
    settle_merged(reconcile_args(root, state), root, state)
    worlds.add_comments(state, count)
    size = f"{count:,} comments"
    before = timed("comments, no replies yet", size, count, reconcile_args(root, state), root, repeat, state)
    settle(reconcile_args(root, state), root)
    after = timed("comments, replies posted", size, count, reconcile_args(root, state), root, repeat, state)
    return [before, after]


def measure(factors: Sequence[int], counts: Sequence[int], repeat: int) -> list[Timing]:
    """Every case, grouped by case and in size order, so each row's growth is from the row above."""
    found: list[Timing] = []
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-") as directory:

        def fresh(name: str) -> Path:
            path = Path(directory) / name
            if path.exists():
                shutil.rmtree(path)
            path.mkdir()
            return path

        found += seed_cases(fresh("seed"), repeat)
        for factor in factors:
            found += size_cases(fresh(f"x{factor}"), factor, repeat)
            print(f"measured {factor}× the seed", file=sys.stderr)
        for count in counts:
            found += comment_cases(fresh(f"c{count}"), count, repeat)
            print(f"measured {count:,} comments", file=sys.stderr)
    order = list(dict.fromkeys(t.case for t in found))
    return sorted(found, key=lambda t: (order.index(t.case), t.scale))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per case; the median is reported (default 5)")
    parser.add_argument("--quick", action="store_true", help="skip 100× the seed and 10,000 comments")
    parser.add_argument("--json", action="store_true", help="print the timings and growths as JSON")
    args = parser.parse_args(argv)
    compile_package()
    factors, counts = ((1, 10), (1000,)) if args.quick else ((1, 10, 100), (1000, 10_000))
    timings = measure(factors, counts, max(1, args.repeat))
    sys.stdout.write(as_json(timings) if args.json else table(timings))
    return exit_status(timings)


if __name__ == "__main__":
    sys.exit(main())
