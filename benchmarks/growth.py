"""The benchmark's table: each case's median at each size, and its growth from one size to the next.

A growth factor (time at the next size over time at this size) above `LIMIT` times the size
factor means the cost grows faster than the input: the benchmark then exits 1.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

LIMIT = 1.5


@dataclass(frozen=True)
class Timing:
    """One case at one size: the median wall-clock and CPU seconds of `runs` whole processes."""

    case: str
    size: str
    scale: float  # the size as a number, for the size factor (the seed is 1)
    wall: float
    cpu: float
    runs: int


@dataclass(frozen=True)
class Growth:
    case: str
    step: str
    size_factor: float
    growth: float

    @property
    def too_fast(self) -> bool:
        return self.growth > LIMIT * self.size_factor


def growths(timings: Sequence[Timing]) -> list[Growth]:
    """From each size of a case to its next size, in the order the timings were taken."""
    found = []
    for earlier, later in itertools.pairwise(timings):
        if earlier.case == later.case and earlier.wall > 0:
            found.append(
                Growth(
                    later.case, f"{earlier.size} → {later.size}", later.scale / earlier.scale, later.wall / earlier.wall
                )
            )
    return found


def table(timings: Sequence[Timing]) -> str:
    """A Markdown table: one row per timing, with its growth from the case's previous size."""
    by_later = {(g.case, g.step.split(" → ")[1]): g for g in growths(timings)}
    lines = [
        "| case | size | median wall s | median CPU s | size factor | growth factor |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for t in timings:
        growth = by_later.get((t.case, t.size))
        factors = ("", "") if growth is None else (f"{growth.size_factor:g}×", f"{growth.growth:.2f}×")
        flag = " **over the limit**" if growth is not None and growth.too_fast else ""
        lines.append(f"| {t.case} | {t.size} | {t.wall:.3f} | {t.cpu:.3f} | {factors[0]} | {factors[1]}{flag} |")
    return "\n".join(lines) + "\n"


def as_json(timings: Sequence[Timing]) -> str:
    return (
        json.dumps(
            {
                "limit": LIMIT,
                "timings": [asdict(t) for t in timings],
                "growths": [{**asdict(g), "too_fast": g.too_fast} for g in growths(timings)],
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


def exit_status(timings: Sequence[Timing]) -> int:
    """1 when any growth factor is over `LIMIT` times its size factor, else 0."""
    return 1 if any(g.too_fast for g in growths(timings)) else 0
