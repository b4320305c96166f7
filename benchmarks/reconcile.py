"""Times one offline reconcile on the seed and on a snapshot 100x its size, with as many leases
and issues, and reports the seed CLI run's process time.

Run: python -m benchmarks.reconcile [--factor 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import resource
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from benchmarks.paths import REPOSITORY
from benchmarks.render import best_of
from benchmarks.synthetic import place, scaled
from bot.config import load_settings
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.observed import Issue, Observed
from bot.reconcile import gather
from bot.reconcile.decide import decide
from bot.reconcile.inputs import Inputs
from bot.render import Renderer
from bot.snapshot import store, store_save
from bot.snapshot.model import Snapshot


def world(
    seed: Snapshot, factor: int, leases: tuple[Lease, ...], observed: Observed
) -> tuple[Snapshot, LeaseReadback, Observed]:
    big = scaled(seed, factor)
    many_leases = tuple(
        lease.model_copy(
            update={
                "holder": f"issue-{9420 + 100_000 * n}-copy",
                "loop_ts": f"{lease.loop_ts}-{n}",
                "tree": tuple(place(glob, n) for glob in lease.tree),
            }
        )
        for n in range(factor)
        for lease in leases
    )
    issues = tuple(
        Issue(number=i.number + 100_000 * n, title=i.title, assignees=i.assignees)
        for n in range(factor)
        for i in observed.issues
    )
    return big, LeaseReadback("leases.json", "live-array", many_leases), observed.model_copy(update={"issues": issues})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--factor", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = load_settings(REPOSITORY / "config" / "perfbot.yaml")
    renderer = Renderer.from_directory(settings.templates_path)
    loaded = gather.snapshot(settings)
    readback = gather.leases(REPOSITORY / "config" / "leases.json")
    example = REPOSITORY / "examples" / "offline-state.json"
    observed = Observed.model_validate_json(example.read_text(encoding="utf-8"))
    now = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)
    big, big_leases, big_observed = world(loaded.model, args.factor, readback.live, observed)
    big_loaded = store.parse_model(store_save.dump_new(big), "big.yaml", Snapshot)
    released = LeaseReadback("leases.json", "live-array", ())
    cases = (
        ("seed", loaded, readback, observed),
        (f"{args.factor}x seed", big_loaded, big_leases, big_observed),
        (f"{args.factor}x, leases released", big_loaded, released, big_observed),
    )
    for label, source, leases, seen in cases:
        inputs = Inputs(
            snapshot=source,
            snapshot_path=settings.config.snapshot,
            page_path=settings.config.page,
            committed={},
            readback=leases,
            observed=seen,
            config=settings.config,
            renderer=renderer,
            now=now,
        )
        best = best_of(args.repeat, partial(decide, inputs))
        print(
            f"{label:>25}: {len(source.model.work_packets):>5} packets, {len(leases.live):>4} leases, "
            f"{len(seen.issues):>5} issues  decide {best * 1000:8.1f} ms"
        )
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch) / "state.json"
        state.write_text((REPOSITORY / "examples" / "offline-state.json").read_text(encoding="utf-8"), encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, "-m", "bot", "reconcile", "--offline", str(state), "--dry-run", "--now", "2026-08-27"],
            check=True,
            capture_output=True,
            cwd=REPOSITORY,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"seed CLI run (python -m bot reconcile --dry-run): {cpu:.2f} s of process time")


if __name__ == "__main__":
    main()
