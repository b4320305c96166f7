"""`python -m benchmarks`' verdict: a linear CPU cost passes, a superlinear one fails (exit 1).

The judge is fed CPU figures shaped like the benchmark's (a start-up of about 0.25 s, 3 or 6 ms per
seed's worth of records, 5 rounds at 1×, 10×, 50× and 100×), with the noise of a loaded 2-core
machine: each run's CPU time inflated by a random share with mean 15% (exponential: measured on
this machine at load 2, the rounds' inflation over each size's least run had median 11%, 90th
percentile 35%, worst 58%). Then the real harness runs
`validate` with a planted 2× slowdown at 100× beside the plain case: nothing here asserts a time,
only which of the two the judge fails.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks import __main__ as benchmark
from benchmarks import planted
from benchmarks.growth import LIMIT, Timing, as_json, exit_status, table, verdicts

SIZES = (("seed", 1), ("10×", 10), ("50×", 50), ("100×", 100))
ROUNDS = 5
DRAWS = 1000
MEAN_INFLATION = 0.15


def series(case: str, cost: Callable[[float], float], noise: random.Random | None = None) -> list[Timing]:
    """`cost(scale)` seconds at each size, each round's figure inflated at random when noisy."""

    def sample(scale: float) -> float:
        return cost(scale) * (1 + (noise.expovariate(1 / MEAN_INFLATION) if noise else 0))

    return [
        Timing(case, label, scale, tuple(sample(scale) for _ in range(ROUNDS)), (cost(scale),) * ROUNDS)
        for label, scale in SIZES
    ]


def linear(scale: float, per_unit: float = 0.004) -> float:
    return 0.25 + per_unit * scale  # validate's shape at 3 ms, 0.25 s at the seed and 0.65 s at 100× at 4


def doubled_at_100(scale: float, per_unit: float = 0.004) -> float:
    return linear(scale, per_unit) * (2 if scale >= 100 else 1)


def quadratic(scale: float, per_unit: float = 0.004) -> float:
    return linear(scale, per_unit) + planted.QUADRATIC * scale * scale  # ×5.6 at 100×


def flat(scale: float, per_unit: float = 0.0) -> float:
    return 0.3  # a cost the size does not move: its baseline is all noise


def test_a_linear_cost_passes_and_the_tables_show_each_step() -> None:
    timings = series("validate", linear)
    [found] = verdicts(timings)
    assert found.steps == pytest.approx((0.004, 0.004, 0.004))
    assert (found.startup, found.baseline, found.ratio) == pytest.approx((0.254, 0.004, 1.0))
    assert exit_status(timings) == 0
    rows = table(timings).splitlines()
    assert rows[2] == "| validate | seed | 0.254 | 0.254 | 0.000 | 0.254 | 5 |"
    assert rows[5] == "| validate | 100× | 0.650 | 0.650 | 0.000 | 0.650 | 5 |"
    assert rows[-1] == "| validate | 0.254 | 4 → 4 → 4 | 4 | 1.00 | linear |"


def test_the_judge_takes_each_sizes_least_round_so_one_loaded_round_moves_nothing() -> None:
    quiet = series("case", linear)
    loaded = [replace(t, cpus=(*t.cpus[:-1], t.cpus[-1] * 1.6)) if t.scale == 50 else t for t in quiet]
    assert verdicts(loaded) == verdicts(quiet)


def ratios(cost: Callable[[float, float], float], per_unit: float) -> list[float]:
    return [
        verdicts(series("case", lambda s: cost(s, per_unit), random.Random(seed)))[0].ratio for seed in range(DRAWS)
    ]


@pytest.mark.parametrize("per_unit", [0.003, 0.006])
@pytest.mark.parametrize("cost", [linear, flat], ids=["linear", "flat"])
def test_noise_alone_never_fails_a_linear_or_flat_cost(cost: Callable[[float, float], float], per_unit: float) -> None:
    assert max(ratios(cost, per_unit)) < LIMIT


@pytest.mark.parametrize("per_unit", [0.003, 0.006])
def test_a_2x_slowdown_at_100x_fails_through_the_same_noise(per_unit: float) -> None:
    assert min(ratios(doubled_at_100, per_unit)) > LIMIT


@pytest.mark.parametrize("cost", [doubled_at_100, quadratic], ids=["2x at 100x", "quadratic"])
def test_a_superlinear_cost_fails_and_says_so(cost: Callable[[float], float]) -> None:
    timings = series("case", cost)
    assert exit_status(timings) == 1
    assert "**superlinear**" in table(timings)
    assert json.loads(as_json(timings))["verdicts"][0]["too_fast"] is True


def test_fewer_than_four_sizes_get_no_verdict() -> None:
    timings = series("case", quadratic)[:3]
    assert verdicts(timings) == []
    assert exit_status(timings) == 0


def test_the_planted_child_doubles_a_run_at_100x_only_or_adds_a_square() -> None:
    assert planted.extra("double-at-100", 100, 0.7) == 0.7
    assert planted.extra("double-at-100", 30, 0.4) == 0.0
    assert planted.extra("double-at-10", 10, 0.4) == 0.4
    assert planted.extra("double-at-10", 5, 0.4) == 0.0
    assert planted.extra("quadratic", 100, 0.7) == pytest.approx(3.0)
    with pytest.raises(SystemExit):
        planted.extra("cubic", 100, 0.7)


def test_the_planted_twins_go_beside_the_plain_runs_or_alone(tmp_path: Path) -> None:
    """What `--plant` measures, untimed: each run's twin with the plant, beside it or alone."""
    with contextlib.ExitStack() as servers:
        made = benchmark.Worlds(tmp_path, servers)
        scales: dict[str, tuple[int, ...]] = {benchmark.SIZES: (1, 2)}
        both = benchmark.build(made, ["validate"], scales, "double-at-2")
        alone = benchmark.build(made, ["validate"], scales, "double-at-2", only_planted=True)
    assert [(r.case, r.scale, r.plant) for r in both] == [
        ("validate", 1, None),
        ("validate", 2, None),
        ("validate, planted double-at-2", 1, "double-at-2"),
        ("validate, planted double-at-2", 2, "double-at-2"),
    ]
    assert alone == both[2:]


@pytest.mark.slow
def test_the_real_harness_fails_a_planted_2x_slowdown_at_the_top_size(capsys: pytest.CaptureFixture[str]) -> None:
    """The real processes, measured: the planted case's verdict. The plain runs beside it are left
    out (`--only-planted`): a case is judged from its own runs alone, and whether the plain case
    passes depends on the machine's load while the suite runs beside it, which the simulated noise
    above covers without timing anything. The sizes are 1×, 2×, 3× and 4×: the same judge, the
    same real processes and the same doubling of the top size's run as at 100×, on a 25th of the
    work (at 4× the doubled run is mostly start-up, so the doubling stands further above the noise
    than at 100×: the judge's ratio was 14 with the limit at 2.2, measured alone). Most of the
    test is now the 20 runs themselves, not building the worlds they run on."""
    # Five rounds, not three: the suite runs beside it, and a median of three was once moved enough
    # by a neighbour to hide the planted doubling.
    argv = ["--case", "validate", "--sizes", "1,2,3,4", "--plant", "double-at-4", "--only-planted"]
    status = benchmark.main([*argv, "--repeat", "5", "--json"])
    found = {v["case"]: v["too_fast"] for v in json.loads(capsys.readouterr().out)["verdicts"]}
    assert found == {"validate, planted double-at-4": True}
    assert status == 1
