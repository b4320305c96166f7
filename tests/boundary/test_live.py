"""The live adapter against the GitHub double: what it reads and writes, in how many requests, and
how it fails (issue #8: reads, writes, retries, the tip, accounting, export-state, faults)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from typing import Any

import pytest

from bot.cli import main
from tests.support.backends import NOW, FakeClock, cli_over, double_on, live_environ
from tests.support.harness import Repo, comments, pull
from tests.support.paths import ROOT

REPO = "anthony-chaudhary/fak"
COMPLETE = "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"
CLAIM = "/perf claim profile.real-cuda"


def with_commands(sandbox: Repo, *entries: tuple[int, int, str, str]) -> None:
    state = sandbox.state()
    state["permissions"] = {"alice": "write", "anthony-chaudhary": "admin"}
    state["comments"] += [  # after perfbot's records of its links, which the example state holds
        {"id": cid, "issue": issue, "user": user, "created_at": f"2026-08-27T10:0{cid % 10}:00Z", "body": body}
        for cid, issue, user, body in entries
    ]
    sandbox.write_state(state)


class Live:
    """`perfbot` runs over a GitHub double started on the sandbox's state file."""

    def __init__(self, sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
        self.sandbox, self.capsys = sandbox, capsys
        self.clock = FakeClock()
        self.double = double_on(sandbox.state_path, sandbox.root)

    def run(
        self, *args: str, environ: dict[str, str] | None = None, command: str = "reconcile"
    ) -> tuple[int, str, str]:
        self.double.requests.clear()
        argv = [command, "--config", str(self.sandbox.config), *args]
        if command == "reconcile":
            argv += ["--now", NOW.isoformat()]
        with cli_over(self.double, self.clock):
            status = main(argv, environ=live_environ(REPO) if environ is None else environ)
        out, err = self.capsys.readouterr()
        return status, out, err

    def plan(self, *args: str) -> dict[str, Any]:
        status, out, err = self.run("--json", *args)
        assert status == 0, err
        plan: dict[str, Any] = json.loads(out)
        return plan

    def writes(self) -> list[str]:
        return [f"{r['method']} {r['path']}" for r in self.double.requests if r["kind"] == "rest_write"]


@pytest.fixture
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Live:
    return Live(sandbox, capsys)


def wall_clock() -> dt.datetime:
    """The real time: githubkit turns `x-ratelimit-reset` into a wait against it."""
    return dt.datetime.now(dt.UTC)


def bot_comments(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in state["comments"] if c["user"] == state["bot_login"]]


# --- done when: the first run writes what the offline run writes; the second makes <= 2 requests


def test_the_first_live_run_writes_the_same_actions_as_the_offline_run(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    with_commands(sandbox, (101, 8325, "alice", COMPLETE), (102, 9497, "alice", CLAIM))
    offline = sandbox.root / "offline.json"
    offline.write_text(sandbox.state_path.read_text(encoding="utf-8"), encoding="utf-8")
    expected = sandbox.reconcile(capsys, "--now", NOW.isoformat(), "--offline", str(offline))
    sandbox.adapter = "live"
    got = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert got["actions"] == expected["actions"]
    # No reply: both commands were accepted, and each comment gets 🚀 alone; ready nudges, labels
    # and links (and so their records) wait for the PR's merge.
    assert comments(got) == []
    reactions = [(a["comment_id"], a["content"]) for a in got["actions"] if a["kind"] == "react"]
    assert reactions == [(101, "rocket"), (102, "rocket")]
    after_offline, after_live = json.loads(offline.read_text(encoding="utf-8")), sandbox.state()
    for key in ("issues", "comments", "reactions", "pulls"):
        assert after_live[key] == after_offline[key], key


def test_a_second_run_makes_one_request_and_no_write(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    first = live.plan()
    # rocket; tree, commit, PR (ready nudges, labels and links wait for its merge)
    assert first["api"]["rest_write"] == 4
    # the read (nothing is commented, so no markers are re-read) and the branch made (`updateRefs`)
    assert first["api"]["graphql"] == 2
    second = live.plan()
    # the read, and alice's permission: her change is replayed until it merges, while she may make it
    assert second["api"] == {"graphql": 1, "rest_read": 1, "rest_write": 0, "graphql_points": 1}
    assert live.double.kinds() | {"graphql_points": 1} == second["api"]  # counted as the server saw them
    assert pull(second)["operation"] == "none"
    assert comments(second) == []


def test_the_printed_plan_shows_the_requests(live: Live) -> None:
    status, out, _ = live.run()
    assert status == 0
    assert "GitHub requests: 1 GraphQL (1 point), 0 REST reads, 0 REST writes\n" in out


# --- reads


def test_collaborator_permission_is_asked_once_per_author_of_unanswered_commands(live: Live) -> None:
    with_commands(
        live.sandbox,
        (101, 8325, "alice", COMPLETE),
        (102, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04"),
        (103, 8324, "bob", "just a remark, no command"),
        (104, 9497, "mallory", CLAIM),
    )
    plan = live.plan()
    asked = [r["path"] for r in live.double.requests if "/collaborators/" in r["path"]]
    assert sorted(asked) == [f"/repos/{REPO}/collaborators/{who}/permission" for who in ("alice", "mallory")]
    decisions = {c["comment_id"]: c["decision"] for c in plan["commands"]}
    assert decisions == {101: "accepted", 102: "accepted", 104: "refused"}  # mallory has none: fails closed
    again = live.plan()
    # every command is answered now: only the author of changes still pending is asked (again)
    asked = [r["path"] for r in live.double.requests if "/collaborators/" in r["path"]]
    assert asked == [f"/repos/{REPO}/collaborators/alice/permission"]
    assert again["api"]["rest_read"] == 1


def test_an_issue_with_more_than_100_comments_is_read_to_the_end(live: Live) -> None:
    chatter = [(1000 + n, 8325, "bob", f"remark {n}") for n in range(230)]
    with_commands(live.sandbox, *chatter, (5000, 8325, "alice", COMPLETE))
    plan = live.plan()
    # the first query, two more pages of #8325's comments (no comment is written: no re-read), and
    # the branch made (`updateRefs`)
    assert plan["api"]["graphql"] == 4
    assert [c["comment_id"] for c in plan["commands"]] == [5000]


def test_a_missing_issue_is_a_clear_error_naming_it(live: Live) -> None:
    state = live.sandbox.state()
    state["issues"] = [i for i in state["issues"] if i["number"] != 9430]
    state["comments"] = [c for c in state["comments"] if c["issue"] != 9430]
    live.sandbox.write_state(state)
    status, _, err = live.run()
    assert status == 1
    assert (
        err
        == f"issue #9430, named by the snapshot, is not an issue of {REPO} (missing, transferred, or a pull request)\n"
    )
    assert live.writes() == []


def test_graphql_partial_errors_stop_the_run_before_any_write(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.graphql_partial(
        ("repository", "pullRequests"), "FORBIDDEN", "Resource not accessible by integration"
    )
    status, _, err = live.run()
    assert status == 1
    assert (
        err
        == "reading the repository: GitHub answered with errors: FORBIDDEN: Resource not accessible by integration\n"
    )
    assert live.writes() == []


def test_the_bot_login_comes_from_the_token_unless_the_config_pins_it(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply whose markers count only under the bot's own login
    live.double.tokens = {"app-token": "perfbot-app[bot]"}
    app = {**live_environ(REPO), "GITHUB_TOKEN": "app-token"}
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    status, _, err = live.run(environ=app)
    assert status == 0, err
    assert {c["user"] for c in bot_comments({**live.sandbox.state(), "bot_login": "perfbot-app[bot]"})} == {
        "perfbot-app[bot]"
    }
    status, out, _ = live.run("--json", "--dry-run", environ=app)
    assert comments(json.loads(out)) == []  # its own reply, recognised through the token's login
    config = live.sandbox.config.read_text(encoding="utf-8")
    live.sandbox.config.write_text(config + "bot_login: someone-else[bot]\n", encoding="utf-8")
    status, out, _ = live.run("--json", "--dry-run", environ=app)
    # Under the pinned login, the token's earlier comments are someone else's: the records of links
    # are said again (the ready nudges are not due yet: the PR is not merged). Its reactions are
    # the token's own (GitHub tells a token which reactions it made), so the 🚀 still marks the
    # command answered: it is replayed from its unedited text, not answered twice.
    plan = json.loads(out)
    assert [c["topic"] for c in comments(plan)] == ["native-links"] * 3
    assert [(c["comment_id"], c["decision"]) for c in plan["commands"]] == [(101, "replayed")]


# --- faults (item 10)

COMMENTS = rf"/repos/{REPO}/issues/\d+/comments"


def test_a_comment_whose_answer_was_lost_is_posted_once_after_the_rerun(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply to fault
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.lost_response("POST", COMMENTS)  # GitHub applied it, then answered 502
    status, _, err = live.run()
    assert status == 1
    assert "commenting on #8325: GitHub's answer was lost (502" in err
    assert "this run makes no further writes" in err
    assert "Traceback" not in err
    assert live.writes() == [
        f"POST /repos/{REPO}/issues/comments/101/reactions",
        f"POST /repos/{REPO}/issues/8325/comments",
    ]
    assert "applied 1 actions; 2 deferred to the next run" in err  # the run plans 4 actions; 2 were tried
    assert live.run()[0] == 0
    replies = [c for c in bot_comments(live.sandbox.state()) if "perfbot:command-reply" in c["body"]]
    assert len(replies) == 1
    assert live.run("--dry-run")[1].count("comment on #") == 0


def test_a_timed_out_comment_is_not_sent_twice(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply to fault
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.timeout("POST", COMMENTS, apply=True)
    status, _, err = live.run()
    assert status == 1
    assert "GitHub's answer was lost (timed out)" in err
    assert sum(1 for w in live.writes() if w.endswith("/comments")) == 1
    assert live.run()[0] == 0
    assert len([c for c in bot_comments(live.sandbox.state()) if "command-reply" in c["body"]]) == 1


def test_reads_are_retried_on_server_errors_with_backoff(live: Live) -> None:
    live.double.faults.answer("POST", "/graphql", 502)
    live.double.faults.answer("POST", "/graphql", 503)
    status, _, err = live.run()
    assert status == 0, err
    assert [r["status"] for r in live.double.requests] == [502, 503, 200]
    assert live.clock.waits == [1.0, 4.0]


def test_reads_give_up_after_three_tries(live: Live) -> None:
    for _ in range(3):
        live.double.faults.answer("POST", "/graphql", 502)
    status, _, err = live.run()
    assert status == 1
    assert err.startswith("reading the repository: GitHub failed (502")
    assert "after 3 tries; run perfbot again later" in err


def test_a_secondary_rate_limit_is_waited_out_and_the_write_repeated(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply to fault
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.secondary_rate_limit("POST", COMMENTS, retry_after=30)
    status, _, err = live.run()
    assert status == 0, err
    assert 30.0 in live.clock.waits
    assert len([c for c in bot_comments(live.sandbox.state()) if "command-reply" in c["body"]]) == 1


def test_writes_are_at_least_a_second_apart(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    assert len(live.clock.waits) == 4  # 5 writes (as above), each waiting for the one before
    assert all(w == pytest.approx(1.0) for w in live.clock.waits)


def test_an_exhausted_primary_limit_stops_cleanly_and_says_when_to_retry(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply to fault
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double = double_on(live.sandbox.state_path, live.sandbox.root, wall_clock())  # githubkit reads the wall clock
    live.double.faults.primary_rate_limit("POST", COMMENTS, reset_in=3000)
    status, _, err = live.run()
    assert status == 1
    assert "commenting on #8325: GitHub's rate limit is exhausted; run perfbot again after" in err
    assert "(in about 50 min)" in err
    assert max(live.clock.waits) == pytest.approx(1.0)  # write spacing only: no sleep toward the reset
    assert live.writes() == [
        f"POST /repos/{REPO}/issues/comments/101/reactions",
        f"POST /repos/{REPO}/issues/8325/comments",
    ]


def test_an_exhausted_graphql_limit_stops_before_anything_is_written(live: Live) -> None:
    live.double = double_on(live.sandbox.state_path, live.sandbox.root, wall_clock())
    live.double.faults.graphql_rate_limited(reset_in=3600)
    status, _, err = live.run()
    assert status == 1
    assert "reading the repository: GitHub's rate limit is exhausted; run perfbot again after" in err
    assert live.writes() == []


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"GITHUB_TOKEN": "wrong"},
            "reading the repository: GitHub refused the token (401 Bad credentials); set GITHUB_TOKEN to a valid token\n",
        ),
        (
            {"GITHUB_REPOSITORY": "someone/else"},
            "repository someone/else not found, or the token cannot see it; check GITHUB_REPOSITORY or --repo\n",
        ),
        ({"GITHUB_REPOSITORY": ""}, "no repository: set GITHUB_REPOSITORY or pass --repo OWNER/NAME\n"),
        ({"GITHUB_TOKEN": ""}, "GITHUB_TOKEN is not set: a live run needs a token (or use --offline STATE.json)\n"),
    ],
)
def test_a_bad_token_or_repository_is_one_clear_line(live: Live, environ: dict[str, str], message: str) -> None:
    status, out, err = live.run(environ={**live_environ(REPO), **environ})
    assert (status, out, err) == (1, "", message)


def test_missing_permissions_are_one_clear_line(live: Live) -> None:
    live.sandbox.reply_to_all()  # a reply to fault
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    body = {"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com"}
    live.double.faults.answer("POST", rf"/repos/{REPO}/issues/comments/\d+/reactions", 403, body)
    status, _, err = live.run()
    assert status == 1
    assert err.splitlines()[-1] == (
        "reacting eyes to comment 101: GitHub refused (403 Resource not accessible by integration); "
        "the token needs issues: write, pull-requests: write and contents: write"
    )


def test_the_repo_flag_names_the_repository(live: Live) -> None:
    status, _, err = live.run("--repo", REPO, environ={**live_environ(REPO), "GITHUB_REPOSITORY": ""})
    assert status == 0, err
    assert (
        live.run("--repo", "not-a-repo", environ=live_environ(REPO))[2] == "--repo 'not-a-repo': expected OWNER/NAME\n"
    )


def test_only_a_live_run_imports_githubkit(sandbox: Repo) -> None:
    script = (
        "import sys; from bot.cli import main; "
        f"main(['validate', '--config', {str(sandbox.config)!r}]); "
        f"main(['reconcile', '--config', {str(sandbox.config)!r}, '--offline', {str(sandbox.state_path)!r}, '--dry-run']); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'githubkit', 'httpx'}))"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert found.stdout.splitlines()[-1] == "[]"


def test_ghes_api_urls_reach_graphql_at_api_graphql(live: Live) -> None:
    status, _, err = live.run(environ={**live_environ(REPO), "GITHUB_API_URL": "https://ghe.example/api/v3"})
    assert status == 0, err
    assert [r["path"] for r in live.double.requests] == ["/api/graphql"]
