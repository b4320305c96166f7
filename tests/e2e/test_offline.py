"""The offline state file: malformed input is a clear error; writes are whole and durable."""

from __future__ import annotations

import datetime as dt
import json
import shlex
from pathlib import Path

import pytest

from bot.cli import main
from bot.errors import InputError
from bot.github.actions import CommentAction, PullRequestAction, ReactAction
from bot.github.offline import OfflineGitHub, parse_state
from tests.support.harness import Repo
from tests.support.paths import ROOT

NOW = dt.datetime(2026, 8, 28, 9, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "s.json:1:2: the state is not valid JSON"),
        ("[]", "s.json:1:1: the state is not a JSON object"),
        ('{"issues": [{"number": "x"}]}', "s.json: issues.0.number: Input should be a valid integer"),
        (
            '{"issues": [{"number": 1}], "comments": [{"id": 5, "issue": 2, "user": "a", "created_at": "2026-08-28T00:00:00Z"}]}',
            "s.json: comments.0: comment 5 is on issue #2, which the state does not list",
        ),
        ('{"permissions": {"alice": "owner"}}', "s.json: permissions.alice: Input should be 'none', 'read'"),
    ],
)
def test_malformed_state_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_state(text, "s.json")
    assert str(info.value).startswith(message)


def test_malformed_state_through_the_cli(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox.state_path.write_text("{", encoding="utf-8")
    assert main(["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]) == 1
    err = capsys.readouterr().err
    assert "offline-state.json:1:2: the state is not valid JSON" in err
    assert "Traceback" not in err


def test_a_live_run_without_a_token_says_what_is_missing(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reconcile", "--config", str(sandbox.config)], environ={"GITHUB_REPOSITORY": "o/r"}) == 1
    err = capsys.readouterr().err
    assert err == "GITHUB_TOKEN is not set: a live run needs a token (or use --offline STATE.json)\n"


def test_bad_now_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        main(["reconcile", "--now", "yesterday"])
    assert info.value.code == 2


def test_writes_land_whole_and_keep_unknown_fields(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(
        json.dumps({"issues": [{"number": 3}], "extra": {"kept": True}, "bot_login": "me[bot]"}), encoding="utf-8"
    )
    github = OfflineGitHub.open(path, NOW)
    first = github.comment(CommentAction(issue=3, topic="packet-ready", body="hello"))
    github.react(ReactAction(issue=3, comment_id=first, content="eyes"))
    github.react(ReactAction(issue=3, comment_id=first, content="eyes"))
    github.pull_request(PullRequestAction(operation="create", branch="b", title="t", body="x", files={"a": "1"}))
    state = json.loads(path.read_text(encoding="utf-8"))
    assert state["extra"] == {"kept": True}
    assert state["comments"] == [
        {
            "id": 1,
            "issue": 3,
            "user": "me[bot]",
            "user_type": "Bot",
            "created_at": "2026-08-28T09:30:00Z",
            "body": "hello",
        }
    ]
    assert state["reactions"] == [{"comment_id": 1, "user": "me[bot]", "content": "eyes"}]
    assert state["pulls"][0]["number"] == 4
    github.pull_request(
        PullRequestAction(operation="update", number=4, branch="b", title="t2", body="y", files={"a": "2"})
    )
    github.pull_request(PullRequestAction(operation="close", number=4, branch="b"))
    pull = json.loads(path.read_text(encoding="utf-8"))["pulls"][0]
    assert (pull["title"], pull["files"], pull["state"]) == ("t2", {"a": "2"}, "closed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_readme_first_command_runs_the_offline_reconcile(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(block) == 2
    assert "pytest" in block[1]
    command = shlex.split(block[0].split("&&")[-1])
    assert Path(command[0]).name == "perfbot"
    assert "--dry-run" in command  # the example state file is never written by the README's run
    monkeypatch.chdir(ROOT)
    assert main(command[1:]) == 0
    out = capsys.readouterr().out
    assert "Packets:" in out
    assert "no pull request: the default branch's snapshot and page are current" in out


def test_the_triggering_event_is_named_in_the_plan(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    event = ROOT / "tests" / "events" / "issue_comment.created.json"
    plan = sandbox.reconcile(capsys, "--event-name", "issue_comment", "--event-path", str(event), dry_run=True)
    assert plan["trigger"] == {
        "event": "issue_comment",
        "action": "created",
        "issue": 8325,
        "comment_id": 101,
        "sender": "alice",
        "sender_is_bot": False,
    }


def test_a_broken_event_file_is_a_clear_error(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    bad = sandbox.root / "event.json"
    bad.write_text("{oops", encoding="utf-8")
    argv = [
        "reconcile",
        "--config",
        str(sandbox.config),
        "--offline",
        str(sandbox.state_path),
        "--event-path",
        str(bad),
    ]
    assert main(argv) == 1
    assert "event.json:1:2: the event payload is not valid JSON" in capsys.readouterr().err
