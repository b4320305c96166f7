"""The live adapter against GitHub as it really behaves (issue #23): forks' PRs on perfbot's branch
name, lists that lag behind writes, GitHub's real 422 for a second PR, secondary rate limits that
name no wait, case-insensitive labels, links past one page, a deleted author, the action's outputs.

Each runs `perfbot` through the CLI against the GitHub double, over its in-process transport and,
where the wire matters, over loopback HTTP.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.cli import main
from tests.github_double import GitHubDouble
from tests.support.backends import NOW, FakeClock, double_on, wired
from tests.support.harness import Repo, pull

REPO = "anthony-chaudhary/fak"
BRANCH = "perfbot/update"
COMPLETE = "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"
CLAIM = "/perf claim profile.real-cuda"
REVIEW = "/perf review metal-resident-decode by 2026-09-04"
COMMENTS = rf"/repos/{REPO}/issues/\d+/comments"
PERMISSIONS = "the token needs"


class Run:
    """`perfbot` over one GitHub double kept across runs, reached `through` the in-process
    transport or loopback HTTP; a fake clock records every wait."""

    def __init__(self, sandbox: Repo, capsys: pytest.CaptureFixture[str], through: str) -> None:
        self.sandbox, self.capsys, self.through = sandbox, capsys, through
        self.clock = FakeClock()
        self.double = double_on(sandbox.state_path, sandbox.root)

    def run(
        self, *args: str, outputs: Path | None = None, command: str = "reconcile"
    ) -> tuple[int, dict[str, Any] | None, str]:
        """Exit status, the plan JSON (None when the command printed none) and stderr."""
        argv = [command, "--config", str(self.sandbox.config), *args]
        if command == "reconcile":
            argv += ["--json", "--now", NOW.isoformat()]
        if outputs is not None:
            argv += ["--outputs", str(outputs)]
        with wired(self.double, self.clock, self.through, REPO) as environ:
            status = main(argv, environ=environ)
        out, err = self.capsys.readouterr()
        return status, (json.loads(out) if command == "reconcile" and out.strip() else None), err

    def state(self) -> dict[str, Any]:
        return self.sandbox.state()


@pytest.fixture(params=["transport", "server"])
def through(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str], through: str) -> Run:
    return Run(sandbox, capsys, through)


@pytest.fixture
def inproc(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Run:
    return Run(sandbox, capsys, "transport")


def with_comments(sandbox: Repo, *entries: tuple[int, int, str, str], **extra: Any) -> None:
    state = sandbox.state()
    state["permissions"] = {"alice": "write", "anthony-chaudhary": "admin"}
    state["comments"] += [
        {"id": cid, "issue": issue, "user": user, "created_at": f"2026-08-27T10:0{cid % 10}:00Z", "body": body}
        for cid, issue, user, body in entries
    ]
    state.update(extra)
    sandbox.write_state(state)


def our_open_pulls(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        p
        for p in state["pulls"]
        if p["head"] == BRANCH and p.get("state", "open") == "open" and p.get("head_repository") is None
    ]


def outputs_of(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


# --- 1. a fork's PR with perfbot's branch name


FORK_PULL = {"number": 77, "head": BRANCH, "head_repository": "mallory/fak", "title": "Not perfbot's", "state": "open"}


def test_a_forks_pr_on_perfbots_branch_name_does_not_stop_the_regeneration_pr(live: Run) -> None:
    state = live.state()
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE), pulls=[*state.get("pulls", []), FORK_PULL])
    status, plan, err = live.run()
    assert status == 0, err
    assert plan is not None
    assert (pull(plan)["operation"], pull(plan)["forks"]) == ("create", [77])
    after = live.state()
    (ours,) = our_open_pulls(after)
    assert ours["number"] != 77
    assert "complete" in ours["files"]["config/snapshot.yaml"].split("mac.m1-streamed-q4k-no-copy")[1][:600]
    fork = next(p for p in after["pulls"] if p["number"] == 77)
    assert (fork["title"], fork.get("files")) == ("Not perfbot's", None)  # left exactly as it was


def test_the_offline_adapter_leaves_a_forks_pr_alone_too(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    with_comments(sandbox, (101, 8325, "alice", COMPLETE), pulls=[FORK_PULL])
    plan = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert (pull(plan)["operation"], pull(plan)["forks"]) == ("create", [77])
    assert len(our_open_pulls(sandbox.state())) == 1
    assert next(p for p in sandbox.state()["pulls"] if p["number"] == 77).get("files") is None


def test_forks_prs_past_one_page_do_not_hide_perfbots_own(inproc: Run) -> None:
    """Twenty-five forks' PRs with perfbot's branch name, then perfbot's own: it is found on page two."""
    with_comments(inproc.sandbox, (101, 8325, "alice", COMPLETE))
    assert inproc.run()[0] == 0
    state = inproc.state()
    (ours,) = our_open_pulls(state)
    # Forks' PRs that come first in GitHub's order, the first page of the list full of them.
    state["pulls"] = [{**FORK_PULL, "number": 1000 + n, "head_repository": f"fork{n}/fak"} for n in range(25)] + state[
        "pulls"
    ]
    for p in state["pulls"]:
        if p["number"] == ours["number"]:
            p["number"] = 2000  # after every fork's, in the double's (and GitHub's) order
    inproc.sandbox.write_state(state)
    inproc.double = double_on(inproc.sandbox.state_path, inproc.sandbox.root)
    status, plan, err = inproc.run()
    assert status == 0, err
    assert plan is not None
    assert pull(plan)["operation"] == "none"
    assert pull(plan)["number"] == 2000
    assert len(pull(plan)["forks"]) == 25


# --- 2. a PR list that lags: GitHub's real 422 for a second PR from one head


def test_a_lagging_pr_list_ends_with_the_open_pr_updated(live: Run) -> None:
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.lag(pulls=2)
    assert live.run()[0] == 0
    (first,) = our_open_pulls(live.state())
    with_comments(live.sandbox, (5002, 8324, "alice", REVIEW))  # an id past the bot's own comments
    status, plan, err = live.run()
    assert status == 0, err
    assert plan is not None
    assert pull(plan)["operation"] == "create"  # the read did not list the open PR
    (after,) = our_open_pulls(live.state())
    assert after["number"] == first["number"]
    assert "comment_id: 5002" in after["files"]["config/snapshot.yaml"]
    assert after["body"] == pull(plan)["body"]
    create = [r for r in live.double.requests if r["method"] == "POST" and r["path"].endswith("/pulls")]
    assert [r["status"] for r in create][-1] == 422


def test_a_pr_list_that_never_catches_up_is_one_clear_line(inproc: Run) -> None:
    with_comments(inproc.sandbox, (101, 8325, "alice", COMPLETE))
    inproc.double.lag(pulls=1000)
    assert inproc.run()[0] == 0
    with_comments(inproc.sandbox, (5002, 8324, "alice", REVIEW))
    status, _, err = inproc.run()
    assert status == 1
    assert err.endswith(
        f"GitHub says a PR from {BRANCH} is open, but lists none after 3 reads; run perfbot again in a few minutes\n"
    )
    assert "Traceback" not in err
    assert len(our_open_pulls(inproc.state())) == 1


# --- 3. secondary rate limits as GitHub sends them


@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_limit_naming_no_wait_is_waited_out_for_a_minute(live: Run, status: int) -> None:
    live.sandbox.reply_to_all()  # a reply to refuse
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.secondary_rate_limit("POST", COMMENTS, retry_after=None, status=status)
    code, _, err = live.run()
    assert code == 0, err
    assert 60.0 in live.clock.waits
    replies = [c for c in live.state()["comments"] if "command-reply" in c["body"]]
    assert len(replies) == 1


def test_repeated_secondary_limits_wait_longer_each_time_then_stop_as_a_rate_limit(inproc: Run) -> None:
    inproc.sandbox.reply_to_all()  # a reply to refuse
    with_comments(inproc.sandbox, (101, 8325, "alice", COMPLETE))
    for _ in range(4):
        inproc.double.faults.secondary_rate_limit("POST", COMMENTS, retry_after=None)
    code, _, err = inproc.run()
    assert code == 1
    assert [w for w in inproc.clock.waits if w >= 60] == [60.0, 120.0, 240.0]
    assert "commenting on #8325: GitHub's secondary rate limit" in err
    assert "run perfbot again after" in err
    assert "(in about 8 min)" in err
    assert PERMISSIONS not in err
    assert not [c for c in inproc.state()["comments"] if "command-reply" in c["body"]]


def test_a_refusal_that_is_not_a_limit_still_names_the_permissions(inproc: Run) -> None:
    inproc.sandbox.reply_to_all()  # a reply to refuse
    with_comments(inproc.sandbox, (101, 8325, "alice", COMPLETE))
    inproc.double.faults.answer("POST", COMMENTS, 403, {"message": "Resource not accessible by integration"})
    code, _, err = inproc.run()
    assert code == 1
    assert PERMISSIONS in err
    assert "rate limit" not in err


# --- 4. comment lists that lag: no marker twice, in one run or two in turn


@pytest.mark.slow
def test_with_comment_lists_lagging_no_two_runs_in_turn_post_a_comment_twice(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], through: str
) -> None:
    """Three runs in turn over comment lists that lag one read post exactly the comments that three
    runs over lists that do not lag post."""
    sandbox.reply_to_all()  # replies to post, besides the records of links
    with_comments(sandbox, (101, 8325, "alice", COMPLETE), (102, 9497, "alice", CLAIM))
    initial = sandbox.state_path.read_text(encoding="utf-8")
    posted = {}
    for lag in (0, 1):
        sandbox.state_path.write_text(initial, encoding="utf-8")
        runs = Run(sandbox, capsys, through)
        runs.double.lag(comments=lag)
        for _ in range(3):
            status, _, err = runs.run()
            assert status == 0, err
        state = runs.state()
        posted[lag] = [(c["issue"], c["body"]) for c in state["comments"] if c["user"] == state["bot_login"]]
    assert posted[1] == posted[0]
    assert len([body for _, body in posted[1] if "perfbot:command-reply" in body]) == 2


# --- 5. the action's outputs, whichever adapter ran


def test_the_outputs_are_the_same_for_the_same_plan_on_both_adapters(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_comments(sandbox, (101, 8325, "alice", COMPLETE))
    before = sandbox.state_path.read_text(encoding="utf-8")
    offline_out = tmp_path / "offline.txt"
    argv = ["reconcile", "--config", str(sandbox.config), "--now", NOW.isoformat(), "--outputs", str(offline_out)]
    assert main([*argv, "--offline", str(sandbox.state_path)]) == 0
    capsys.readouterr()
    sandbox.state_path.write_text(before, encoding="utf-8")
    run = Run(sandbox, capsys, "transport")
    live_out = tmp_path / "live.txt"
    status, _, err = run.run(outputs=live_out)
    assert status == 0, err
    offline, live = outputs_of(offline_out), outputs_of(live_out)
    # The head commit is each adapter's own: GitHub's commit id live, a digest of the files offline.
    heads = (offline.pop("pull-request-head-sha"), live.pop("pull-request-head-sha"))
    assert re.fullmatch(r"[0-9a-f]{40}", heads[0])
    assert heads[1] == run.double.tip("perfbot/update")  # the commit the live run made
    assert live == offline
    assert live["pull-request-operation"] == "created"
    assert live["pull-request-number"] == str(our_open_pulls(sandbox.state())[0]["number"])


# --- 6. labels are case-insensitive on GitHub


def test_a_state_label_spelt_in_another_case_is_the_same_label(inproc: Run) -> None:
    """The repository's `Perf/Ready`, put on by a person, is perfbot's `perf/ready`: the run
    converges instead of adding it on every run, and a stale one in any case is removed."""
    assert inproc.run()[0] == 0
    state = inproc.state()
    for label in state["labels"]:
        label["name"] = label["name"].title()
    for issue in state["issues"]:
        issue["labels"] = [name.title() for name in issue.get("labels", [])]
    inproc.sandbox.write_state(state)
    inproc.double = double_on(inproc.sandbox.state_path, inproc.sandbox.root)
    status, plan, err = inproc.run()
    assert status == 0, err
    assert plan is not None
    assert [a for a in plan["actions"] if a["kind"] in ("label", "create_label")] == []


def test_the_double_applies_a_label_whatever_its_case(inproc: Run) -> None:
    assert inproc.run()[0] == 0
    github: GitHubDouble = inproc.double
    state = github.state()
    labelled = next(i for i in state["issues"] if i.get("labels"))
    name = labelled["labels"][0]
    transport = github.transport()
    headers = {"authorization": "token test-token"}
    with httpx.Client(transport=transport, base_url="https://api.github.com") as client:
        path = f"/repos/{REPO}/issues/{labelled['number']}/labels"
        removed = client.delete(f"{path}/{name.upper().replace('/', '%2F')}", headers=headers)
        assert removed.status_code == 200
        added = client.post(path, json={"labels": [name.upper()]}, headers=headers)
    assert added.status_code == 200
    assert [label["name"] for label in added.json()] == [name]  # the repository's own spelling


# --- 7. native links past one page


def test_blocked_by_links_past_the_first_page_are_all_read(inproc: Run, tmp_path: Path) -> None:
    state = inproc.state()
    extra = [{"number": 20000 + n, "title": f"blocker {n}", "state": "open"} for n in range(130)]
    target = state["issues"][0]["number"]
    for issue in state["issues"]:
        if issue["number"] == target:
            issue["blocked_by"] = [e["number"] for e in extra]
    state["issues"] += extra
    inproc.sandbox.write_state(state)
    inproc.double = double_on(inproc.sandbox.state_path, inproc.sandbox.root)
    exported = tmp_path / "exported.json"
    status, _, err = inproc.run("--out", str(exported), command="export-state")
    assert status == 0, err
    seen = next(i for i in json.loads(exported.read_text(encoding="utf-8"))["issues"] if i["number"] == target)
    assert seen["blocked_by"] == [e["number"] for e in extra]
    # the first read's page of 50, then the other 80 in one page of up to 100
    assert [r["status"] for r in inproc.double.requests if r["kind"] == "graphql"] == [200] * 2


# --- 10. what the double never showed before: a deleted author, GraphQL cost


def test_a_deleted_authors_comment_is_read_as_ghosts(inproc: Run) -> None:
    with_comments(inproc.sandbox, (101, 8325, "ghost", "/perf help"))
    status, plan, err = inproc.run("--dry-run")
    assert status == 0, err
    assert plan is not None
    decisions = [(c["comment_id"], c["decision"]) for c in plan["commands"]]
    assert [cid for cid, _ in decisions] == [101]
    assert "Traceback" not in err


def test_the_plan_shows_the_graphql_points_github_charged(inproc: Run) -> None:
    status, plan, err = inproc.run("--dry-run")
    assert status == 0, err
    assert plan is not None
    assert plan["api"]["graphql"] == 1
    assert plan["api"]["graphql_points"] == 1  # the first query reads well under 100 connections' worth
