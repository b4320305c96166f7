"""Where the benchmarks find the checkout they measure, wherever `python -m benchmarks…` is started."""

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
