"""Whole-process CPU costs of the CLI, as a user or a workflow waits for them, judged for growth.

Each case runs `python -m bot` in a fresh process on a throwaway repository built with
`benchmarks.synthetic` in a temporary directory. The package is compiled first (`compileall`) and
the children run without PYTHONDONTWRITEBYTECODE, as an installed perfbot would. Cases:

- seed reconcile: the seed and `examples/offline-state.json`, `--dry-run` (one size, not judged);
- `validate`, and reconcile with nothing changed (every write made and the bot's PR merged), at
  1×, 10×, 50× and 100× the seed;
- leases released: the same worlds with no live lease, so packets change and the PR is built;
- live reconcile, nothing changed: the same worlds over the GitHub double on a loopback port;
- 1,000, 5,000 and 10,000 comments added to the settled seed (and none), one in ten a command,
  before the bot answered (a run with the default write budget) and after (the first run answers
  everything; the second is timed);
- 15, 75 and 150 comments of 65,536 characters (and none), a `/perf help` line, one line repeated
  (`worlds.LONG_LINES`: ordinary lines, and each construct a Markdown reader may spend most on),
  and a `/perf help` line, before the bot answered: a case per kind of line, "long comments, <kind>";
- 15, 75 and 150 comments without a command (the prefix only in a code fence), of 65,536
  characters or short, live over the double with the observation cache, on the run after the
  one that read them: "live, long comments without a command, next run" costs what "live, short
  comments without a command, next run" does when such comments are not read again.

`--repeat` rounds (default 5) each run every case at every size once, in a shuffled order; every
timed run starts from the same state file. A case's verdict compares its per-unit marginal CPU
cost at the last step with the baseline's (`benchmarks.growth`); the exit status is 1 when one is
over the limit. `--plant KIND` adds, beside each case, a twin whose children burn extra CPU
(`benchmarks/planted.py`), to see the judge fail a slowdown. `--sizes` replaces the sizes of the
cases measured at 1×, 10×, 50× and 100× (the suite's check of the judge measures `validate` at
1×, 2×, 3× and 4× with `--plant double-at-4`: the same proof on a 25th of the work).

Run: python -m benchmarks [--repeat N] [--quick] [--case NAME]… [--sizes A,B,C,D] [--plant KIND] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks import live, worlds
from benchmarks.growth import as_json, exit_status, table
from benchmarks.timing import Run, compile_package, rounds, settle, settle_merged


def reconcile_args(root: Path, state: Path | None, *extra: str) -> tuple[str, ...]:
    """A reconcile of `root`'s config at `worlds.NOW`, offline over `state`, or live without one."""
    offline = ("--offline", str(state)) if state is not None else ()
    return ("reconcile", "--config", str(root / "config" / "perfbot.yaml"), *offline, "--now", worlds.NOW, *extra)


def size_label(factor: int) -> str:
    return "seed" if factor == 1 else f"{factor}×"


def comments_label(count: int) -> str:
    return "none added" if count == 0 else f"{count:,} comments"


@dataclass
class Worlds:
    """The throwaway repositories, each built (and settled) once, however many cases use it."""

    directory: Path
    servers: contextlib.ExitStack

    def fresh(self, name: str) -> Path:
        path = self.directory / name
        path.mkdir()
        return path

    def copy(self, source: Path, name: str) -> Path:
        return Path(shutil.copytree(source, self.directory / name))

    def built(self, factor: int) -> Path:
        """`factor` times the seed, as built: the snapshot, page, leases and issues, nothing run."""
        path = self.directory / f"x{factor}"
        if not path.exists():
            worlds.repository(self.fresh(f"x{factor}"), factor)
        return path

    def settled(self, factor: int) -> Path:
        """`factor` times the seed once every write is made and the bot's PR is merged."""
        path = self.directory / f"x{factor}-settled"
        if not path.exists():
            root = self.copy(self.built(factor), path.name)
            settle_merged(reconcile_args(root, root / "state.json"), root, root / "state.json")
        return path

    def long_commented(self, kind: str, count: int) -> Path:
        """The settled seed with `count` long comments of `kind` lines, none answered."""
        path = self.directory / f"long-{sorted(worlds.LONG_LINES).index(kind)}-{count}"
        if not path.exists():
            root = self.copy(self.settled(1), path.name)
            worlds.add_long_comments(root / "state.json", count, worlds.LONG_LINES[kind])
        return path

    def commented(self, count: int) -> Path:
        """The settled seed with `count` comments added (`state.json`) and all answered (`answered.json`)."""
        path = self.directory / f"c{count}"
        if not path.exists():
            root = self.copy(self.settled(1), path.name)
            worlds.add_comments(root / "state.json", count)
            shutil.copyfile(root / "state.json", root / "answered.json")
            settle(reconcile_args(root, root / "answered.json"), root)
        return path


def seed_dry_run(w: Worlds, _: int) -> Run:
    root = w.fresh("seed-dry-run")
    state = worlds.repository(root, 1)
    return Run("seed reconcile (--dry-run)", "seed", 1, reconcile_args(root, state, "--dry-run"), root)


def validate(w: Worlds, factor: int) -> Run:
    root = w.built(factor)
    config = str(root / "config" / "perfbot.yaml")
    return Run("validate", size_label(factor), factor, ("validate", "--config", config), root)


def nothing_changed(w: Worlds, factor: int) -> Run:
    root = w.settled(factor)
    args = reconcile_args(root, root / "state.json")
    return Run("reconcile, nothing changed", size_label(factor), factor, args, root, root / "state.json")


def leases_released(w: Worlds, factor: int) -> Run:
    root = w.copy(w.settled(factor), f"x{factor}-released")
    worlds.release_leases(root)
    args = reconcile_args(root, root / "state.json")
    return Run("reconcile, leases released", size_label(factor), factor, args, root, root / "state.json")


def live_nothing_changed(w: Worlds, factor: int) -> Run:
    """The settled world read over HTTP from the double; a first live run must write nothing too."""
    root = w.copy(w.settled(factor), f"x{factor}-live")
    env = w.servers.enter_context(live.double_on(root / "state.json", root))
    settle(reconcile_args(root, None), root, env, runs=1)
    args = reconcile_args(root, None)
    return Run("live reconcile, nothing changed", size_label(factor), factor, args, root, root / "state.json", env)


def no_replies_yet(w: Worlds, count: int) -> Run:
    root = w.commented(count)
    args = reconcile_args(root, root / "state.json")
    return Run("comments, no replies yet", comments_label(count), count, args, root, root / "state.json")


def replies_posted(w: Worlds, count: int) -> Run:
    root = w.commented(count)
    args = reconcile_args(root, root / "answered.json")
    return Run("comments, replies posted", comments_label(count), count, args, root, root / "answered.json")


def long_comments(kind: str) -> Callable[[Worlds, int], Run]:
    def build(w: Worlds, count: int) -> Run:
        root = w.long_commented(kind, count)
        label = "none added" if count == 0 else f"{count} × 65,536 characters"
        state = root / "state.json"
        return Run(f"long comments, {kind}", label, count, reconcile_args(root, state), root, state)

    return build


def live_commandless(long: bool) -> Callable[[Worlds, int], Run]:
    """Comments without a command, live over the double with the observation cache: the first run
    reads them (untimed), the next is timed."""
    kind = "long" if long else "short"

    def build(w: Worlds, count: int) -> Run:
        root = w.copy(w.settled(1), f"commandless-{kind}-{count}")
        worlds.add_commandless_comments(root / "state.json", count, long=long)
        env = w.servers.enter_context(live.double_on(root / "state.json", root))
        args = reconcile_args(root, None, "--cache", str(root / "observed.json"))
        settle(args, root, env, runs=3)
        label = "none added" if count == 0 else f"{count} × {'65,536 characters' if long else 'short'}"
        case = f"live, {kind} comments without a command, next run"
        return Run(case, label, count, args, root, root / "state.json", env)

    return build


Builder = Callable[[Worlds, int], Run]
SEED, SIZES, COMMENTS, LONG = "seed", "sizes", "comments", "long"
CASES: dict[str, tuple[str, Builder]] = {
    "seed reconcile (--dry-run)": (SEED, seed_dry_run),
    "validate": (SIZES, validate),
    "reconcile, nothing changed": (SIZES, nothing_changed),
    "reconcile, leases released": (SIZES, leases_released),
    "live reconcile, nothing changed": (SIZES, live_nothing_changed),
    "comments, no replies yet": (COMMENTS, no_replies_yet),
    "comments, replies posted": (COMMENTS, replies_posted),
    **{f"long comments, {kind}": (LONG, long_comments(kind)) for kind in worlds.LONG_LINES},
    "live, long comments without a command, next run": (LONG, live_commandless(long=True)),
    "live, short comments without a command, next run": (LONG, live_commandless(long=False)),
}
FULL = {SEED: (1,), SIZES: (1, 10, 50, 100), COMMENTS: (0, 1000, 5000, 10_000), LONG: (0, 15, 75, 150)}
QUICK = {SEED: (1,), SIZES: (1, 10, 50), COMMENTS: (0, 1000, 5000), LONG: (0, 15, 75)}  # too few sizes for a verdict


def plant_kind(text: str) -> str:
    top = text.removeprefix("double-at-")
    if text != "quadratic" and not (top != text and top.isdecimal() and int(top) > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: expected double-at-N or quadratic")
    return text


def sizes(text: str) -> tuple[int, ...]:
    try:
        found = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes such as 1,10,50,100") from None
    if not found or any(size < 1 for size in found) or list(found) != sorted(set(found)):
        raise argparse.ArgumentTypeError(f"{text!r}: expected rising sizes of 1 or more")
    return found


def build(
    w: Worlds,
    names: Sequence[str],
    scales: dict[str, tuple[int, ...]],
    plant: str | None,
    *,
    only_planted: bool = False,
) -> list[Run]:
    """Each case's runs at its sizes, and the planted twins of them with `plant` (only those with
    `only_planted`: a case's verdict is judged from its own runs alone)."""
    runs = [builder(w, scale) for name in names for kind, builder in [CASES[name]] for scale in scales[kind]]
    print(f"built {len(runs)} runs", file=sys.stderr)
    if plant is None:
        return runs
    twins = [replace(run, case=f"{run.case}, planted {plant}", plant=plant) for run in runs]
    return twins if only_planted else runs + twins


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds; each case's median is judged (default 5)")
    parser.add_argument("--quick", action="store_true", help="no 100× or 10,000 comments, and so no verdict")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case (repeatable)")
    parser.add_argument("--plant", type=plant_kind, help="add a planted slowdown's twins (double-at-N or quadratic)")
    parser.add_argument(
        "--only-planted", action="store_true", help="with --plant, measure the planted twins alone, not the plain runs"
    )
    parser.add_argument("--sizes", type=sizes, help="sizes of the cases measured at 1, 10, 50 and 100 times the seed")
    parser.add_argument("--json", action="store_true", help="print the timings and verdicts as JSON")
    args = parser.parse_args(argv)
    compile_package()
    names = args.case or list(CASES)
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-") as directory, contextlib.ExitStack() as servers:
        scales = QUICK if args.quick else FULL
        scales = scales if args.sizes is None else {**scales, SIZES: args.sizes}
        runs = build(Worlds(Path(directory), servers), names, scales, args.plant, only_planted=args.only_planted)
        timings = rounds(runs, max(1, args.repeat))
    sys.stdout.write(as_json(timings) if args.json else table(timings))
    return exit_status(timings)


if __name__ == "__main__":
    sys.exit(main())
