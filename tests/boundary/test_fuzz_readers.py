"""Fuzz: generated malformed inputs per reader, each through `perfbot reconcile --dry-run`: 1,000 per
reader under the thorough hypothesis profile, a bounded sample otherwise (`tests/support/property_budget.py`).

Every one must end in exit 1 with a message naming the file, never a traceback, and leave the
input byte for byte as it was. The runs are in-process for speed (a small config and snapshot keep
each near 10 ms); a handful of the worst cases also go through a real process.
`benchmarks/hostile.py` measures time and memory per input; nothing here asserts a timing.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from tests.support import malformed
from tests.support.paths import ROOT
from tests.support.property_budget import examples

FUZZ = settings(
    max_examples=examples(1000, bounded=20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
# The config's fixed page texts are long; short ones keep the config's own load out of the timing.
CONFIG = """\
snapshot: {snapshot}
page: docs/current-constraints.md
leases: config/leases.json
page_text: {title: t, description: d, authority: a, refresh: r, execution_intro: e, arms_intro: a,
  walk_intro: w, source_queue_intro: s, update_contract: u}
"""


@dataclass(frozen=True)
class Fuzzed:
    """A repository whose inputs are valid, except the one under test."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config" / "fuzz.yaml"

    @property
    def broken_snapshot_config(self) -> Path:
        """The same, over a snapshot of its own that the snapshot fuzz breaks."""
        return self.root / "config" / "fuzz-snapshot.yaml"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    def run(
        self, target: Path, data: str | bytes, *extra: str, offline: Path | None = None, config: Path | None = None
    ) -> None:
        """`data` written to `target`, one dry run; it must be refused cleanly and leave `target` as it was."""
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
        before = target.read_bytes()
        err = io.StringIO()
        argv = ["reconcile", "--config", str(config or self.config), "--offline", str(offline or self.state)]
        argv += ["--dry-run", *extra]
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            status = main([*argv, "--now", "2026-08-27T23:00:00Z"])
        assert status == 1, data[:300]
        message = err.getvalue()
        assert message.startswith(str(target)), message[:300]
        assert "Traceback" not in message
        assert target.read_bytes() == before


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Fuzzed:
    root = tmp_path_factory.mktemp("fuzz")
    for name in ("config", "templates"):
        shutil.copytree(ROOT / name, root / name)
    (root / "config" / "fuzz.yaml").write_text(CONFIG.replace("{snapshot}", "config/snapshot.yaml"), encoding="utf-8")
    (root / "config" / "fuzz-snapshot.yaml").write_text(CONFIG.replace("{snapshot}", "broken.yaml"), encoding="utf-8")
    (root / "config" / "snapshot.yaml").write_text(malformed.VALID_SNAPSHOT, encoding="utf-8")
    (root / "state.json").write_text(json.dumps(malformed.base_state()), encoding="utf-8")
    return Fuzzed(root)


@pytest.mark.slow
@FUZZ
@given(data=malformed.json_breakers(malformed.base_state(), malformed.STATE_FIELDS))
def test_the_state_reader(fuzzed: Fuzzed, data: str | bytes) -> None:
    target = fuzzed.root / "bad-state.json"
    fuzzed.run(target, data, offline=target)


@FUZZ
@given(data=malformed.json_breakers(malformed.base_event(), malformed.EVENT_FIELDS))
def test_the_event_reader(fuzzed: Fuzzed, data: str | bytes) -> None:
    target = fuzzed.root / "event.json"
    fuzzed.run(target, data, "--event-name", "issue_comment", "--event-path", str(target))


@FUZZ
@given(data=malformed.json_breakers(malformed.base_leases(), malformed.LEASE_FIELDS, shortest=1))
def test_the_lease_array_reader(fuzzed: Fuzzed, data: str | bytes) -> None:
    target = fuzzed.root / "leases.json"
    fuzzed.run(target, data, "--leases", str(target))


@FUZZ
@given(data=malformed.broken_journal())
def test_the_journal_reader(fuzzed: Fuzzed, data: str) -> None:
    target = fuzzed.root / "lane-journal.jsonl"
    fuzzed.run(target, data, "--leases", str(target))


@FUZZ
@given(data=malformed.broken_snapshot())
def test_the_snapshot_reader(fuzzed: Fuzzed, data: str | bytes) -> None:
    fuzzed.run(fuzzed.root / "broken.yaml", data, config=fuzzed.broken_snapshot_config)


def test_the_valid_inputs_the_fuzz_starts_from_are_accepted(fuzzed: Fuzzed, capsys: pytest.CaptureFixture[str]) -> None:
    """Each refusal above is caused by the one broken input: the same run on the unbroken ones succeeds."""
    journal = fuzzed.root / "base-journal.jsonl"
    journal.write_text(
        "\n".join(json.dumps(malformed.acquire(lane, "h")) for lane in ("model", "compute")) + "\n", encoding="utf-8"
    )
    event = fuzzed.root / "base-event.json"
    event.write_text(json.dumps(malformed.base_event()), encoding="utf-8")
    argv = ["reconcile", "--config", str(fuzzed.config), "--offline", str(fuzzed.state), "--dry-run"]
    argv += ["--event-name", "issue_comment", "--event-path", str(event), "--now", "2026-08-27T23:00:00Z"]
    assert main([*argv, "--leases", str(journal)]) == 0
    assert main(argv) == 0
    capsys.readouterr()


WORST = {
    "state.json": "[" * 100_000,
    "event.json": '{"issue": {"number": ' + "9" * 100_000 + "}}",
    "leases.json": "[" + '{"a": ' * 50_000,
    "lane-journal.jsonl": json.dumps(malformed.acquire("model", "a"))
    + "\n"
    + "[" * 100_000
    + "\n"
    + '{"op": "CHECKPOINT", "leases": 5}\n',
    "snapshot.yaml": malformed.VALID_SNAPSHOT.replace(
        "as_of: 2026-08-27",
        "as_of: [&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol], "
        + "".join(f"&l{n} [{', '.join([f'*l{n - 1}'] * 9)}], " for n in range(1, 500))
        + "]",
    ),
}


@pytest.mark.parametrize("name", sorted(WORST))
def test_the_worst_cases_in_a_real_process_end_without_a_traceback(fuzzed: Fuzzed, name: str) -> None:
    target = fuzzed.root / ("broken.yaml" if name == "snapshot.yaml" else f"worst-{name}")
    target.write_text(WORST[name], encoding="utf-8")
    config = fuzzed.broken_snapshot_config if name == "snapshot.yaml" else fuzzed.config
    argv = [str(Path(sys.executable).parent / "perfbot"), "reconcile", "--config", str(config), "--dry-run"]
    argv += ["--offline", str(target if name == "state.json" else fuzzed.state)]
    if name == "event.json":
        argv += ["--event-name", "issue_comment", "--event-path", str(target)]
    if name in ("leases.json", "lane-journal.jsonl"):
        argv += ["--leases", str(target)]
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 1
    assert result.stderr.startswith(str(target))
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_the_generators_draw_what_they_say(fuzzed: Fuzzed) -> None:
    """The malformed inputs are not all one kind: each family shows up."""
    seen: set[str] = set()

    # Drawing only (nothing runs); 100 draws showed every family at least twice over 60 seeds.
    @settings(max_examples=examples(200, bounded=100), deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def sample(data: st.DataObject) -> None:
        text = data.draw(malformed.json_breakers(malformed.base_state(), malformed.STATE_FIELDS))
        if isinstance(text, bytes):
            seen.add("bytes")
        elif "[" * 65 in text or '{"a": ' * 65 in text:
            seen.add("deep")
        elif re.search("[0-9]{41}|NaN|Infinity", text):
            seen.add("bounds")

    sample()
    assert seen == {"bytes", "deep", "bounds"}
