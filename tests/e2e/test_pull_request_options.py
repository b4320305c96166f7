"""The regeneration PR's options, as create-pull-request offers them: labels, reviewers, team
reviewers and draft, from the config or the action's inputs (`--pull-request-*`), set when perfbot
opens the PR and never again, on both adapters (the live one through the double's REST API:
`issues/add-labels`, `pulls/request-reviewers`, `pulls/create` with `draft`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.support.harness import Repo

LATE = "2026-09-20T12:00:00Z"
OPTIONS = """pull_request:
  branch: perfbot/update
  title: 'perfbot: update the performance-constraints snapshot and page'
  labels: [performance, automated]
  reviewers: [alice]
  team_reviewers: [perf-leads]
  draft: true
"""


def with_options(repo: Repo, text: str = OPTIONS) -> None:
    config = repo.config.read_text(encoding="utf-8")
    start = config.index("pull_request:\n")
    end = config.index("\n\n", start) + 1
    repo.config.write_text(config[:start] + text + config[end:], encoding="utf-8")
    repo.edit_state(permissions={"anthony-chaudhary": "admin", "alice": "write"}, teams=["perf-leads"])


def run(repo: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> dict[str, Any]:
    empty = tmp_path / "no-leases.json"
    empty.write_text("[]\n", encoding="utf-8")  # packets change state: a PR is proposed
    return repo.reconcile(capsys, "--now", LATE, "--leases", str(empty), "--max-writes", "1000", *args)


def our_pull(repo: Repo) -> dict[str, Any]:
    return next(p for p in repo.state()["pulls"] if p["head"] == "perfbot/update" and p["state"] == "open")


def test_a_pr_perfbot_opens_carries_its_labels_reviewers_and_draft(
    either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_options(either)
    plan = run(either, capsys, tmp_path)
    action = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    assert (action["operation"], action["labels"], action["draft"]) == ("create", ["performance", "automated"], True)
    pull = our_pull(either)
    assert pull["labels"] == ["performance", "automated"]
    assert (pull["requested_reviewers"], pull["requested_teams"], pull["draft"]) == (["alice"], ["perf-leads"], True)


def test_what_people_change_on_the_pr_stays_as_they_left_it(
    either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_options(either)
    run(either, capsys, tmp_path)
    state = either.state()
    pull = next(p for p in state["pulls"] if p["state"] == "open")
    pull.update(labels=["automated"], requested_reviewers=[], draft=False)  # a person's edits
    either.write_state(state)
    either.add_comment(501, 8971, "anthony-chaudhary", "/perf review metal-resident-decode by 2026-10-01")
    plan = run(either, capsys, tmp_path)
    action = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    assert action["operation"] == "update"
    assert "labels" not in action  # an update carries no options
    pull = our_pull(either)
    assert (pull["labels"], pull["requested_reviewers"], pull["draft"]) == (["automated"], [], False)


def test_without_options_the_pr_and_the_plan_are_as_before(
    either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan = run(either, capsys, tmp_path)
    action = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    assert not {"labels", "reviewers", "team_reviewers", "draft"} & set(action)
    assert not {"labels", "requested_reviewers", "requested_teams", "draft"} & set(our_pull(either))


def test_the_action_inputs_set_the_options_instead_of_the_config(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_options(sandbox)
    flags = [
        "--pull-request-labels",
        "perf, bot\nweekly",
        "--pull-request-reviewers",
        "",
        "--pull-request-draft",
        "false",
    ]
    plan = run(sandbox, capsys, tmp_path, *flags)
    action = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    assert (action["labels"], action.get("reviewers"), action["team_reviewers"], action.get("draft")) == (
        ["perf", "bot", "weekly"],
        None,
        ["perf-leads"],
        None,
    )


def test_a_reviewer_github_would_refuse_is_refused_naming_the_flag(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--dry-run"]
    assert main([*argv, "--pull-request-reviewers", "alice,not a login"]) == 1
    assert "--pull-request-reviewers" in capsys.readouterr().err
