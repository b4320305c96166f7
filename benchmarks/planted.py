"""A benchmark child with a planted slowdown: perfbot's run, then CPU burnt in proportion to it.

Only the benchmark harness starts this script (`python -m benchmarks --plant KIND`, and the test
that shows the judge fails a slowdown); nothing in `bot/` knows of it. It is run by its path, not
as a module, so it imports nothing but the installed `bot`, from any working directory.

Usage: planted.py KIND SCALE PERFBOT-ARGS…   KIND is `double-at-N` (the run at N times the seed
or more, such as `double-at-100`, costs twice its CPU time) or `quadratic` (`QUADRATIC` seconds
times the scale squared).
"""

from __future__ import annotations

import resource
import sys

QUADRATIC = 0.0003  # 3 s of CPU at 100×, 30 ms at 10×: the all-pairs path intersection (×5.5)


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def extra(kind: str, scale: float, used: float) -> float:
    """The seconds of CPU to add to a run of `scale` that used `used` seconds."""
    top = kind.removeprefix("double-at-")
    if top != kind and top.isdecimal():
        return used if scale >= int(top) else 0.0
    if kind == "quadratic":
        return QUADRATIC * scale * scale
    raise SystemExit(f"unknown planted slowdown {kind!r}")


def burn(seconds: float) -> None:
    """Spin until this process has used `seconds` more CPU (sleeping would cost none)."""
    until = cpu() + seconds
    while cpu() < until:
        sum(range(1000))


def main(argv: list[str]) -> int:
    kind, scale, *args = argv
    from bot.cli import main as perfbot

    status = perfbot(args)
    burn(extra(kind, float(scale), cpu()))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
