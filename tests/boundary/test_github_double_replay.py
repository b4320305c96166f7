"""A real plan's actions, applied through the double's HTTP API, leave the state the offline
adapter leaves: the two adapters of the GitHub port cannot drift apart over the double.

`RestPort` is the smallest port that maps each action onto GitHub's REST calls; it exists to test
the double, and says nothing about how the live adapter should batch, retry or read.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import githubkit

from bot.config import DashboardSettings, load_settings
from bot.evidence.leases import LeaseReadback
from bot.github.actions import (
    AssignAction,
    CommentAction,
    CreateIssueAction,
    CreateLabelAction,
    EditCommentAction,
    EditIssueAction,
    LabelAction,
    LinkAction,
    PullRequestAction,
    ReactAction,
)
from bot.github.offline import OfflineGitHub, parse_state
from bot.issue_refs import number_of
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from tests.github_double import GitHubDouble
from tests.github_double.graphql_labels import issue_id
from tests.support.double_support import NAME, NOW, OWNER, client, comment, example_state, make_double
from tests.support.paths import ROOT

COMMANDS = [
    (101, 8325, "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"),
    (102, 8324, "/perf review metal-resident-decode by 2026-09-04"),
    (103, 9497, "/perf claim profile.real-cuda\n/perf block profile.real-cuda waiting for an A100 window"),
]


class RestPort:
    def __init__(self, gh: githubkit.GitHub[Any], double: GitHubDouble) -> None:
        self.gh, self.double = gh, double

    def comment(self, action: CommentAction) -> int:
        return self.gh.rest.issues.create_comment(OWNER, NAME, number_of(action.issue), body=action.body).parsed_data.id

    def edit_comment(self, action: EditCommentAction) -> None:
        self.gh.rest.issues.update_comment(OWNER, NAME, action.comment_id, body=action.body)

    def react(self, action: ReactAction) -> None:
        self.gh.rest.reactions.create_for_issue_comment(OWNER, NAME, action.comment_id, content=action.content)

    def assign(self, action: AssignAction) -> None:
        call = self.gh.rest.issues.add_assignees if action.add else self.gh.rest.issues.remove_assignees
        call(OWNER, NAME, number_of(action.issue), assignees=[action.login])

    def label(self, action: LabelAction) -> None:
        if action.add:
            self.gh.rest.issues.add_labels(OWNER, NAME, number_of(action.issue), labels=[action.name])
        else:
            self.gh.rest.issues.remove_label(OWNER, NAME, number_of(action.issue), quote(action.name, safe=""))

    def create_label(self, action: CreateLabelAction) -> None:
        self.gh.rest.issues.create_label(
            OWNER, NAME, name=action.name, color=action.color, description=action.description
        )

    def link(self, action: LinkAction) -> None:
        issues = self.gh.rest.issues
        if action.relation == "blocked_by" and action.add:
            issues.add_blocked_by_dependency(
                OWNER, NAME, number_of(action.issue), issue_id=issue_id(number_of(action.target))
            )
        elif action.relation == "blocked_by":
            issues.remove_dependency_blocked_by(
                OWNER, NAME, number_of(action.issue), issue_id(number_of(action.target))
            )
        elif action.add:
            issues.add_sub_issue(OWNER, NAME, number_of(action.target), sub_issue_id=issue_id(number_of(action.issue)))
        else:
            issues.remove_sub_issue(
                OWNER, NAME, number_of(action.target), sub_issue_id=issue_id(number_of(action.issue))
            )

    def create_issue(self, action: CreateIssueAction) -> int:
        made = self.gh.rest.issues.create(OWNER, NAME, title=action.title, body=action.body, labels=list(action.labels))
        return made.parsed_data.number

    def edit_issue(self, action: EditIssueAction) -> None:
        self.gh.rest.issues.update(OWNER, NAME, action.issue, body=action.body)

    def pull_request(self, action: PullRequestAction) -> None:
        rest = self.gh.rest
        if action.operation == "close" and action.number is not None:
            rest.pulls.update(OWNER, NAME, action.number, state="closed")
            return
        tip = rest.git.get_ref(OWNER, NAME, "heads/main").parsed_data.object_.sha
        base_tree = rest.git.get_commit(OWNER, NAME, tip).parsed_data.tree.sha
        entries: list[Any] = [
            {"path": p, "mode": "100644", "type": "blob", "content": t} for p, t in action.files.items()
        ]
        tree = rest.git.create_tree(OWNER, NAME, base_tree=base_tree, tree=entries).parsed_data.sha
        message = action.commit_message(action.title)  # the records of quiet answers as its trailers
        made = rest.git.create_commit(OWNER, NAME, message=message, tree=tree, parents=[tip]).parsed_data.sha
        if self.double.tip(action.branch) is None:
            rest.git.create_ref(OWNER, NAME, ref=f"refs/heads/{action.branch}", sha=made)
        else:
            rest.git.update_ref(OWNER, NAME, f"heads/{action.branch}", sha=made, force=True)
        if action.operation == "create":
            rest.pulls.create(OWNER, NAME, title=action.title, head=action.branch, base="main", body=action.body)
        elif action.number is not None:
            rest.pulls.update(OWNER, NAME, action.number, title=action.title, body=action.body)


def start() -> dict[str, Any]:
    return example_state(
        comments=[comment(cid, issue, "alice", body) for cid, issue, body in COMMANDS], permissions={"alice": "write"}
    )


def test_a_plan_applied_over_http_leaves_the_offline_state() -> None:
    settings = load_settings(ROOT / "config" / "perfbot.yaml")
    initial = start()
    raw, observed = parse_state(json.dumps(copy.deepcopy(initial)), "offline")
    plan = decide(gather.inputs(settings, observed, NOW))
    offline = OfflineGitHub(raw, observed, NOW)
    executor.apply(plan, offline, budget=1000)

    double = make_double(initial)
    with client(double) as gh:
        report = executor.apply(plan, RestPort(gh, double), budget=1000)
    state = double.state()
    git = state.pop("git")

    assert len(report.done) == offline.writes == 9  # as in test_exactly_once: 6, then 3 links records
    assert state == offline.raw
    (pull,) = state["pulls"]
    assert double.files(pull["head"]) == double.files() | pull["files"]
    assert git["refs"] == {pull["head"]: double.tip(pull["head"])}
    # a reply (103: a claim beside a block), three 🚀, an assignment, the PR's writes, 3 records
    # (labels and links wait for the merge)
    assert double.kinds()["rest_write"] == 1 + 3 + 1 + 4 + 3


def test_a_second_offline_run_over_the_doubles_state_changes_nothing(tmp_path: Path) -> None:
    """The double's state file, `git` key and all, reads back as the offline adapter expects."""
    settings = load_settings(ROOT / "config" / "perfbot.yaml")
    path = tmp_path / "state.json"
    double = make_double(start(), state_path=path)
    _, observed = parse_state(path.read_text(encoding="utf-8"), str(path))
    with client(double) as gh:
        executor.apply(decide(gather.inputs(settings, observed, NOW)), RestPort(gh, double), budget=1000)
    after = path.read_text(encoding="utf-8")
    rerun = OfflineGitHub.open(path, NOW)
    executor.apply(decide(gather.inputs(settings, rerun.observed, NOW)), rerun, budget=1000)
    assert rerun.writes == 0
    assert path.read_text(encoding="utf-8") == after


def test_the_dashboards_writes_over_http_leave_the_offline_state() -> None:
    """Opening the dashboard, then editing it after a lease release, through the double's REST API
    and through the offline adapter, leave the same state."""
    seed = load_settings(ROOT / "config" / "perfbot.yaml")
    on = seed.config.model_copy(update={"dashboard": DashboardSettings(enabled=True)})
    settings = seed.model_copy(update={"config": on})
    initial = start()
    raw, observed = parse_state(json.dumps(copy.deepcopy(initial)), "offline")
    offline, double = OfflineGitHub(raw, observed, NOW), make_double(initial)
    released = LeaseReadback("leases.json", "live-array", ())
    for readback in (None, released):
        found = parse_state(json.dumps(offline.raw), "offline")[1]
        inputs = gather.inputs(settings, found, NOW)
        inputs = inputs._replace(readback=readback or inputs.readback)
        plan = decide(inputs)
        board = [a for a in plan.actions if a.kind in ("create_issue", "edit_issue")]
        assert [a.kind for a in board] == (["create_issue"] if readback is None else ["edit_issue"])
        dashboard_only = plan.model_copy(update={"actions": tuple(board), "deferred": ()})
        executor.apply(dashboard_only, offline, budget=1000)
        with client(double) as gh:
            executor.apply(dashboard_only, RestPort(gh, double), budget=1000)
    state = double.state()
    assert state == offline.raw
    assert [i["number"] for i in state["issues"] if "perfbot-dashboard" in i.get("labels", [])] == [9499]
