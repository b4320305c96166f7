"""`python -m benchmarks`' verdict: a growth factor over 1.5× its size factor fails the run (exit 1)."""

from __future__ import annotations

import json

from benchmarks.growth import Timing, as_json, exit_status, growths, table


def series(case: str, *walls: float) -> list[Timing]:
    sizes = [("seed", 1), ("10×", 10), ("100×", 100)]
    return [Timing(case, label, scale, wall, wall, 5) for (label, scale), wall in zip(sizes, walls, strict=False)]


def test_linear_growth_passes_and_each_row_shows_its_factors() -> None:
    timings = [*series("nothing changed", 0.3, 0.5, 2.9), *series("validate", 0.2, 0.25)]
    assert exit_status(timings) == 0
    assert [(g.case, g.step, g.size_factor, round(g.growth, 2)) for g in growths(timings)] == [
        ("nothing changed", "seed → 10×", 10, 1.67),
        ("nothing changed", "10× → 100×", 10, 5.8),
        ("validate", "seed → 10×", 10, 1.25),
    ]
    rows = table(timings).splitlines()
    assert rows[2] == "| nothing changed | seed | 0.300 | 0.300 |  |  |"
    assert rows[4] == "| nothing changed | 100× | 2.900 | 2.900 | 10× | 5.80× |"
    assert rows[5] == "| validate | seed | 0.200 | 0.200 |  |  |"  # a new case starts without a growth


def test_a_growth_over_one_and_a_half_times_the_size_factor_exits_1() -> None:
    timings = series("comments, replies posted", 0.5, 7.6)  # 15.2× for 10× the size
    assert exit_status(timings) == 1
    assert "**over the limit**" in table(timings)
    assert json.loads(as_json(timings))["growths"][0]["too_fast"] is True
    assert exit_status(series("comments, replies posted", 0.5, 7.5)) == 0  # exactly 15×: at the limit
