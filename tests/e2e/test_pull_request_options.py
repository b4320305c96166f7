"""The regeneration PR's options, as create-pull-request offers them: labels, reviewers, team
reviewers and draft, from the config or the action's inputs (`--pull-request-*`), set when perfbot
opens the PR and never again, on both adapters (the live one through the double's REST API:
`issues/add-labels`, `pulls/request-reviewers`, `pulls/create` with `draft`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.support.backends import double_on
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


DELETING = OPTIONS.replace("  draft: true\n", "  delete_branch: true\n")


def branch_head(repo: Repo) -> str | None:
    """perfbot's branch as the adapter's GitHub holds it: the state's `branches` offline, the
    double's git refs live; None when it does not exist."""
    state = repo.state()
    if repo.adapter == "offline":
        return ((state.get("branches") or {}).get("perfbot/update") or {}).get("oid")
    head: str | None = ((state.get("git") or {}).get("refs") or {}).get("perfbot/update")
    return head


def pull_action(plan: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    return found


def test_the_branch_of_a_pr_a_person_merged_is_deleted_by_the_next_run(
    either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """As create-pull-request's `delete-branch`: deleted when undeleted after merging, on the next run."""
    with_options(either, DELETING)
    opened = run(either, capsys, tmp_path)
    head = branch_head(either)
    assert head is not None
    assert "delete_head" not in pull_action(opened)  # a PR is open from it
    either.merge(opened)
    plan = run(either, capsys, tmp_path)
    assert pull_action(plan)["operation"] == "none"
    assert pull_action(plan)["delete_head"] == head
    assert branch_head(either) is None
    # Gone, it stays gone: the next run has nothing to delete.
    assert "delete_head" not in pull_action(run(either, capsys, tmp_path))


def test_without_the_option_the_branch_stays(either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with_options(either)
    opened = run(either, capsys, tmp_path)
    either.merge(opened)
    head = branch_head(either)
    assert head is not None
    assert "delete_head" not in pull_action(run(either, capsys, tmp_path))
    assert branch_head(either) == head


def test_the_run_that_closes_the_pr_deletes_its_branch(
    either: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The default branch got the PR's files another way: the PR is closed, then its branch deleted."""
    with_options(either, DELETING)
    opened = run(either, capsys, tmp_path)
    assert branch_head(either) is not None
    for path, text in pull_action(opened)["files"].items():
        (either.root / path).write_text(text, encoding="utf-8")
    head = branch_head(either)
    plan = run(either, capsys, tmp_path)
    assert (pull_action(plan)["operation"], pull_action(plan)["delete_head"]) == ("close", head)
    assert branch_head(either) is None
    assert all(p["state"] != "open" for p in either.state()["pulls"] if p["head"] == "perfbot/update")


def test_a_branch_whose_head_a_person_made_is_kept(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_options(sandbox, DELETING)
    opened = run(sandbox, capsys, tmp_path)
    sandbox.merge(opened)
    state = sandbox.state()
    state["branches"]["perfbot/update"]["ours"] = False  # a person's commit on top
    sandbox.write_state(state)
    assert "delete_head" not in pull_action(run(sandbox, capsys, tmp_path))
    assert branch_head(sandbox) is not None


def test_a_repository_that_deletes_head_branches_on_merge_leaves_perfbot_nothing_to_delete(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """GitHub's own setting deletes the branch at the merge (the double models it)."""
    live = Repo(tmp_path / "repo", "live")
    with_options(live, DELETING)
    live.edit_state(delete_branch_on_merge=True)
    run(live, capsys, tmp_path)
    number = our_pull(live)["number"]
    double_on(live.state_path, live.root).merge_pull(number)
    assert branch_head(live) is None
    plan = run(live, capsys, tmp_path)
    assert "delete_head" not in pull_action(plan)
    assert branch_head(live) is None


def test_the_action_input_turns_deleting_on_instead_of_the_config(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_options(sandbox)
    sandbox.merge(run(sandbox, capsys, tmp_path))
    plan = run(sandbox, capsys, tmp_path, "--pull-request-delete-branch", "true", "--dry-run")
    assert pull_action(plan)["delete_head"] == branch_head(sandbox)
    plan = run(sandbox, capsys, tmp_path, "--pull-request-delete-branch", "false", "--dry-run")
    assert "delete_head" not in pull_action(plan)
