"""The benchmark's verdict: does a case's CPU cost grow linearly with its size?

A run's CPU time is a fixed start-up (Python, pydantic, jinja2, ruamel: most of a seed run) plus a
cost per unit of size (one seed's worth of records, or one comment). Ratios of whole-run times hide
the per-unit part behind the start-up, so a planted 2× slowdown at 100× still grew less than the
size did. The judge instead compares two *marginal* costs (the rise in CPU seconds over the rise
in size): the last step's (50× → 100×) with the baseline, from the smallest size to the one before
the last (1× → 50×). A linear cost keeps it (ratio near 1, below 1 when part of the start-up only
shows from the second size on); a cost that grows faster raises it (a quadratic cost over
1 → 50 → 100 gives 2.9, a run that takes twice as long at 100× 3 or more). A ratio over `LIMIT`
fails the case, and the benchmark exits 1. The baseline spans half the range because a short first
step (1× → 10×) rises by little more than the noise of one size's figure.

Each size's figure is the least CPU time over the rounds, not the median: load only ever adds CPU
time (a busy machine's shared caches and cores), so the least-disturbed round is the closest to the
cost, and one loaded round in five moves a median but not a minimum (README, "How long a run
takes"). The baseline's rise is floored at `FLOOR` times the start-up: below that it is what load adds to
one size's least round, and dividing by noise would fail a case whose cost barely depends on its
size.
"""

from __future__ import annotations

import itertools
import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

# Between the most a linear cost reaches through a loaded machine's noise and the least a 2×
# slowdown at 100× does (tests/boundary/test_benchmark_growth.py simulates both).
LIMIT = 2.2
FLOOR = 0.1  # of the start-up: about as far as load moves the least of 5 rounds
SIZES_JUDGED = 4


@dataclass(frozen=True)
class Timing:
    """One case at one size: the CPU seconds of each round's whole process, and their medians."""

    case: str
    size: str
    scale: float  # the size as a number: the seed is 1, a comment case counts added comments
    cpus: tuple[float, ...]
    walls: tuple[float, ...]

    @property
    def least(self) -> float:
        """The least CPU seconds over the rounds: what the judge uses."""
        return min(self.cpus)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def spread(self) -> float:
        """Highest minus lowest CPU seconds over the rounds: how far to trust the median."""
        return max(self.cpus) - min(self.cpus)


@dataclass(frozen=True)
class Verdict:
    """One case's growth: its start-up, the marginal cost of each step, and the two it judges."""

    case: str
    startup: float  # least CPU seconds at the smallest size
    steps: tuple[float, ...]  # CPU seconds per unit of size, from each size to the next
    baseline: float  # per unit, from the smallest size to the one before the last (rise floored)
    last: float  # per unit, the last step

    @property
    def ratio(self) -> float:
        """The last step's marginal over the baseline's: 1 for a linear cost."""
        return self.last / self.baseline

    @property
    def too_fast(self) -> bool:
        return self.ratio > LIMIT


def by_case(timings: Sequence[Timing]) -> dict[str, list[Timing]]:
    """Each case's timings in size order, the cases in the order they first appear."""
    found: dict[str, list[Timing]] = {}
    for t in timings:
        found.setdefault(t.case, []).append(t)
    return {case: sorted(rows, key=lambda t: t.scale) for case, rows in found.items()}


def marginal(low: Timing, high: Timing, floor: float = 0.0) -> float:
    """CPU seconds per unit of size from `low` to `high`, the rise taken as at least `floor`."""
    return max(high.least - low.least, floor) / (high.scale - low.scale)


def verdict(case: str, rows: Sequence[Timing]) -> Verdict:
    steps = tuple(marginal(low, high) for low, high in itertools.pairwise(rows))
    startup = rows[0].least
    return Verdict(case, startup, steps, marginal(rows[0], rows[-2], FLOOR * startup), steps[-1])


def verdicts(timings: Sequence[Timing]) -> list[Verdict]:
    """A verdict for each case measured at `SIZES_JUDGED` sizes or more: with fewer, the baseline
    is one short step, as noisy as what it would judge."""
    return [verdict(case, rows) for case, rows in by_case(timings).items() if len(rows) >= SIZES_JUDGED]


def table(timings: Sequence[Timing]) -> str:
    """Markdown: every case at every size, then each judged case's marginals and verdict."""
    lines = [
        "| case | size | least CPU s | median CPU s | CPU spread s | median wall s | rounds |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for rows in by_case(timings).values():
        lines += [
            f"| {t.case} | {t.size} | {t.least:.3f} | {t.cpu:.3f} | {t.spread:.3f} | {t.wall:.3f} | {len(t.cpus)} |"
            for t in rows
        ]
    lines += [
        "",
        "| case | start-up CPU s | CPU ms per unit, each step | baseline ms per unit | last over baseline "
        f"| verdict (limit {LIMIT:g}) |",
        "|---|---:|---|---:|---:|---|",
    ]
    for v in verdicts(timings):
        steps = " → ".join(f"{m * 1000:.3g}" for m in v.steps)
        said = "**superlinear**" if v.too_fast else "linear"
        lines.append(f"| {v.case} | {v.startup:.3f} | {steps} | {v.baseline * 1000:.3g} | {v.ratio:.2f} | {said} |")
    return "\n".join(lines) + "\n"


def as_json(timings: Sequence[Timing]) -> str:
    return (
        json.dumps(
            {
                "limit": LIMIT,
                "floor": FLOOR,
                "timings": [{**asdict(t), "least": t.least, "cpu": t.cpu, "wall": t.wall} for t in timings],
                "verdicts": [{**asdict(v), "ratio": v.ratio, "too_fast": v.too_fast} for v in verdicts(timings)],
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


def exit_status(timings: Sequence[Timing]) -> int:
    """1 when any case's last marginal cost is over `LIMIT` times its baseline."""
    return 1 if any(v.too_fast for v in verdicts(timings)) else 0
