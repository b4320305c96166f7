"""Hostile JSON inputs (the state file and event payloads): a clear located error, or a faithful run.

Regression cases of issue #10, items 4 and 7: each failed on the code before the fix with a
traceback, a silent misreading, or writes made before the failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot import json_input
from bot.cli import main
from bot.errors import InputError
from bot.github.offline import parse_state
from bot.json_input import JsonProblem, loads
from tests.support.harness import Repo, pull
from tests.support.property_budget import examples

NOW = "2026-08-27T23:00:00Z"
COMPLETE = "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"


def run(repo: Repo, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    argv = ["reconcile", "--config", str(repo.config), "--offline", str(repo.state_path), "--now", NOW, *extra]
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def refused_whole(repo: Repo, capsys: pytest.CaptureFixture[str], text: str) -> str:
    """Runs (writes allowed) on a state that must be refused: exit 1, no traceback, the file untouched."""
    repo.state_path.write_text(text, encoding="utf-8")
    status, _, err = run(repo, capsys)
    assert status == 1
    assert "Traceback" not in err
    assert repo.state_path.read_text(encoding="utf-8") == text
    return err


@pytest.mark.parametrize(
    ("text", "reason", "at"),
    [
        ('{"a": ' + "7" * 5000 + "}", "an integer of 5000 digits (at most 40)", (1, 7)),
        ('{"a": [-' + "7" * 41 + "]}", "an integer of 41 digits (at most 40)", (1, 8)),
        ("[" * 100_000, "nested deeper than 64 levels", (1, 65)),
        ('{"a":\n {"b": 1, "b": 2}}', 'duplicate key "b"', (2, 11)),
        ('{"a": NaN}', "NaN is not a JSON number", (1, 1)),
        ('{"a": -Infinity}', "-Infinity is not a JSON number", (1, 1)),
    ],
    ids=["5000-digits", "41-digits", "deep", "duplicate-key", "nan", "infinity"],
)
def test_the_json_reader_refuses_what_the_standard_one_cannot_bound(
    text: str, reason: str, at: tuple[int, int]
) -> None:
    with pytest.raises(JsonProblem) as info:
        loads(text)
    assert (info.value.reason, info.value.line, info.value.col) == (reason, *at)


def test_the_json_reader_keeps_what_is_fine() -> None:
    assert loads('{"x": "[[[[ 99999999999999999999999999999999999999999999", "y": 1.5e300, "z": ' + "9" * 40 + "}") == {
        "x": "[[[[ 99999999999999999999999999999999999999999999",
        "y": 1.5e300,
        "z": int("9" * 40),
    }
    assert loads(json.dumps([[[1]]] * 3)) == [[[1]]] * 3


def test_lone_surrogates_become_replacement_characters_and_pairs_stay() -> None:
    assert loads(r'["\ud800", "a\udc00b", "\\ud800", "\ud83d\ude00", "\\\ud800"]') == [
        "\ufffd",
        "a\ufffdb",
        "\\ud800",
        "\U0001f600",
        "\\\ufffd",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"issues": [' + "1" * 5000 + "]}", "s.json:1:13: the state: an integer of 5000 digits (at most 40)"),
        ('{"issues": ' + "[" * 100_000, "s.json:1:75: the state: nested deeper than 64 levels"),
        ('{"permissions": {"mallory": "read", "mallory": "admin"}}', 's.json:1:37: the state: duplicate key "mallory"'),
        (
            '{"issues": [{"number": 1}], "comments": [{"id": 900, "issue": 1, "user": "root", '
            '"created_at": "2026-08-27T10:00:00Z"}, {"id": 900, "issue": 1, "user": "mallory", '
            '"created_at": "2026-08-27T10:01:00Z"}]}',
            "s.json: comments.1: comment 900 repeats comments.0",
        ),
        ('{"issues": [{"number": 1}, {"number": 1}]}', "s.json: issues.1: issue #1 repeats issues.0"),
        (
            '{"pulls": [{"number": 3, "head": "a"}, {"number": 3, "head": "b"}]}',
            "s.json: pulls.1: pull request #3 repeats pulls.0",
        ),
        (
            '{"issues": [{"number": 1}], "comments": [{"id": 5, "issue": 1, "user": "a", '
            '"created_at": "0001-01-01T00:00:00+14:00"}]}',
            "s.json: comments.0.created_at: a time that falls outside the years 1 to 9999 in UTC",
        ),
        (
            '{"issues": [{"number": 1}], "comments": [{"id": 5, "issue": 1, "user": "a", '
            '"created_at": "9999-12-31T23:59:59-12:00"}]}',
            "s.json: comments.0.created_at: a time that falls outside the years 1 to 9999 in UTC",
        ),
        ('{"permissions": {"a\\n::error::x": "owner"}}', "s.json: permissions.a ::error::x: Input should be"),
        (
            '{"reactions": [{"comment_id": 0, "user": "a", "content": "eyes"}]}',
            "s.json: reactions.0.comment_id: Input should be greater than 0",
        ),
    ],
    ids=[
        "5000-digits",
        "deep",
        "duplicate-key",
        "duplicate-comment-id",
        "duplicate-issue",
        "duplicate-pull",
        "year-0-in-utc",
        "year-10000-in-utc",
        "key-with-newline",
        "reaction-on-comment-0",
    ],
)
def test_bad_state_files_are_located_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_state(text, "s.json")
    assert str(info.value).startswith(message)


def test_two_comments_with_one_id_are_refused_before_anything_is_written(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two comments with id 900 attributed an admin's command to a reader."""
    state = sandbox.state()
    state["permissions"] = {"root": "admin", "mallory": "read"}
    state["comments"] = [
        {"id": 900, "issue": 8325, "user": "root", "created_at": "2026-08-27T10:00:00Z", "body": COMPLETE},
        {"id": 900, "issue": 8325, "user": "mallory", "created_at": "2026-08-27T10:01:00Z", "body": "/perf help"},
    ]
    err = refused_whole(sandbox, capsys, json.dumps(state, indent=2))
    assert "comments.1: comment 900 repeats comments.0" in err


@pytest.mark.parametrize("created_at", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
def test_a_time_at_the_edge_of_the_calendar_is_a_clear_error(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], created_at: str
) -> None:
    state = sandbox.state()
    state["comments"] = [{"id": 5, "issue": 8325, "user": "a", "created_at": created_at, "body": "/perf help"}]
    err = refused_whole(sandbox, capsys, json.dumps(state))
    assert "comments.0.created_at: a time that falls outside the years 1 to 9999 in UTC" in err


def test_a_pull_without_state_is_open_and_is_updated_in_place(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """It raised KeyError after the run's earlier writes were saved, and again on every rerun."""
    state = sandbox.state()
    state["permissions"] = {"root": "admin"}
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "root", "created_at": "2026-08-27T10:00:00Z", "body": COMPLETE}
    ]
    state["pulls"] = [{"number": 7, "head": "perfbot/update", "title": "old", "files": {}}]
    sandbox.write_state(state)
    status, _, err = run(sandbox, capsys)
    assert (status, "Traceback" in err) == (0, False)
    (record,) = sandbox.state()["pulls"]
    assert record["number"] == 7
    assert "state" not in record  # still read as open; the update went to this PR, not a second one
    assert "config/snapshot.yaml" in record["files"]


def test_a_lone_surrogate_login_cannot_stop_the_plan_being_printed(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The writes were applied, then printing the plan crashed on the login."""
    sandbox.write_state(sandbox.state())
    text = sandbox.state_path.read_text(encoding="utf-8").replace('"assignees": []', '"assignees": ["ev\\ud800e"]', 1)
    sandbox.state_path.write_text(text, encoding="utf-8")
    status, out, err = run(sandbox, capsys, "--dry-run")
    assert (status, "Traceback" in err) == (0, False)
    assert "ev\ufffde" in out


def test_a_symlinked_state_file_stays_a_link_and_its_target_is_updated(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    state = sandbox.state()
    state["permissions"] = {"root": "admin"}
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "root", "created_at": "2026-08-27T10:00:00Z", "body": "/perf help"}
    ]
    target = sandbox.root / "real-state.json"
    target.write_text(json.dumps(state), encoding="utf-8")
    link = sandbox.root / "link.json"
    link.symlink_to(target)
    assert main(["reconcile", "--config", str(sandbox.config), "--offline", str(link), "--now", NOW]) == 0
    capsys.readouterr()
    assert link.is_symlink()
    assert any(c["user"] == "perfbot[bot]" for c in json.loads(target.read_text(encoding="utf-8"))["comments"])


def test_a_page_that_cannot_be_written_is_a_clear_error(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """`render --write` raised IsADirectoryError when the temporary file could not be written."""
    (sandbox.page_path.parent / f".{sandbox.page_path.name}.tmp").mkdir()
    before = sandbox.page_path.read_text(encoding="utf-8")
    assert main(["render", "--config", str(sandbox.config), "--write"]) == 1
    err = capsys.readouterr().err
    assert "current-constraints.md: cannot write: Is a directory" in err
    assert "Traceback" not in err
    assert sandbox.page_path.read_text(encoding="utf-8") == before


def event_run(repo: Repo, capsys: pytest.CaptureFixture[str], payload: str) -> tuple[int, str, str]:
    event = repo.root / "event.json"
    event.write_text(payload, encoding="utf-8")
    return run(repo, capsys, "--dry-run", "--event-name", "issue_comment", "--event-path", str(event))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ('{"issue": {"number": ' + "9" * 5000 + "}}", "event.json:1:22: the event payload: an integer of 5000 digits"),
        ('{"issue": ' + "[" * 100_000, "event.json:1:74: the event payload: nested deeper than 64 levels"),
        (
            '{"issue": {"number": "8325"}}',
            "event.json: the event payload: issue.number: Input should be a valid integer",
        ),
        ('{"issue": {"number": true}}', "event.json: the event payload: issue.number: Input should be a valid integer"),
        ('{"comment": {"id": 1, "user": 5}}', "event.json: the event payload: comment.user: Input should be a valid"),
        ('{"sender": {"login": ["a"]}}', "event.json: the event payload: sender.login: Input should be a valid string"),
        ('{"action": "created", "action": "deleted"}', 'event.json:1:23: the event payload: duplicate key "action"'),
        ("[]", "event.json:1:1: the event payload is not a JSON object"),
    ],
    ids=[
        "5000-digits",
        "deep",
        "text-number",
        "bool-number",
        "user-not-object",
        "login-not-text",
        "duplicate",
        "array",
    ],
)
def test_bad_event_payloads_are_located_errors(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], payload: str, message: str
) -> None:
    status, out, err = event_run(sandbox, capsys, payload)
    assert (status, out) == (1, "")  # refused before anything is decided
    assert message in err
    assert "Traceback" not in err


def test_a_hostile_sender_is_one_inert_line_in_the_plan(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    payload: dict[str, Any] = {"action": "created\n::error::a", "sender": {"login": "eve\n::error::pwned ##[error]x"}}
    status, out, _ = event_run(sandbox, capsys, json.dumps(payload))
    assert status == 0
    (trigger,) = [line for line in out.split("\n") if line.startswith("Trigger:")]
    assert "pwned" in trigger
    assert [line for line in out.split("\n") if line.lstrip().startswith("::") or "##[" in line] == []


def test_a_proposal_that_would_not_reload_as_decided_is_refused(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 3: whatever writes the text, a PR only proposes a snapshot that reloads as the decided model."""
    from bot.snapshot import store_save

    real = store_save.save_text

    def drops_the_ledger(loaded: Any, snapshot: Any, *, splice: bool = True) -> str:
        return real(loaded, snapshot.model_copy(update={"ledger": ()}), splice=splice)

    monkeypatch.setattr(store_save, "save_text", drops_the_ledger)
    state = sandbox.state()
    state["permissions"] = {"root": "admin"}
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "root", "created_at": "2026-08-27T10:00:00Z", "body": COMPLETE}
    ]
    sandbox.write_state(state)
    before = sandbox.state_path.read_text(encoding="utf-8")
    status, out, err = run(sandbox, capsys)
    assert status == 1
    assert "no pull request from perfbot/update (refused: the proposed config/snapshot.yaml would reload" in out
    assert "differently from the decided snapshot (at ledger)" in out
    assert "perfbot refused to propose the pull request" in err
    assert "Traceback" not in err
    assert sandbox.state_path.read_text(encoding="utf-8") == before  # nothing was written


def test_the_refusal_is_in_the_plan_json(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.snapshot import store_save

    monkeypatch.setattr(store_save, "save_text", lambda loaded, snapshot, splice=True: "schema: [\n")
    state = sandbox.state()
    state["permissions"] = {"root": "admin"}
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "root", "created_at": "2026-08-27T10:00:00Z", "body": COMPLETE}
    ]
    sandbox.write_state(state)
    status, out, _ = run(sandbox, capsys, "--json", "--dry-run")
    assert status == 1
    action = pull(json.loads(out))
    assert action["operation"] == "none"
    assert action["note"].startswith("refused: the proposed config/snapshot.yaml would not load (config/snapshot.yaml:")


def test_inputs_are_read_with_universal_newlines(tmp_path: Path) -> None:
    from bot.files import read_text

    path = tmp_path / "x.txt"
    path.write_bytes(b"a\r\nb\rc\n")
    assert read_text(path) == "a\nb\nc\n"
    path.write_bytes(b"ok\n\xff")
    with pytest.raises(InputError, match=r"x.txt:2: not UTF-8 text \(byte 4: invalid start byte\)"):
        read_text(path)


_BOUNDS_PIECES = st.sampled_from(["[", "]", "{", "}", '"', "\\", "-", "1" * 20, "2", ".", "e", " ", "a", ",", ":", "0"])


@settings(max_examples=examples(400, bounded=100), deadline=None)
@given(pieces=st.lists(_BOUNDS_PIECES, max_size=120), deep=st.integers(min_value=0, max_value=70))
@example(pieces=[], deep=65)  # valid JSON one level too deep
@example(pieces=["1" * 20, "1" * 20, "2"], deep=1)  # valid JSON with a 41-digit integer
@example(pieces=["-", "1" * 20, "1" * 20], deep=0)  # a 40-digit integer is within bounds
def test_reading_refuses_what_the_token_walk_would_refuse_first(pieces: list[str], deep: int) -> None:
    text = "[" * deep + "".join(pieces) + "]" * deep

    def outcome(read: Callable[[str], Any]) -> str:
        try:
            return repr(read(text))
        except json_input.JsonProblem as problem:
            return f"{problem.reason} at {problem.line}:{problem.col}"

    def walk_first(text: str) -> Any:
        json_input._walk_bounds(text)
        return json_input.loads(text)

    assert outcome(json_input.loads) == outcome(walk_first)
