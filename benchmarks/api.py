"""Counts the requests a live run makes on the GitHub double, at seed scale and at 10x (10x the
issues and 10x the comments), against a naive REST reader (per issue: the issue, its comments,
the reactions of each comment; the permission of each commenter).

A no-change run is measured twice: without the observation cache (`--cache`), as the first run of
a repository or any run whose cache is missing, old or foreign reads (a full read), and with it.
Runs are a quarter of an hour apart on the double's clock (more than the cache's margin), each
deciding at the same `--now`.

With `--pull-leases`, the config reads open pull requests as leases too (`leases.sources: [file,
pull-requests]`) and the repository has two open PRs and one recently merged per seed's worth of
packets, each on a packet's paths: the table then also gives the GraphQL points of each run and
the part of them the PRs cost (the first query's share by GitHub's formula, plus their follow-ups).

`--reads` measures only what a run reads (a dry run without the cache: the same read as a no-change
run's), which at 100x spares the dozens of runs that first settle the repository.

Run: python -m benchmarks.api [--factor 10] [--pull-leases] [--reads]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import githubkit

from benchmarks.synthetic import scaled
from bot.cli import main as perfbot
from bot.config import load_settings
from bot.reconcile import gather
from bot.render import Renderer
from bot.snapshot import store_save
from tests.github_double import DEFAULT_TOKEN, GitHubDouble
from tests.support.backends import API_URL, cli_over, double_on, live_environ

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
COMMENTS_PER_ISSUE = 5
COMMAND = "/perf review metal-resident-decode by 2026-09-04"


@dataclass
class Counts:
    graphql: int
    rest_read: int
    rest_write: int
    points: int = 0
    pull_points: int = 0

    @property
    def total(self) -> int:
        return self.graphql + self.rest_read + self.rest_write


PULLS_PER_SEED = 2


def person_pulls(paths: list[tuple[str, ...]], factor: int) -> list[dict[str, Any]]:
    """Two open PRs and one merged a day ago per seed's worth of packets, each changing three files
    under one packet's paths (from a fork: the double keeps their paths, not their commits)."""
    found = []
    for n in range(factor * (PULLS_PER_SEED + 1)):
        where = paths[n % len(paths)][0].replace("*", "") or "src/"
        record = {"number": 20_000 + n, "head": f"work-{n}", "head_repository": f"dev{n}/fak", "title": f"work {n}"}
        record |= {"body": "", "user": f"dev{n}", "paths": [f"{where.rstrip('/')}/f{k}.go" for k in range(3)]}
        merged = n % (PULLS_PER_SEED + 1) == PULLS_PER_SEED
        record |= {"state": "merged", "closed_at": "2026-08-26T23:00:00Z"} if merged else {"state": "open"}
        found.append(record)
    return found


def repository(root: Path, factor: int, pull_leases: bool = False) -> tuple[Path, str]:
    """A copy of this repository whose snapshot is `factor` times the seed's, with its state file."""
    for name in ("config", "templates", "docs"):
        shutil.copytree(Path(name), root / name)
    config_file = root / "config" / "perfbot.yaml"
    if pull_leases:
        text = config_file.read_text(encoding="utf-8")
        both = "leases:\n  file: config/leases.json\n  sources: [file, pull-requests]\n"
        config_file.write_text(text.replace("\nleases: config/leases.json\n", "\n" + both, 1), encoding="utf-8")
    settings = load_settings(config_file)
    seed = gather.snapshot(settings).model
    big = scaled(seed, factor)
    (root / settings.config.snapshot).write_text(store_save.dump_new(big), encoding="utf-8")
    page = Renderer.from_directory(settings.templates_path).page(big, settings.config.page_text)
    (root / settings.config.page).write_text(page, encoding="utf-8")
    issues = sorted(gather.tracked_issues(big))
    comments = [
        {
            "id": 1_000_000 + n * COMMENTS_PER_ISSUE + k,
            "issue": number,
            "user": f"person{k}",
            "created_at": "2026-08-27T09:00:00Z",
            "body": f"remark {k} on #{number}",
        }
        for n, number in enumerate(issues)
        for k in range(COMMENTS_PER_ISSUE)
    ]
    state = {
        "repository": "anthony-chaudhary/fak",
        "bot_login": "perfbot[bot]",
        "issues": [{"number": n, "title": f"issue {n}", "state": "open", "assignees": []} for n in issues],
        "comments": comments,
        "permissions": {"alice": "write"},
        "pulls": person_pulls([p.paths for p in big.work_packets], factor) if pull_leases else [],
    }
    path = root / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    return path, str(settings.file)


def live_run(
    state: Path, config: str, root: Path, at: dt.datetime, cache: Path | None = None, dry_run: bool = False
) -> Counts:
    """One run at `at` on the double's clock, with the observation cache when one is given."""
    double = double_on(state, root, at)
    argv = ["reconcile", "--config", config, "--now", NOW.isoformat(), "--json", *(["--dry-run"] if dry_run else [])]
    argv += ["--cache", str(cache)] if cache is not None else []
    out = io.StringIO()
    with cli_over(double), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = perfbot(argv, environ=live_environ(double.world.repository))
    if status != 0:
        raise SystemExit(f"perfbot exited {status}")
    counts = double.kinds()
    api = json.loads(out.getvalue())["api"]
    points = (api["graphql_points"], api.get("pull_request_points", 0))
    return Counts(counts["graphql"], counts["rest_read"], counts["rest_write"], *points)


def naive_reader(state: Path, root: Path) -> Counts:
    """What reading the same issues costs one REST request at a time."""
    double: GitHubDouble = double_on(state, root, NOW)
    owner, name = double.world.repository.split("/")
    numbers = [issue["number"] for issue in double.world.records("issues")]
    with githubkit.GitHub(
        DEFAULT_TOKEN, base_url=API_URL + "/", transport=double.transport(), http_cache=False, auto_retry=False
    ) as github:
        commenters: set[str] = set()
        for number in numbers:
            github.rest.issues.get(owner, name, number)
            found: Any = github.rest.paginate(
                github.rest.issues.list_comments, owner=owner, repo=name, issue_number=number, per_page=100
            )
            for comment in found:
                github.rest.reactions.list_for_issue_comment(owner, name, comment.id)
                if comment.user:
                    commenters.add(comment.user.login)
        for login in sorted(commenters):
            github.rest.repos.get_collaborator_permission_level(owner, name, login)
    counts = double.kinds()
    return Counts(counts["graphql"], counts["rest_read"], counts["rest_write"])


def measure(factor: int, pull_leases: bool = False, reads: bool = False) -> dict[str, Counts]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        state, config = repository(root, factor, pull_leases)
        if reads:
            return {"a run's read, no cache (a dry run)": live_run(state, config, root, NOW, dry_run=True)}
        cache = root / "observed.json"
        times = (NOW + dt.timedelta(minutes=15 * n) for n in range(1000))
        # The first runs answer, propose, label and link (50 writes a run, the default budget);
        # once a run (not the first) writes nothing, the next runs are measured.
        for n in range(100):
            if live_run(state, config, root, next(times), cache).rest_write == 0 and n > 0:
                break
        cold = live_run(state, config, root, next(times))
        warm = live_run(state, config, root, next(times), cache)
        raw = json.loads(state.read_text(encoding="utf-8"))
        raw["comments"].append(
            {"id": 9_000_000, "issue": 8324, "user": "alice", "created_at": "2026-08-27T23:50:00Z", "body": COMMAND}
        )
        state.write_text(json.dumps(raw), encoding="utf-8")
        command = live_run(state, config, root, next(times), cache)
        return {
            "no-change run, no cache (first run)": cold,
            "no-change run, with the cache": warm,
            "one new command, with the cache": command,
            "naive reader": naive_reader(state, root),
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--pull-leases", action="store_true", help="read open pull requests as leases too")
    parser.add_argument("--reads", action="store_true", help="only what a run reads (a dry run, no cache)")
    args = parser.parse_args()
    shown = args.pull_leases or args.reads
    points = " GraphQL points | of them PRs |" if shown else ""
    print(f"| scenario | scale | GraphQL | REST reads | REST writes | total |{points}")
    print("|---|---|---:|---:|---:|---:|" + ("---:|---:|" if shown else ""))
    for factor in (1, args.factor):
        label = "seed" if factor == 1 else f"{factor}x"
        for scenario, counts in measure(factor, args.pull_leases, args.reads).items():
            cells: tuple[object, ...] = (scenario, label, counts.graphql, counts.rest_read, counts.rest_write)
            cells += (counts.total,)
            if shown:
                cells += (counts.points, counts.pull_points) if scenario != "naive reader" else ("", "")
            print("| " + " | ".join(str(cell) for cell in cells) + " |")


if __name__ == "__main__":
    main()
