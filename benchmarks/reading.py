"""Times the reading of one long comment, in process: cmark-gfm alone beside perfbot's whole reading.

For each kind of line in `worlds.LONG_LINES` (ordinary prose, and each construct a Markdown
reader may spend most on), the comment the long-comment benchmark posts (65,536 characters: a
`/perf help` line, the line repeated, a `/perf help` line) is rendered by `github_markdown.to_html`
alone (GitHub's parser, what no exact reader can spend less than) and read by
`reading.parse` (the candidate lines, the marks, the render, the page). Each figure is the least
of `--runs` runs, so load only ever makes it larger; the ratios compare a construct with cmark-gfm
and with prose.

Run: python -m benchmarks.reading [--runs 25]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from benchmarks import worlds
from bot.commands.reading import Parsed, parse, to_html
from bot.config import CommandSettings


def least_ms(action: Callable[[], object], runs: int) -> float:
    """The least wall time of `runs` calls of `action`, in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=25, help="runs of each measurement; the least is kept")
    runs = options.parse_args().runs
    limits = CommandSettings()
    rows: list[tuple[str, float, float, bool]] = []
    for kind, line in worlds.LONG_LINES.items():
        body = worlds.long_comment(line)

        def reading(body: str = body) -> Parsed:
            return parse(body, limits.prefix, limits.max_comment_chars, limits.max_argument_chars)

        def rendering(body: str = body) -> str:
            return to_html(body)

        rows.append((kind, least_ms(rendering, runs), least_ms(reading, runs), reading().too_intricate))
    prose = next(read for kind, _, read, _ in rows if kind == "prose")
    print("| each line | cmark-gfm alone ms | perfbot's reading ms | over cmark-gfm | over prose | read |")
    print("|---|---:|---:|---:|---:|---|")
    for kind, cmark, read, unread in rows:
        outcome = "refused whole (too intricate)" if unread else "read"
        print(f"| {kind} | {cmark:.1f} | {read:.1f} | {read / cmark:.2f} | {read / prose:.1f} | {outcome} |")


if __name__ == "__main__":
    main()
