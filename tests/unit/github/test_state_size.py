"""The offline state file of a large repository is read, and the next run reads what a run wrote:
the state's cap is its own (`MAX_STATE_BYTES`), past the 16 MiB that bounds the files perfbot
decides on. Above it, one located line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot import files
from bot.errors import InputError
from bot.github import offline
from bot.github.offline import OfflineGitHub

NOW = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)


def big_state(path: Path, size: int) -> Path:
    """A valid state file of about `size` bytes: one issue whose comment carries the bulk."""
    raw = {
        "repository": "o/n",
        "bot_login": "perfbot[bot]",
        "issues": [{"number": 5}],
        "comments": [{"id": 1, "issue": 5, "user": "alice", "created_at": "2026-08-27T10:00:00Z", "body": "x" * size}],
    }
    path.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return path


def test_a_state_past_the_input_cap_of_the_decided_files_is_read(tmp_path: Path) -> None:
    path = big_state(tmp_path / "state.json", files.MAX_INPUT_BYTES + 1_000_000)
    github = OfflineGitHub.open(path, NOW)
    assert len(github.observe().comments[0].body) == files.MAX_INPUT_BYTES + 1_000_000


def test_a_state_above_its_cap_is_one_located_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(offline, "MAX_STATE_BYTES", 4096)
    path = big_state(tmp_path / "state.json", 8192)
    with pytest.raises(InputError) as raised:
        OfflineGitHub.open(path, NOW)
    assert raised.value.user_message() == f"{path}: larger than the 4,096 bytes perfbot reads"
