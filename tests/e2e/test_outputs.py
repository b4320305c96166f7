"""The action's outputs people wire up: the PR's number, operation, web address, branch and the
commit this run put at its head, the comments written, the issues nudged (a JSON list) and the
plan file, as `name=value` lines appended to `$GITHUB_OUTPUT` (here `--outputs`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.github.actions import NUDGE_TOPICS
from tests.support.harness import Repo
from tests.support.one_state import walk_after_run

LATE = "2026-09-20T12:00:00Z"  # past every review_by of the seed


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


def run(
    sandbox: Repo, tmp_path: Path, *args: str, environ: dict[str, str] | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    out, plan = tmp_path / "outputs.txt", tmp_path / "plan.json"
    out.unlink(missing_ok=True)
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--max-writes", "1000"]
    assert main([*argv, "--outputs", str(out), "--plan-json", str(plan), *args], environ=environ or {}) == 0
    decided = json.loads(plan.read_text(encoding="utf-8"))
    if "--dry-run" not in args:
        walk_after_run(sandbox, args, decided)  # one state, one rule (tests/support/one_state.py)
    return outputs(out), decided


def test_nudged_issues_are_the_issues_this_run_nudged(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-leases.json"
    empty.write_text("[]\n", encoding="utf-8")  # every lease released: packets become ready
    found, plan = run(sandbox, tmp_path, "--now", LATE, "--leases", str(empty))
    nudges = [a for a in plan["actions"] if a["kind"] == "comment" and a["topic"] in NUDGE_TOPICS]
    assert {a["topic"] for a in nudges} >= {"review-overdue", "packet-ready"}
    nudged = json.loads(found["nudged-issues"])
    assert nudged == sorted({a["issue"] for a in nudges})
    bot = sandbox.state()["bot_login"]
    commented = {
        c["issue"] for c in sandbox.state()["comments"] if c["user"] == bot and "perfbot:packet-ready" in c["body"]
    }
    assert commented <= set(nudged)
    again, _ = run(sandbox, tmp_path, "--now", LATE, "--leases", str(empty))
    assert again["nudged-issues"] == "[]"  # each nudge is said once
    capsys.readouterr()


def test_a_dry_run_nudges_no_one(sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found, plan = run(sandbox, tmp_path, "--now", LATE, "--dry-run")
    assert any(a["kind"] == "comment" and a["topic"] in NUDGE_TOPICS for a in plan["actions"])
    assert (found["nudged-issues"], found["comments-written"], found["pull-request-head-sha"]) == ("[]", "0", "")
    capsys.readouterr()


def test_the_pull_request_address_follows_the_server(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-leases.json"
    empty.write_text("[]\n", encoding="utf-8")  # packets change state: the PR is opened
    ghes = {"GITHUB_SERVER_URL": "https://ghe.example.com/"}
    found, _ = run(sandbox, tmp_path, "--now", LATE, "--leases", str(empty), environ=ghes)
    number = found["pull-request-number"]
    assert found["pull-request-operation"] == "create"
    assert found["pull-request-url"] == f"https://ghe.example.com/anthony-chaudhary/fak/pull/{number}"
    assert found["pull-request-branch"] == "perfbot/update"
    pull = next(p for p in sandbox.state()["pulls"] if str(p["number"]) == number)
    assert found["pull-request-head-sha"] == pull["head_sha"]
    assert len(pull["head_sha"]) == 40
    capsys.readouterr()


def test_nudge_topics_are_topics_and_none_is_a_reply_or_a_record() -> None:
    from typing import get_args

    from bot.github.actions import Topic

    assert set(get_args(Topic)) >= NUDGE_TOPICS
    assert not NUDGE_TOPICS & {"command-reply", "command-lapsed", "native-links", "native-restored"}
