"""The action's outputs people wire up: the PR's number, operation, web address, branch and the
commit this run put at its head, the comments written, the issues nudged (a JSON list) and the
plan file, as `name=value` lines appended to `$GITHUB_OUTPUT` (here `--outputs`)."""

from __future__ import annotations

import json
import re
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
    assert found["pull-request-operation"] == "created"
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


# --- each output as action.yml describes it, on both adapters (the `either` sandbox), through one
# story: the PR is created, left alone, updated by a command, made unnecessary (closed), then none.


class Story:
    """Runs of `either` with the action's outputs read back after each."""

    def __init__(self, repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.repo, self.tmp_path, self.capsys = repo, tmp_path, capsys
        self.leases = tmp_path / "no-leases.json"
        self.leases.write_text("[]\n", encoding="utf-8")  # every lease released: packets change state

    def run(self, *args: str) -> tuple[dict[str, str], dict[str, Any]]:
        out, plan_json = self.tmp_path / "outputs.txt", self.tmp_path / "plan.json"
        out.unlink(missing_ok=True)
        common = ["--now", LATE, "--leases", str(self.leases), "--max-writes", "1000"]
        plan = self.repo.reconcile(self.capsys, *common, "--outputs", str(out), "--plan-json", str(plan_json), *args)
        return outputs(out), plan

    def open_pulls(self) -> list[dict[str, Any]]:
        return [p for p in self.repo.state()["pulls"] if p.get("state", "open") == "open"]


@pytest.fixture
def story(either: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Story:
    return Story(either, tmp_path, capsys)


def done(plan: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [a for a in plan["actions"] if a["kind"] == kind]


def test_pull_request_number_is_the_pr_this_run_wrote_else_the_open_one(story: Story) -> None:
    created, _ = story.run()
    [pull] = story.open_pulls()
    assert created["pull-request-number"] == str(pull["number"])
    left, plan = story.run()
    assert done(plan, "pull_request")[0]["operation"] == "none"
    assert left["pull-request-number"] == str(pull["number"])  # the open one, not written this run


def test_pull_request_operation_speaks_create_pull_requests_words(story: Story) -> None:
    assert story.run()[0]["pull-request-operation"] == "created"
    assert story.run()[0]["pull-request-operation"] == "none"
    story.repo.add_comment(501, 8971, "anthony-chaudhary", "/perf review metal-resident-decode by 2026-10-01")
    assert story.run()[0]["pull-request-operation"] == "updated"
    number = story.open_pulls()[0]["number"]
    make_unnecessary(story)
    closed, _ = story.run()
    assert (closed["pull-request-operation"], closed["pull-request-number"]) == ("closed", str(number))
    assert story.run()[0]["pull-request-operation"] == "none"
    assert story.run("--dry-run")[0]["pull-request-operation"] == "none"


def make_unnecessary(story: Story) -> None:
    """The PR's files land on the default branch by another way: the PR has nothing left to do."""
    pull = story.open_pulls()[0]
    for path, text in pull["files"].items():
        (story.repo.root / path).write_text(text, encoding="utf-8")


def test_pull_request_url_and_branch_name_the_numbered_pr_and_are_empty_without_one(story: Story) -> None:
    created, _ = story.run()
    number = created["pull-request-number"]
    url = f"https://github.com/anthony-chaudhary/fak/pull/{number}"
    assert (created["pull-request-url"], created["pull-request-branch"]) == (url, "perfbot/update")
    left, _ = story.run()  # the run did not write the PR: still named, as its number is
    assert (left["pull-request-number"], left["pull-request-url"], left["pull-request-branch"]) == (
        number,
        url,
        "perfbot/update",
    )
    make_unnecessary(story)
    story.run()
    after, _ = story.run()
    assert (after["pull-request-number"], after["pull-request-url"], after["pull-request-branch"]) == ("", "", "")


def test_pull_request_head_sha_is_set_only_when_this_run_wrote_the_head(story: Story) -> None:
    created, _ = story.run()
    head = created["pull-request-head-sha"]
    assert re.fullmatch(r"[0-9a-f]{40}", head)
    state = story.repo.state()
    # Live, the double's branch holds the commit; offline, the PR record holds the digest.
    branch_tip = state.get("git", {}).get("refs", {}).get("perfbot/update")
    assert head == (branch_tip or story.open_pulls()[0]["head_sha"])
    assert story.run()[0]["pull-request-head-sha"] == ""


def test_comments_written_counts_posted_and_edited_comments(story: Story) -> None:
    found, plan = story.run()
    posted, edited = done(plan, "comment"), done(plan, "edit_comment")
    assert posted
    assert edited
    assert found["comments-written"] == str(len(posted) + len(edited))
    assert story.run()[0]["comments-written"] == "0"


def test_nudged_issues_is_a_json_list_of_the_nudged_issues(story: Story) -> None:
    found, plan = story.run()
    nudged = sorted({a["issue"] for a in done(plan, "comment") if a["topic"] in NUDGE_TOPICS})
    assert nudged
    assert json.loads(found["nudged-issues"]) == nudged
    assert story.run()[0]["nudged-issues"] == "[]"


def test_plan_json_is_the_path_of_the_plan_this_run_wrote(story: Story) -> None:
    found, plan = story.run()
    written = json.loads(Path(found["plan-json"]).read_text(encoding="utf-8"))
    written.pop("api")
    assert written == plan
