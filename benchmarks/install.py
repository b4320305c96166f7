"""How long the action's install takes, as a fresh runner waits for it: wall time, medians.

Every case starts from a fresh folder (a fresh runner) and installs perfbot's locked runtime
dependencies (`lock/perfbot.txt`, hash-checked) from a local wheelhouse, so the index's speed is
not measured, only the installer's and the machine's:

- `action, cold`: what the action does when its venv cache misses: pip puts uv (`lock/uv.txt`)
  in a folder of its own, `uv venv` makes the venv, `uv pip sync --require-hashes` fills it, with
  an empty uv cache;
- `action, warm`: what it does when the cache hits: the venv saved by a cold run (a tar archive,
  compressed with zstd when the `zstd` command is there, as actions/cache does) is unpacked where
  it was built; nothing is installed. The cache service's download is not in it;
- `uv, warm cache`: the cold path with uv's cache already filled (a runner that kept uv's cache
  and not the venv);
- `pip --no-compile, cold` and `pip --no-compile, warm cache`: `python -m venv`, then
  `pip install --no-compile --require-hashes` with an empty and a filled pip cache (`--pip`: they
  take a minute or more each);
- `first run after install`: `perfbot validate` on the seed once a venv is fresh (its modules are
  compiled on first import, which a cold install skips), then `again`, on the same venv.

Each round runs every case once, in a new shuffled order. Run:
python -m benchmarks.install [--repeat N] [--pip] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.paths import REPOSITORY

LOCK = REPOSITORY / "lock" / "perfbot.txt"
UV_LOCK = REPOSITORY / "lock" / "uv.txt"
PYTHON = sys.executable
Case = Callable[[Path], None]


def run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    subprocess.run([str(a) for a in args], check=True, capture_output=True, env=env, cwd=cwd)


def environment(**extra: str | Path) -> dict[str, str]:
    """This environment without the bytecode switch or a virtual environment of its own."""
    drop = {"PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"}
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **{k: str(v) for k, v in extra.items()}}


def wheelhouse(into: Path) -> Path:
    """Every wheel both locks pin for this machine, downloaded once (hash-checked)."""
    for lock in (LOCK, UV_LOCK):
        run(PYTHON, "-m", "pip", "download", "--quiet", "--require-hashes", "--no-deps", "-r", lock, "-d", into)
    return into


class Installs:
    """The cases, over one wheelhouse; `venv` and `archive` hold a cold run's result for the warm case."""

    def __init__(self, wheels: Path, work: Path) -> None:
        self.wheels, self.work = wheels, work
        self.built = work / "built" / "perfbot-venv"  # where the cold run leaves the venv the warm one restores
        self.archive = work / "built.tar"

    def uv_install(self, root: Path, cache: Path) -> Path:
        """The action's cold install under `root`; the venv's folder."""
        tools, venv = root / "perfbot-installer", root / "perfbot-venv"
        pip = ("--quiet", "--no-compile", "--require-hashes", "--no-deps", "--no-index", "--find-links", self.wheels)
        run(PYTHON, "-m", "pip", "install", *pip, "--target", tools, "-r", UV_LOCK, env=environment())
        uv, env = tools / "bin" / "uv", environment(UV_CACHE_DIR=cache, UV_NO_PROGRESS="1")
        run(uv, "venv", "--quiet", "--python", PYTHON, venv, env=env)
        sync = (
            "--quiet",
            "--require-hashes",
            "--no-index",
            "--find-links",
            self.wheels,
            "--python",
            venv / "bin" / "python",
        )
        run(uv, "pip", "sync", *sync, LOCK, env=env)
        return venv

    def action_cold(self, root: Path) -> None:
        self.uv_install(root, root / "uv-cache")

    def uv_warm_cache(self, root: Path) -> None:
        self.uv_install(root, self.work / "uv-cache-kept")

    def action_warm(self, root: Path) -> None:
        run("tar", "-xf", self.archive, "-C", root)

    def pip_install(self, root: Path, cache: Path) -> None:
        venv = root / "venv"
        run(PYTHON, "-m", "venv", venv, env=environment())
        flags = ("--quiet", "--no-compile", "--require-hashes", "--no-index", "--find-links", self.wheels)
        run(venv / "bin" / "python", "-m", "pip", "install", *flags, "-r", LOCK, env=environment(PIP_CACHE_DIR=cache))

    def pip_cold(self, root: Path) -> None:
        self.pip_install(root, root / "pip-cache")

    def pip_warm_cache(self, root: Path) -> None:
        self.pip_install(root, self.work / "pip-cache-kept")

    def prepare(self, pip: bool) -> None:
        """Fill the kept caches once, and build the venv the warm case restores (never timed)."""
        self.built.parent.mkdir(parents=True)
        venv = self.uv_install(self.built.parent, self.work / "uv-cache-kept")
        assert venv == self.built
        compress = ["--use-compress-program", "zstd"] if shutil.which("zstd") else []
        self.archive = self.archive.with_suffix(".tar.zst" if compress else ".tar")
        run("tar", *compress, "-cf", self.archive, "-C", self.built.parent, self.built.name)
        check = self.work / "check"
        check.mkdir()
        self.action_warm(check)  # the restored venv imports what perfbot needs
        run(
            check / "perfbot-venv" / "bin" / "python",
            "-P",
            "-c",
            "import githubkit, pydantic, jinja2, cmarkgfm, ruamel.yaml",
        )
        if pip:
            self.pip_install(self.work / "pip-prepare", self.work / "pip-cache-kept")


def first_runs(installs: Installs, root: Path) -> tuple[float, float]:
    """`perfbot validate` on the seed from a fresh cold install, then again: the first compiles
    every module it imports (perfbot's own too: no `.pyc` is read from the checkout)."""
    venv = installs.uv_install(root, root / "uv-cache")
    env = environment(PYTHONPATH=REPOSITORY, PYTHONPYCACHEPREFIX=root / "pycache")
    times = []
    for _ in range(2):
        start = time.perf_counter()
        run(venv / "bin" / "python", "-P", "-m", "bot", "validate", env=env, cwd=REPOSITORY)
        times.append(time.perf_counter() - start)
    return times[0], times[1]


def measure(repeat: int, pip: bool) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="perfbot-install-") as temporary:
        work = Path(temporary)
        installs = Installs(wheelhouse(work / "wheels"), work)
        installs.prepare(pip)
        cases: dict[str, Case] = {
            "action, cold": installs.action_cold,
            "action, warm (venv restored)": installs.action_warm,
            "uv, warm cache": installs.uv_warm_cache,
        }
        if pip:
            cases |= {
                "pip --no-compile, cold": installs.pip_cold,
                "pip --no-compile, warm cache": installs.pip_warm_cache,
            }
        times: dict[str, list[float]] = {name: [] for name in [*cases, "first run after install", "again"]}
        for round_number in range(repeat):
            order = list(cases)
            random.shuffle(order)
            for name in order:
                root = work / f"round-{round_number}-{len(times[name])}-{abs(hash(name))}"
                root.mkdir()
                start = time.perf_counter()
                cases[name](root)
                times[name].append(time.perf_counter() - start)
                shutil.rmtree(root)
            first, again = first_runs(installs, work / f"first-{round_number}")
            times["first run after install"].append(first)
            times["again"].append(again)
        return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.install", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--pip", action="store_true", help="also time pip --no-compile (slow)")
    parser.add_argument("--json", action="store_true", help="print every time as JSON")
    args = parser.parse_args(argv)
    times = measure(args.repeat, args.pip)
    if args.json:
        print(json.dumps(times, indent=2))
        return 0
    print("| case | median wall (s) | min | max | rounds |\n|---|---:|---:|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} | {max(values):.2f} | {len(values)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
