"""`perfbot publish-leases` against the GitHub double, and a run reading what it published
(issue #9, item 4): one commit per change, none for a rerun, the branch read in the run's one
query, the same derived states as the file read locally, a stale readback reported."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.evidence.leases import parse_leases
from tests.boundary.test_leases import acquire, journal, op
from tests.boundary.test_live import REPO, Live
from tests.github_double.faults import GRAPHQL, Fault
from tests.support.backends import NOW, live_environ
from tests.support.harness import Repo, pull

BRANCH, FILE = "perfbot/leases", "leases.json"
WHERE = f"{BRANCH}:{FILE}"
READ_AT = NOW - dt.timedelta(minutes=30)
TREES = {"POST /repos/anthony-chaudhary/fak/git/trees", "POST /repos/anthony-chaudhary/fak/git/commits"}
DISPATCH = "POST /repos/anthony-chaudhary/fak/dispatches"
COMMIT = b"createCommitOnBranch"


@pytest.fixture
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Live:
    return Live(sandbox, capsys)


def fleet_journal(tmp_path: Path) -> Path:
    """The host's dos journal: #9420 took both lanes, then gave `model` back; #8635 holds a lane."""
    path = tmp_path / "lane-journal.jsonl"
    path.write_text(
        journal(
            acquire("model", "issue-9420-cache-weight-residency", ["internal/model/**"]),
            acquire("compute", "issue-9420-cache-weight-residency", ["internal/compute/**"]),
            op("RELEASE", "model"),
            acquire("metal", "issue-8635-q8-gate", ["internal/metal/**"], loop_ts="2026-08-27T22:20:00Z"),
        ),
        encoding="utf-8",
    )
    return path


def publish(live: Live, *args: str, at: dt.datetime = READ_AT) -> tuple[int, str, str]:
    return live.run(*args, "--now", at.isoformat(), command="publish-leases")


def states(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(p["id"], p["derived_state"], p["derived_owner"]) for p in plan["packets"]]


def test_publish_writes_once_then_nothing_and_a_run_reads_the_branch(live: Live, tmp_path: Path) -> None:
    source = fleet_journal(tmp_path)
    status, out, err = publish(live, "--from", str(source))
    assert status == 0, err
    assert live.double.kinds() == {"graphql": 1, "rest_read": 0, "rest_write": 4}
    assert set(live.writes()) == TREES | {"POST /repos/anthony-chaudhary/fak/git/refs", DISPATCH}
    head = live.double.tip(BRANCH)
    assert head is not None
    assert f"published to {WHERE} (commit {head[:12]}): perfbot: lease readback at 2026-08-27T22:30:00Z" in out
    commit = live.double.world.git.commits[head]
    assert commit.parents == ()  # a branch of its own, sharing no history with the code
    assert "The first readback published to this branch." in commit.message
    (text,) = live.double.files(BRANCH).values()
    readback = parse_leases(text, WHERE)
    assert readback.format == "published"
    assert readback.readback_at == READ_AT
    assert [(x.lane, x.holder) for x in readback.live] == [
        ("compute", "issue-9420-cache-weight-residency"),
        ("metal", "issue-8635-q8-gate"),
    ]
    assert readback.live == parse_leases(source.read_text(encoding="utf-8"), "j").live

    status, out, _ = publish(live, "--from", str(source), at=READ_AT + dt.timedelta(minutes=10))
    assert status == 0
    assert live.double.kinds() == {"graphql": 1, "rest_read": 0, "rest_write": 0}
    assert live.double.tip(BRANCH) == head
    assert out == f"{WHERE} already holds these 2 live leases, read back at 2026-08-27T22:30:00Z; nothing written\n"

    from_branch = live.plan("--leases", WHERE, "--dry-run")
    assert from_branch["api"]["graphql"] == 1  # the readback came in the run's one query
    local = tmp_path / "published.json"
    local.write_text(text, encoding="utf-8")
    from_file = live.plan("--leases", str(local), "--dry-run")
    assert states(from_branch) == states(from_file)
    assert from_branch["packets"] == from_file["packets"]
    seed = live.plan("--dry-run")  # the checkout's config/leases.json: other leases, other states
    assert states(seed) != states(from_branch)
    assert from_branch["leases"] | {"file": ""} == from_file["leases"] | {"file": ""}
    assert from_branch["leases"]["file"] == WHERE
    assert from_branch["leases"]["readback"] == {
        "at": "2026-08-27T22:30:00Z",
        "age_minutes": 30,
        "max_age_minutes": 120,
        "stale": False,
    }


def test_changed_leases_are_one_commit_on_top_and_standard_input_works(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    first = live.double.tip(BRANCH)
    monkeypatch.setattr("sys.stdin", io.StringIO("[]\n"))  # `dos lease-lane live` when nothing is held
    status, out, _ = publish(live, "--from", "-", at=READ_AT + dt.timedelta(minutes=5))
    assert status == 0
    assert "0 live leases" in out
    assert live.writes() == [DISPATCH]  # the commit is one GraphQL mutation, beside the read
    assert live.double.kinds() == {"graphql": 2, "rest_read": 0, "rest_write": 1}
    assert [r["path"] for r in live.double.requests if r["write"]] == ["/graphql", DISPATCH.split()[1]]
    head = live.double.tip(BRANCH)
    assert head is not None
    commit = live.double.world.git.commits[head]
    assert commit.parents == (first,)
    assert "The leases changed since the readback at 2026-08-27T22:30:00Z." in commit.message
    assert parse_leases(live.double.files(BRANCH)[FILE], WHERE).live == ()


def test_unchanged_leases_are_published_again_once_the_readback_is_an_hour_old(live: Live, tmp_path: Path) -> None:
    source = str(fleet_journal(tmp_path))
    assert publish(live, "--from", source)[0] == 0
    first = live.double.tip(BRANCH)
    assert publish(live, "--from", source, at=READ_AT + dt.timedelta(minutes=59))[0] == 0
    assert live.double.tip(BRANCH) == first
    status, _, _ = publish(live, "--from", source, at=READ_AT + dt.timedelta(minutes=60))
    assert status == 0
    head = live.double.tip(BRANCH)
    assert head != first
    assert head is not None
    assert (
        "published again so that runs do not take the readback for stale" in live.double.world.git.commits[head].message
    )
    assert parse_leases(live.double.files(BRANCH)[FILE], WHERE).readback_at == READ_AT + dt.timedelta(minutes=60)


def test_a_heartbeat_is_a_change(live: Live, tmp_path: Path) -> None:
    source = fleet_journal(tmp_path)
    assert publish(live, "--from", str(source))[0] == 0
    first = live.double.tip(BRANCH)
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(op("HEARTBEAT", "compute", heartbeat_at="2026-08-27T22:33:00Z")) + "\n")
    assert publish(live, "--from", str(source), at=READ_AT + dt.timedelta(minutes=5))[0] == 0
    assert live.double.tip(BRANCH) != first


def test_a_branch_moved_between_read_and_write_is_left_alone(live: Live, tmp_path: Path) -> None:
    source = fleet_journal(tmp_path)
    assert publish(live, "--from", str(source))[0] == 0
    original = live.double.handle
    pushed: list[str] = []

    def another_publisher_first(request: Any) -> Any:
        if request.path == "/graphql" and COMMIT in request.body and not pushed:
            pushed.append(live.double.push(BRANCH, {FILE: "{}\n"}, message="another publisher"))
        return original(request)

    live.double.handle = another_publisher_first  # type: ignore[method-assign]
    status, _, err = publish(live, "--from", str(nothing_held(tmp_path)), at=READ_AT + dt.timedelta(minutes=5))
    assert status == 1
    assert err.startswith("moving branch perfbot/leases: GitHub refused (Expected branch to point to")
    assert "as the branch changed since perfbot read it; nothing was moved" in err
    assert live.double.tip(BRANCH) == pushed[0]
    assert DISPATCH not in live.writes()


def test_a_branch_deleted_between_read_and_write_is_not_made_again(live: Live, tmp_path: Path) -> None:
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0

    def deleted(world: Any) -> None:
        del world.git.refs[BRANCH]

    live.double.faults.add(Fault(*GRAPHQL, holding=COMMIT, meanwhile=deleted))
    status, _, err = publish(live, "--from", str(nothing_held(tmp_path)), at=READ_AT + dt.timedelta(minutes=5))
    assert status == 1
    assert err.startswith('moving branch perfbot/leases: GitHub refused (A ref named "refs/heads/perfbot/leases"')
    assert "as the branch changed since perfbot read it; nothing was moved" in err
    assert live.double.tip(BRANCH) is None


@pytest.mark.parametrize(
    ("kind", "said", "then"),
    [
        # A token without `contents: write` (GraphQL answers HTTP 200 with a `FORBIDDEN` error).
        ("FORBIDDEN", "Resource not accessible by integration", "; the token needs contents: write"),
        ("UNPROCESSABLE", "Something else went wrong.", ""),
    ],
)
def test_a_commit_refused_for_another_reason_says_so_and_blames_no_race(
    live: Live, tmp_path: Path, kind: str, said: str, then: str
) -> None:
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    first = live.double.tip(BRANCH)
    error = {"type": kind, "path": ["createCommitOnBranch"], "message": said}
    refusal = {"data": {"createCommitOnBranch": None}, "errors": [error]}
    live.double.faults.add(Fault(*GRAPHQL, 200, refusal, holding=COMMIT))
    status, _, err = publish(live, "--from", str(nothing_held(tmp_path)), at=READ_AT + dt.timedelta(minutes=5))
    assert status == 1
    assert err == f"moving branch perfbot/leases: GitHub refused ({said}){then}\n"
    assert live.double.tip(BRANCH) == first


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"data": {"createCommitOnBranch": {"commit": None}}}, "GitHub's answer names no commit"),
        (b"<html><body>Unicorn!</body></html>", "GitHub's answer was not the JSON expected"),
    ],
    ids=["no commit", "not json"],
)
def test_a_commit_whose_answer_is_broken_ends_the_run_and_a_rerun_writes_nothing_twice(
    live: Live, tmp_path: Path, answer: object, said: str
) -> None:
    """The commit landed, but its answer does not say which: the run stops on one line, and the
    next run finds the leases published and writes nothing."""
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    live.double.faults.add(Fault(*GRAPHQL, 200, answer, holding=COMMIT, apply_first=True))
    later = READ_AT + dt.timedelta(minutes=5)
    status, _, err = publish(live, "--from", str(nothing_held(tmp_path)), at=later)
    assert status == 1
    assert err.startswith(f"moving branch perfbot/leases: {said}")
    assert err.count("\n") == 1
    head = live.double.tip(BRANCH)
    assert parse_leases(live.double.files(BRANCH)[FILE], WHERE).live == ()
    status, out, _ = publish(live, "--from", str(nothing_held(tmp_path)), at=later)
    assert (status, live.double.tip(BRANCH)) == (0, head)
    assert "nothing written" in out


def nothing_held(tmp_path: Path) -> Path:
    """`dos lease-lane live` when no lease is held."""
    path = tmp_path / "none.json"
    path.write_text("[]", encoding="utf-8")
    return path


def test_the_config_can_name_the_branch_for_both_commands(live: Live, tmp_path: Path) -> None:
    config = live.sandbox.config
    config.write_text(
        config.read_text(encoding="utf-8").replace("leases: config/leases.json", f"leases: {BRANCH}:fleet/live.json"),
        encoding="utf-8",
    )
    status, _, err = live.run("--dry-run")
    assert status == 1
    assert err == (
        f"{BRANCH}:fleet/live.json: no such file on branch {BRANCH} (nor in the offline state's `branch_files` "
        "or `git`); publish it with `perfbot publish-leases` on the host that runs dos, or pass --leases with a "
        "path\n"
    )
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    assert set(live.double.files(BRANCH)) == {"fleet/live.json"}
    plan = live.plan("--dry-run")
    assert plan["leases"]["file"] == f"{BRANCH}:fleet/live.json"
    assert plan["leases"]["live"] == 2


def test_an_offline_run_reads_what_the_double_published(live: Live, tmp_path: Path, capsys: Any) -> None:
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    expected = live.plan("--leases", WHERE, "--dry-run")
    assert "git" in live.sandbox.state()  # the double keeps its branches in the state file
    offline = live.sandbox.reconcile(capsys, "--now", NOW.isoformat(), "--leases", WHERE, dry_run=True)
    assert offline["packets"] == expected["packets"]
    assert offline["leases"] == expected["leases"]


def test_a_stale_readback_is_a_warning_everywhere_and_its_leases_still_count(live: Live, tmp_path: Path) -> None:
    read_at = NOW - dt.timedelta(hours=3)
    assert publish(live, "--from", str(fleet_journal(tmp_path)), at=read_at)[0] == 0
    summary = tmp_path / "summary.md"
    environ = live_environ(REPO) | {"GITHUB_STEP_SUMMARY": str(summary)}
    status, out, err = live.run("--leases", WHERE, "--dry-run", environ=environ)
    assert status == 0, err
    assert "  read back at 2026-08-27T20:00:00Z, 3 h 0 min before this run\n" in out
    assert "  warning: a stale readback, older than 2 h 0 min (leases_rules.readback_max_age_minutes)" in out
    text = summary.read_text(encoding="utf-8")
    assert "- Age: read back at `2026-08-27T20:00:00Z`, 3 h 0 min before this run.\n" in text
    assert "- **Warning: a stale readback.** It is older than 2 h 0 min" in text
    plan = live.plan("--leases", WHERE, "--dry-run")
    assert plan["leases"]["readback"]["stale"] is True
    body = pull(plan)["body"]
    assert "**Warning: a stale lease readback.** It was read back at `2026-08-27T20:00:00Z`" in body
    local = tmp_path / "published.json"
    local.write_text(live.double.files(BRANCH)[FILE], encoding="utf-8")
    assert states(plan) == states(live.plan("--leases", str(local), "--dry-run"))


def test_a_fresh_readback_warns_nowhere(live: Live, tmp_path: Path) -> None:
    assert publish(live, "--from", str(fleet_journal(tmp_path)))[0] == 0
    summary = tmp_path / "summary.md"
    status, out, _ = live.run(
        "--leases", WHERE, "--dry-run", environ=live_environ(REPO) | {"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert status == 0
    assert "  read back at 2026-08-27T22:30:00Z, 30 min before this run\n" in out
    assert "stale readback" not in out
    text = summary.read_text(encoding="utf-8")
    assert "- Age: read back at `2026-08-27T22:30:00Z`, 30 min before this run.\n" in text
    assert "stale readback" not in text
    assert "stale lease readback" not in pull(live.plan("--leases", WHERE, "--dry-run"))["body"]


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (
            ["--from", "-"],
            "",
            "standard input: empty: expected `dos lease-lane live` output (`[]` when no lease is held) or a dos "
            "lane journal; nothing was published\n",
        ),
        (["--from", "-"], "[{", "standard input:1:3: not a lease array: Expecting property name enclosed"),
        (["--from", "missing.json"], "", "missing.json: file not found\n"),
        (["--from", "-", "--to", "leases.json"], "[]", "--to: 'leases.json': expected BRANCH:PATH, e.g. perfbot"),
        (["--from", "-", "--to", "perfbot/leases:"], "[]", "--to: 'perfbot/leases:': expected BRANCH:PATH, with"),
    ],
    ids=["empty", "torn-array", "missing-file", "to-a-path", "to-no-path"],
)
def test_bad_input_is_one_line_and_writes_nothing(
    live: Live, monkeypatch: pytest.MonkeyPatch, args: list[str], stdin: str, message: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status, _, err = publish(live, *args)
    assert status == 1
    assert err.startswith(message)
    assert len(err.splitlines()) == 1
    assert live.double.kinds()["rest_write"] == 0
    assert live.double.tip(BRANCH) is None


def test_without_a_token_publish_says_so(live: Live, tmp_path: Path) -> None:
    status, _, err = live.run(
        "--from", str(fleet_journal(tmp_path)), command="publish-leases", environ={"GITHUB_REPOSITORY": REPO}
    )
    assert status == 1
    assert err == "GITHUB_TOKEN is not set: a live run needs a token (or use --offline STATE.json)\n"


def test_offline_publish_keeps_the_file_in_the_state(sandbox: Repo, tmp_path: Path, capsys: Any) -> None:
    from bot.cli import main

    source = str(fleet_journal(tmp_path))
    argv = ["publish-leases", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--from", source]
    assert main([*argv, "--now", READ_AT.isoformat()]) == 0
    assert capsys.readouterr().out.startswith(f"published to {WHERE}: perfbot: lease readback at")
    text = sandbox.state()["branch_files"][BRANCH][FILE]
    assert parse_leases(text, WHERE).readback_at == READ_AT
    assert main([*argv, "--now", (READ_AT + dt.timedelta(minutes=1)).isoformat()]) == 0
    assert "nothing written" in capsys.readouterr().out
    plan = sandbox.reconcile(capsys, "--now", NOW.isoformat(), "--leases", WHERE, dry_run=True)
    assert plan["leases"]["format"] == "published"
    assert plan["leases"]["live"] == 2


def test_the_double_serves_the_states_branch_files_and_keeps_them_current(
    sandbox: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.evidence.leases import published_text

    exported = published_text(parse_leases("[]", "live.json"), READ_AT)
    sandbox.edit_state(branch_files={BRANCH: {FILE: exported}})
    live = Live(sandbox, capsys)
    assert live.double.files(BRANCH) == {FILE: exported}
    assert live.plan("--leases", WHERE, "--dry-run")["leases"]["live"] == 0
    assert publish(live, "--from", str(fleet_journal(tmp_path)), at=READ_AT + dt.timedelta(minutes=1))[0] == 0
    published = sandbox.state()["branch_files"][BRANCH][FILE]
    assert published == live.double.files(BRANCH)[FILE] != exported
    offline = sandbox.reconcile(capsys, "--now", NOW.isoformat(), "--leases", WHERE, dry_run=True)
    assert offline["leases"]["live"] == 2


def test_a_published_change_sends_one_dispatch_and_a_rerun_none(live: Live, tmp_path: Path) -> None:
    """Each commit of changed leases starts a run (`repository_dispatch` `perfbot-leases`), once,
    after the commit; a rerun with the same leases, and the hourly refresh, send none."""
    source = fleet_journal(tmp_path)
    status, out, err = publish(live, "--from", str(source))
    assert status == 0, err
    assert "sent repository_dispatch perfbot-leases" in out
    assert live.writes()[-1] == DISPATCH
    assert live.writes().count(DISPATCH) == 1
    (sent,) = live.sandbox.state()["dispatches"]
    assert sent["event_type"] == "perfbot-leases"
    assert sent["client_payload"]["leases"] == WHERE
    for minutes in (5, 61):  # the same leases, then the refresh of the same leases
        status, out, err = publish(live, "--from", str(source), at=READ_AT + dt.timedelta(minutes=minutes))
        assert status == 0, err
        assert DISPATCH not in live.writes()
        assert "repository_dispatch" not in out
    changed = tmp_path / "changed.jsonl"
    changed.write_text(source.read_text(encoding="utf-8") + journal(op("RELEASE", "compute")), encoding="utf-8")
    assert publish(live, "--from", str(changed), at=READ_AT + dt.timedelta(minutes=62))[0] == 0
    assert live.writes().count(DISPATCH) == 1
    assert len(live.sandbox.state()["dispatches"]) == 2
