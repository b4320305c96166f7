"""The live adapter against GitHub's last documented edges (issue #40): GraphQL's secondary limit
answered with 200, bodies over GitHub's limit, the PR branch moved atomically, the sub-issue cap,
labels read by name past one page, the dashboard found by its marker, comments not read again
until edited, and nudges under lists that lag by any number of reads.

Each runs `perfbot` through the CLI against the GitHub double, over its in-process transport and
over loopback HTTP, every exchange held to GitHub's OpenAPI description and GraphQL schema.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.cli import main
from bot.commands import selection
from tests.boundary.test_live_github_as_it_is import COMPLETE, REPO, Run, with_comments
from tests.github_double import DEFAULT_TOKEN, branches
from tests.support.backends import API_URL, double_on, wired
from tests.support.harness import Repo, pull


@pytest.fixture(params=["transport", "server"])
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> Run:
    return Run(sandbox, capsys, request.param)


def replies(run: Run) -> list[str]:
    return [c["body"] for c in run.state()["comments"] if "command-reply" in c["body"]]


# --- GraphQL's secondary limit answered with 200


@pytest.mark.parametrize(("retry_after", "wait"), [(45, 45.0), (None, 60.0)])
def test_a_graphql_secondary_limit_answered_with_200_is_waited_out(
    live: Run, retry_after: int | None, wait: float
) -> None:
    live.sandbox.reply_to_all()
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.graphql_secondary_rate_limit(retry_after=retry_after)
    code, _, err = live.run()
    assert code == 0, err
    assert wait in live.clock.waits
    assert [r["status"] for r in live.double.requests if r["path"] == "/graphql"][:2] == [200, 200]
    assert len(replies(live)) == 1


def test_graphql_secondary_limits_past_the_runs_budget_stop_the_run_as_a_limit(live: Run) -> None:
    for _ in range(3):
        live.double.faults.graphql_secondary_rate_limit(retry_after=300)
    code, _, err = live.run()
    assert code == 1
    assert err.startswith("reading the repository: GitHub's secondary rate limit (too many requests in a short time)")
    assert "run perfbot again after" in err
    assert "answered with errors" not in err
    assert [w for w in live.clock.waits if w >= 60] == [300.0, 300.0]
    assert [r for r in live.double.requests if r["method"] != "POST" or r["path"] != "/graphql"] == []


# --- the PR branch moved in one compare-and-swap (`updateRefs` with the oid the run read)

BRANCH = "perfbot/update"
REVIEW_LATER = "/perf review metal-resident-decode by 2026-09-04"


def pushed_meanwhile(run: Run, files: dict[str, str]) -> list[str]:
    """A person's commit on the PR branch, landing just before perfbot's move of it."""
    pushed: list[str] = []

    def push(world: Any) -> None:
        pushed.append(branches.push(world, BRANCH, files, branches.PERSON, "Mine"))

    run.double.faults.meanwhile("POST", "/graphql", push, holding=b"updateRefs")
    return pushed


def test_a_push_just_before_the_branch_moves_is_kept_and_the_run_says_the_branch_moved(live: Run) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    before = live.double.tip(BRANCH)
    assert before is not None
    live.sandbox.add_comment(900, 8324, "alice", REVIEW_LATER, at="2026-08-27T11:00:00Z")
    pushed = pushed_meanwhile(live, {"notes.md": "mine\n"})
    code, _, err = live.run()
    assert code == 1
    assert (
        f"branch {BRANCH} moved from {before[:12]} to {pushed[0][:12]} while perfbot ran; nothing was moved, "
        "and the next run starts over from there\n"
    ) in err
    assert live.double.tip(BRANCH) == pushed[0]
    assert live.double.files(BRANCH)["notes.md"] == "mine\n"
    # The next run finds a commit perfbot did not make, and leaves it.
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    assert pull(plan)["note"].startswith("the branch carries commits perfbot did not make")
    assert live.double.tip(BRANCH) == pushed[0]


def test_a_branch_made_by_a_person_just_before_perfbot_makes_it_is_kept(live: Run) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    pushed = pushed_meanwhile(live, {"notes.md": "theirs\n"})
    code, _, err = live.run()
    assert code == 1
    assert f"branch {BRANCH} moved from nothing to {pushed[0][:12]} while perfbot ran; nothing was moved" in err
    assert live.double.tip(BRANCH) == pushed[0]
    assert not [p for p in live.state()["pulls"] if p["head"] == BRANCH]


def test_the_branch_move_is_one_graphql_mutation_naming_the_oid_read(live: Run) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    assert not [r for r in live.double.requests if "/git/refs" in r["path"]]
    first = live.double.tip(BRANCH)
    live.sandbox.add_comment(900, 8324, "alice", REVIEW_LATER, at="2026-08-27T11:00:00Z")
    code, _, err = live.run()
    assert code == 0, err
    after = live.double.tip(BRANCH)
    assert after != first
    assert after is not None
    assert live.double.world.git.commits[after].parents == (live.double.tip(),)
    assert not [r for r in live.double.requests if "/git/refs" in r["path"]]


# --- bodies within GitHub's 65,536 characters


def test_a_body_limit_over_githubs_is_refused_where_the_config_says_it(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    text = sandbox.config.read_text(encoding="utf-8")
    sandbox.config.write_text(text.replace("  max_body_chars: 60000\n", "  max_body_chars: 65537\n"), encoding="utf-8")
    line = next(n for n, ln in enumerate(text.splitlines(), start=1) if "max_body_chars:" in ln)
    assert main(["validate", "--config", str(sandbox.config)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{sandbox.config}:{line}:3: commands.max_body_chars: ")
    assert "65536" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("size", [65536, 65537])
def test_the_double_refuses_a_pr_body_over_githubs_limit_as_github_does(live: Run, size: int) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (record,) = [p for p in live.state()["pulls"] if p["head"] == BRANCH]
    with httpx.Client(transport=live.double.transport(), base_url=API_URL) as client:
        answer = client.patch(
            f"/repos/{REPO}/pulls/{record['number']}",
            json={"body": "x" * size},
            headers={"authorization": f"token {DEFAULT_TOKEN}"},
        )
    if size <= 65536:
        assert answer.status_code == 200
    else:
        assert answer.status_code == 422
        assert answer.json()["errors"][0]["message"] == "body is too long (maximum is 65536 characters)"


# --- state labels read by name, whatever else the repository's labels hold


def test_state_labels_past_a_hundred_labels_matching_the_prefix_are_found_by_name(live: Run) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    state = live.state()
    ours = state["labels"]
    assert ours, "the first run made the state labels"
    decoys = [{"name": f"triage-{n}", "color": "ededed", "description": "not a perf/ state"} for n in range(150)]
    same_prefix = [{"name": f"perf/other-{n}", "color": "ededed", "description": ""} for n in range(30)]
    state["labels"] = decoys + same_prefix + ours
    live.sandbox.write_state(state)
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    assert [a for a in plan["actions"] if a["kind"] == "create_label"] == []
    assert not [r for r in live.double.requests if r["method"] == "POST" and r["path"].endswith("/labels")]


# --- the dashboard found by its marker, whatever else carries its label

DASHBOARD_LABEL = "perfbot-dashboard"


def with_dashboard(run: Run) -> None:
    text = run.sandbox.config.read_text(encoding="utf-8")
    run.sandbox.config.write_text(text.replace("dashboard:\n  enabled: false", "dashboard:\n  enabled: true"))


def test_the_dashboard_is_found_past_many_older_issues_carrying_its_label(live: Run) -> None:
    with_dashboard(live)
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    assert plan["dashboard"]["status"] == "created"
    state = live.state()
    (board,) = [i for i in state["issues"] if DASHBOARD_LABEL in i.get("labels", [])]
    older = [
        {"number": n, "title": f"triaged {n}", "labels": [DASHBOARD_LABEL], "user": "mallory", "body": "x" * 100}
        for n in range(1, 46)
    ]
    assert all(n["number"] < board["number"] for n in older)
    state["issues"] += older
    live.sandbox.write_state(state)
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    assert plan["dashboard"] == {"status": "unchanged", "issue": board["number"], "chars": len(board["body"])}
    boards = [
        i for i in live.state()["issues"] if DASHBOARD_LABEL in i.get("labels", []) and i.get("user") != "mallory"
    ]
    assert [b["number"] for b in boards] == [board["number"]]


# --- GitHub's 100 sub-issues per parent


def test_an_umbrella_holding_githubs_100_sub_issues_is_one_note_not_a_422_per_packet(live: Run) -> None:
    state = live.state()
    umbrella = 9430
    packets = [i["number"] for i in state["issues"] if i.get("parent") == umbrella]
    assert packets, "the example's packet issues are the umbrella's sub-issues"
    for issue in state["issues"]:
        if issue.get("parent") == umbrella:
            del issue["parent"]  # taken off, so perfbot wants to put them back
    state["issues"] += [{"number": n, "title": f"task {n}", "parent": umbrella} for n in range(100, 200)]
    live.sandbox.write_state(state)
    for _ in range(2):  # the next run is the same: no write refused, the same one note
        code, plan, err = live.run()
        assert code == 0, err
        assert plan is not None
        notes = [n for n in plan["native_notes"] if n["kind"] == "sub-issue-cap"]
        assert [(n["issue"], n["other"]) for n in notes] == [(umbrella, len(packets))]
        assert [r for r in live.double.requests if r["status"] == 422] == []
        children = [i["number"] for i in live.state()["issues"] if i.get("parent") == umbrella]
        assert len(children) == 100


# --- lists cut item by item, never blanked by one oversized item


def test_one_running_packet_with_200_long_leases_leaves_the_ready_list_whole(live: Run) -> None:
    with_dashboard(live)
    leases = live.sandbox.root / "config" / "leases.json"
    (held, *_) = json.loads(leases.read_text(encoding="utf-8"))
    many = [held | {"lane": f"l{n:03}-" + "x" * 485} for n in range(200)]
    leases.write_text(json.dumps(many), encoding="utf-8")
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    (board,) = [i for i in live.state()["issues"] if DASHBOARD_LABEL in i.get("labels", [])]
    body = board["body"]
    assert 50_000 < len(body) <= 60_000
    ready = int(body.split("**", 2)[1].removesuffix(" ready"))
    assert ready > 0
    assert "Nothing is ready" not in body
    assert "more ready packet" not in body
    assert body.count("· claim: `/perf claim ") == ready
    assert "`l000-" in body  # the running packet is shown, with the lanes that fit
    shown = len(re.findall(r"`l\d{3}-x", body))
    assert 0 < shown < 200
    assert f"and {200 - shown} more leases of `{held['holder']}`" in body
    assert plan["dashboard"]["status"] == "created"


# --- a comment read once and found to hold no command is not read again until its text changes

FENCED = "Pasted from the runbook:\n\n```\n/perf claim profile.real-cuda\n```\n\n" + "a long log line\n" * 400


def counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The body of every comment the command reader reads, in order."""
    read: list[str] = []
    original = selection._parse

    def counted(body: str, limits: Any) -> Any:
        read.append(body)
        return original(body, limits)

    monkeypatch.setattr(selection, "_parse", counted)
    return read


def test_a_comment_found_to_hold_no_command_is_not_read_again_until_its_text_changes(
    live: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bodies = [f"{FENCED}#{n}\n" for n in range(12)]
    with_comments(live.sandbox, *((200 + n, 8325, "bob", body) for n, body in enumerate(bodies)))
    read = counting_reads(monkeypatch)
    cache_file = tmp_path / "observed.json"
    code, _, err = live.run("--cache", str(cache_file))
    assert code == 0, err
    assert set(bodies) <= set(read)
    kept = cache_file.read_text(encoding="utf-8")
    remembered = json.loads(kept)["issues"]["8325"]["commandless"]
    assert set(range(200, 212)) <= {int(n) for n in remembered}
    assert "a long log line" not in kept  # remembered by a fingerprint, not by their text
    read.clear()
    code, _, err = live.run("--cache", str(cache_file))
    assert code == 0, err
    assert not set(bodies) & set(read)
    # A comment whose text changed is read again; the others are still not.
    state = live.state()
    changed = bodies[3].replace("a long log line", "a longer log line", 1)
    next(c for c in state["comments"] if c["id"] == 203)["body"] = changed
    live.sandbox.write_state(state)
    read.clear()
    code, _, err = live.run("--cache", str(cache_file))
    assert code == 0, err
    assert changed in read
    assert not set(bodies) & set(read)


def test_without_a_cache_every_comment_is_read_on_every_run(live: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    with_comments(live.sandbox, (200, 8325, "bob", FENCED))
    read = counting_reads(monkeypatch)
    for _ in range(2):
        read.clear()
        code, _, err = live.run()
        assert code == 0, err
        assert FENCED in read


# --- no comment twice under lists that lag by any number of reads

LATER = "2026-09-05T12:00:00+00:00"  # past several constraints' review dates: review-overdue nudges


def run_at(run: Run, moment: str, *args: str) -> dict[str, Any]:
    """`perfbot reconcile` at `moment` over the run's double (as `Run.run`, at another time)."""
    argv = ["reconcile", "--config", str(run.sandbox.config), *args, "--json", "--now", moment]
    with wired(run.double, run.clock, run.through, REPO) as environ:
        status = main(argv, environ=environ)
    out, err = run.capsys.readouterr()
    assert status == 0, err
    plan: dict[str, Any] = json.loads(out)
    return plan


def bot_comments(run: Run) -> list[tuple[int, str]]:
    state = run.state()
    return sorted((c["issue"], c["body"]) for c in state["comments"] if c["user"] == state["bot_login"])


@pytest.mark.parametrize("lag", [2, 5, 50])
def test_runs_in_turn_over_lists_lagging_many_reads_post_each_comment_once(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path, lag: int
) -> None:
    """Runs in turn, each with the observation cache the last one left, over comment lists that lag
    `lag` reads post exactly the comments runs over lists that do not lag post: the replies, and
    the review-overdue nudges GitHub's lists would hide from the next run."""
    sandbox.reply_to_all()
    with_comments(sandbox, (101, 8325, "alice", COMPLETE), (102, 9497, "alice", "/perf claim profile.real-cuda"))
    initial = sandbox.state_path.read_text(encoding="utf-8")
    posted = {}
    for lagging in (0, lag):
        sandbox.state_path.write_text(initial, encoding="utf-8")
        cache_file = tmp_path / f"observed-{lagging}.json"
        runs = Run(sandbox, capsys, "transport")
        runs.double = double_on(sandbox.state_path, sandbox.root, dt.datetime.fromisoformat(LATER))
        runs.double.lag(comments=lagging)
        for _ in range(3):
            run_at(runs, LATER, "--cache", str(cache_file))
        posted[lagging] = bot_comments(runs)
    assert posted[lag] == posted[0]
    assert [body for _, body in posted[lag] if "perfbot:review-overdue" in body]
    assert len([body for _, body in posted[lag] if "perfbot:command-reply" in body]) == 2
    read_by_id = [r for r in runs.double.requests if r["method"] == "GET" and "/issues/comments/" in r["path"]]
    assert read_by_id  # each still missing from its list was read by its id


def test_one_packet_with_a_huge_name_is_cut_in_a_nudge_and_the_others_still_listed(live: Run) -> None:
    snapshot = live.sandbox.root / "config" / "snapshot.yaml"
    text = snapshot.read_text(encoding="utf-8")
    assert "name: M5 quality-clean exact P32/T64 receipt" in text
    snapshot.write_text(text.replace("name: M5 quality-clean", "name: M5 " + "very " * 14_000), encoding="utf-8")
    state = live.state()
    next(i for i in state["issues"] if i["number"] == 9430)["state"] = "closed"
    live.sandbox.write_state(state)
    code, plan, err = live.run()
    assert code == 0, err
    assert plan is not None
    (nudge,) = [c for c in live.state()["comments"] if c["issue"] == 9430 and "was closed, but" in c["body"]]
    body = nudge["body"]
    assert len(body) <= 60_000  # the config's max_body_chars
    assert "`mac.m5-exact-p32t64-receipt` (M5 very very" in body
    assert "`mac.m10-parity-reconvergence` (M10 matched parity reconvergence)" in body  # not left out
    assert "… and" not in body
