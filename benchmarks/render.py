"""Times validation and rendering on the seed and on a synthetic snapshot 100x its size.

Run: python -m benchmarks.render [--factor 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

from benchmarks.paths import REPOSITORY
from benchmarks.synthetic import scaled
from bot.config import load_settings
from bot.reconcile import gather
from bot.render import Renderer
from bot.snapshot.validation import validate


def best_of(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--factor", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    settings = load_settings(REPOSITORY / "config" / "perfbot.yaml")
    renderer = Renderer.from_directory(settings.templates_path)
    seed = gather.snapshot(settings).model
    big = scaled(seed, args.factor)
    assert validate(big) == [], "the synthetic snapshot must be valid"
    text = settings.config.page_text
    for label, model in (("seed", seed), (f"{args.factor}x seed", big)):
        render_s = best_of(args.repeat, partial(renderer.page, model, text))
        validate_s = best_of(args.repeat, partial(validate, model))
        print(
            f"{label:>10}: {len(model.work_packets):>5} packets  render {render_s * 1000:8.1f} ms  "
            f"validate {validate_s * 1000:8.1f} ms  page {len(renderer.page(model, text)) / 1024:8.1f} KiB"
        )


if __name__ == "__main__":
    main()
