"""Times hostile inputs through `perfbot reconcile --dry-run`: the worst known case of each reader in
its own process (wall time and peak memory), and the slowest of N generated malformed inputs per
reader in-process (the fuzz test's generators).

Run: python -m benchmarks.hostile [--samples 200]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.paths import REPOSITORY
from bot.cli import main as perfbot
from tests.boundary.test_fuzz_readers import CONFIG, WORST
from tests.support import malformed

# Peak memory of the child, in KiB (Linux `ru_maxrss`), printed after its exit status.
CHILD = """\
import resource, sys
from bot.cli import main
status = main(sys.argv[1:])
print(status, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def repository(root: Path) -> tuple[Path, Path]:
    """A repository with a short config over the small snapshot (`fuzz.yaml`) and over `broken.yaml`."""
    shutil.copytree(REPOSITORY / "config", root / "config")
    shutil.copytree(REPOSITORY / "templates", root / "templates")
    (root / "config" / "fuzz.yaml").write_text(CONFIG.replace("{snapshot}", "config/snapshot.yaml"), encoding="utf-8")
    (root / "config" / "fuzz-snapshot.yaml").write_text(CONFIG.replace("{snapshot}", "broken.yaml"), encoding="utf-8")
    (root / "config" / "snapshot.yaml").write_text(malformed.VALID_SNAPSHOT, encoding="utf-8")
    (root / "state.json").write_text(json.dumps(malformed.base_state()), encoding="utf-8")
    return root / "config" / "fuzz.yaml", root / "config" / "fuzz-snapshot.yaml"


def arguments(root: Path, reader: str, target: Path) -> list[str]:
    config = root / "config" / ("fuzz-snapshot.yaml" if reader == "snapshot" else "fuzz.yaml")
    argv = ["reconcile", "--config", str(config), "--dry-run", "--now", "2026-08-27T23:00:00Z"]
    argv += ["--offline", str(target if reader == "state" else root / "state.json")]
    if reader == "event":
        argv += ["--event-name", "issue_comment", "--event-path", str(target)]
    if reader in ("lease array", "journal"):
        argv += ["--leases", str(target)]
    return argv


WORST_BY_READER = {
    "state": "state.json",
    "event": "event.json",
    "lease array": "leases.json",
    "journal": "lane-journal.jsonl",
    "snapshot": "snapshot.yaml",
}


def worst_cases(root: Path) -> None:
    for reader, name in WORST_BY_READER.items():
        target = root / ("broken.yaml" if reader == "snapshot" else name)
        target.write_text(WORST[name], encoding="utf-8")
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, *arguments(root, reader, target)],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
        status, peak_kib = done.stderr.strip().splitlines()[-1].split()
        print(
            f"{reader:>12}: {len(WORST[name]) / 1024:8.1f} KiB input  exit {status}  "
            f"{elapsed:6.2f} s  peak {int(peak_kib) / 1024:6.1f} MiB (whole process)"
        )


def slowest_generated(root: Path, samples: int) -> None:
    families: dict[str, tuple[st.SearchStrategy[str | bytes], str]] = {
        "state": (malformed.json_breakers(malformed.base_state(), malformed.STATE_FIELDS), "bad-state.json"),
        "event": (malformed.json_breakers(malformed.base_event(), malformed.EVENT_FIELDS), "event.json"),
        "lease array": (
            malformed.json_breakers(malformed.base_leases(), malformed.LEASE_FIELDS, shortest=1),
            "leases.json",
        ),
        "journal": (malformed.broken_journal(), "lane-journal.jsonl"),
        "snapshot": (malformed.broken_snapshot(), "broken.yaml"),
    }
    for reader, (strategy, name) in families.items():
        times: list[float] = []
        sample = sampler(strategy, timed(root, reader, root / name, times), samples)
        sample()
        times.sort()
        print(
            f"{reader:>12}: {len(times)} generated inputs  median {times[len(times) // 2] * 1000:6.1f} ms  "
            f"slowest {times[-1] * 1000:7.1f} ms"
        )


def sampler(
    strategy: st.SearchStrategy[str | bytes], run_one: Callable[[str | bytes], None], samples: int
) -> Callable[[], None]:
    @settings(max_examples=samples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def sample(data: str | bytes) -> None:
        run_one(data)

    return sample


def timed(root: Path, reader: str, target: Path, times: list[float]) -> Callable[[str | bytes], None]:
    def run_one(data: str | bytes) -> None:
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = perfbot(arguments(root, reader, target))
        times.append(time.perf_counter() - started)
        assert status == 1

    return run_one


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        repository(root)
        print("worst known case of each reader, in its own process:")
        worst_cases(root)
        print(f"slowest of {args.samples} generated malformed inputs per reader, in-process:")
        slowest_generated(root, args.samples)


if __name__ == "__main__":
    main()
