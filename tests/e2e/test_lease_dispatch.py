"""A published change of leases starts a run: `publish-leases` sends one `repository_dispatch`
(`perfbot-leases`) per commit that changes what a run decides on, and none for a rerun with the
same leases or for the refresh that only renews the readback time. Offline, the state file keeps
each dispatch in `dispatches`, as GitHub keeps the runs a dispatch starts."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.cli.run import DISPATCH_EVENT
from tests.boundary.test_leases import acquire, journal, op
from tests.support.harness import Repo

T0 = dt.datetime(2026, 8, 27, 16, tzinfo=dt.UTC)
WHERE = "perfbot/leases:leases.json"


def publish(sandbox: Repo, source: Path, at: dt.datetime) -> None:
    argv = ["publish-leases", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main([*argv, "--from", str(source), "--now", at.isoformat()]) == 0


def dispatches(sandbox: Repo) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = sandbox.state().get("dispatches", [])
    return found


def write(path: Path, *entries: dict[str, Any]) -> Path:
    path.write_text(journal(*entries), encoding="utf-8")
    return path


def test_one_dispatch_per_changed_commit_and_none_for_a_rerun_or_a_refresh(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held = write(tmp_path / "held.jsonl", acquire("model", "issue-9420-a", ["internal/model/**"]))
    publish(sandbox, held, T0)
    out = capsys.readouterr().out
    assert f"sent repository_dispatch {DISPATCH_EVENT}" in out
    assert [(d["event_type"], d["client_payload"]["leases"]) for d in dispatches(sandbox)] == [(DISPATCH_EVENT, WHERE)]
    assert dispatches(sandbox)[0]["client_payload"]["readback_at"] == "2026-08-27T16:00:00Z"

    publish(sandbox, held, T0 + dt.timedelta(minutes=5))  # the same leases: nothing committed
    assert "nothing written" in capsys.readouterr().out
    publish(sandbox, held, T0 + dt.timedelta(minutes=61))  # the hourly refresh: committed, no run needed
    out = capsys.readouterr().out
    assert out.startswith(f"published to {WHERE}")
    assert "repository_dispatch" not in out
    assert len(dispatches(sandbox)) == 1

    released = write(
        tmp_path / "released.jsonl", acquire("model", "issue-9420-a", ["internal/model/**"]), op("RELEASE", "model")
    )
    publish(sandbox, released, T0 + dt.timedelta(minutes=62))
    publish(sandbox, released, T0 + dt.timedelta(minutes=63))
    assert [d["client_payload"]["readback_at"] for d in dispatches(sandbox)] == [
        "2026-08-27T16:00:00Z",
        "2026-08-27T17:02:00Z",
    ]


def test_a_readback_that_could_not_be_read_is_replaced_and_dispatched(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.edit_state(branch_files={"perfbot/leases": {"leases.json": "not json"}})
    source = tmp_path / "live.json"
    source.write_text(json.dumps([acquire("m", "issue-1", ["m/**"])["lease"]]), encoding="utf-8")
    publish(sandbox, source, T0)
    assert len(dispatches(sandbox)) == 1
