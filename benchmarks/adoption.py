"""What adopting perfbot costs a large repository in writes: N times the seed (default 100, 1,105
issues) as GitHub was before perfbot kept labels and links (none of either, no comment), offline.

For the config with labels and links switched on, and for one without the switches (a repository
that adopted perfbot before they existed): the writes a first run plans, by kind, what the plan
says turning each switch on would cost, and how many runs at `--max-writes` (default 50) it takes
until a run plans no write. Each run is the CLI in a child process, as a job would run it.

With `--live`, the same adoption (labels and links switched on) on the GitHub double with
GitHub's secondary content limits on, the runs chained as the workflow chains them: the first
started by hand, each `perfbot-follow-up` dispatch starting the next after the workflow's wait for
its `next_at` and `--start-seconds` (default 30) for a hosted runner to start it
(`tests/support/follow_up_chain.py`). It prints the runs, the simulated wall time until nothing is left,
the content-creating requests made, the least time GitHub's limits allow for that many (80 a
minute, 500 an hour, in sliding windows) and the ratio of the two, the refusals the double sent
and the requests sent before a refusal's wait was out.

Run: python -m benchmarks.adoption [--factor 100] [--max-writes 50] [--live [--start-seconds 30]]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.timing import child_environment
from benchmarks.worlds import NOW, repository

SWITCHED_ON = "labels:\n  enabled: true\n  prefix: perf/\n"
LINKS_ON = "links:\n  blocked_by: true\n  sub_issues: true"


def before_perfbot(state_path: Path) -> None:
    state = json.loads(state_path.read_text(encoding="utf-8"))
    for issue in state["issues"]:
        issue["labels"] = []
        issue.pop("blocked_by", None)
        issue.pop("parent", None)
    for key in ("labels", "label_events", "comments"):
        state.pop(key, None)
    state_path.write_text(json.dumps(state), encoding="utf-8")


def without_switches(root: Path) -> None:
    config = root / "config" / "perfbot.yaml"
    text = config.read_text(encoding="utf-8")
    text = text.replace(SWITCHED_ON, "labels:\n  prefix: perf/\n").replace(LINKS_ON, "")
    config.write_text(text, encoding="utf-8")


def reconcile(root: Path, budget: int, *, dry_run: bool) -> dict[str, Any]:
    args = ["reconcile", "--config", str(root / "config" / "perfbot.yaml"), "--offline", str(root / "state.json")]
    args += ["--now", NOW, "--json", "--max-writes", str(budget), *(["--dry-run"] if dry_run else [])]
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args], capture_output=True, text=True, cwd=root, env=child_environment({})
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    plan: dict[str, Any] = json.loads(done.stdout)
    return plan


def writes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in plan["actions"] if a["kind"] != "pull_request" or a["operation"] != "none"]


def kinds(plan: dict[str, Any]) -> dict[str, int]:
    return dict(Counter(a["kind"] if "topic" not in a else f"{a['kind']} {a['topic']}" for a in writes(plan)))


def measure(root: Path, factor: int, budget: int, *, switched: bool) -> None:
    root.mkdir()
    before_perfbot(repository(root, factor))
    if not switched:
        without_switches(root)
    first = reconcile(root, budget, dry_run=True)
    name = "switched on" if switched else "no switches"
    print(f"{name}: the first run plans {len(writes(first))} writes {kinds(first)}")
    if first.get("switched_off"):
        print(f"{name}: turning each on would add {first['switched_off']}")
    runs = 1
    while writes(reconcile(root, budget, dry_run=False)):
        runs += 1
    print(f"{name}: run {runs} at --max-writes {budget} is the first to plan no write")


def measure_live(root: Path, factor: int, budget: int, start_seconds: float) -> None:
    """The adoption on the double, chained by follow-ups, on a simulated clock."""
    from tests.support.backends import FakeClock
    from tests.support.follow_up_chain import Chain, least_seconds, on_the_double, writes_planned

    root.mkdir()
    state_path = repository(root, factor)
    before_perfbot(state_path)
    clock = FakeClock()
    double = on_the_double(root, json.loads(state_path.read_text(encoding="utf-8")), clock)
    chain = Chain(root, double, budget=budget, start_seconds=start_seconds, clock=clock)
    chain.settle()
    seconds = clock.now
    made = sum(1 for entry in double.requests if entry["kind"] == "rest_write" and entry["status"] not in (403, 429))
    least = least_seconds(made)
    runs = chain.runs
    # The guard: a scheduled run after the chain, with nothing left, writes nothing and asks for no follow-up.
    asked = chain.run("schedule", {})
    print(
        f"live, limits on: {runs} runs, {seconds / 3600:.2f} h simulated until nothing is left "
        f"({writes_planned(chain.plans[-1])} writes planned after, "
        f"{'a follow-up asked' if asked else 'no follow-up asked'} by the next run), {made} content-creating "
        f"requests, least time the limits allow {least / 3600:.2f} h, ratio {seconds / max(least, 1):.3f}, "
        f"{len(double.content.refusals)} refusals, {double.content.early} sent before a refusal's wait was out"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factor", type=int, default=100)
    parser.add_argument("--max-writes", type=int, default=50)
    parser.add_argument("--live", action="store_true", help="on the GitHub double, chained by follow-ups")
    parser.add_argument("--start-seconds", type=float, default=30.0, help="simulated start of each run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        if args.live:
            measure_live(Path(directory) / "live", args.factor, args.max_writes, args.start_seconds)
            return
        for switched in (True, False):
            measure(Path(directory) / str(switched), args.factor, args.max_writes, switched=switched)


if __name__ == "__main__":
    main()
