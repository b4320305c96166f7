"""The executor performs an action through the writer's method named by the action's `kind`, and
names the PR a run opened in the dashboard it writes after."""

from __future__ import annotations

import inspect
from typing import cast, get_args

import pytest

from bot.github.actions import Action, CreateIssueAction, EditIssueAction, LeaseReport, PullRequestAction
from bot.github.port import GitHubWriter
from bot.reconcile.dashboard import named_pull
from bot.reconcile.executor import apply
from bot.reconcile.plan import Plan
from bot.untrusted import neutral


def test_every_kind_of_action_names_a_write_of_the_port_that_takes_it() -> None:
    kinds = {cls.model_fields["kind"].default: cls for cls in get_args(get_args(Action)[0])}
    writes = {name: method for name, method in vars(GitHubWriter).items() if not name.startswith("_")}
    assert set(kinds) == set(writes)
    for kind, cls in kinds.items():
        assert inspect.signature(writes[kind]).parameters["action"].annotation == cls.__name__


OPENING = "<!-- perfbot:pull -->The regeneration PR this run opens<!-- /perfbot:pull -->"


class _Recorder:
    """A writer that opens PR 77 and keeps the dashboard bodies it is given."""

    def __init__(self) -> None:
        self.bodies: list[str] = []

    def pull_request(self, action: PullRequestAction) -> int:
        return 77

    def edit_issue(self, action: EditIssueAction) -> None:
        self.bodies.append(action.body)

    def create_issue(self, action: CreateIssueAction) -> int:
        self.bodies.append(action.body)
        return 5


def _plan(*actions: Action) -> Plan:
    return Plan(
        now="2026-08-27T18:00:00Z", actions=actions, packets=(), leases=LeaseReport(file="x", format="dos", live=0)
    )


@pytest.mark.parametrize(
    "board",
    [EditIssueAction(issue=5, body=f"{OPENING} records these."), CreateIssueAction(title="t", body=f"in {OPENING}.")],
)
def test_the_dashboard_names_the_pr_the_run_opened_by_its_number(board: CreateIssueAction | EditIssueAction) -> None:
    """The plan cannot know the number of a PR it opens; the run puts it in before the body is written,
    and the report keeps the action as planned (the job summary matches actions by value)."""
    port = _Recorder()
    pull = PullRequestAction(operation="create", branch="perfbot/update")
    found = apply(_plan(pull, board), cast(GitHubWriter, port), budget=5)
    (written,) = port.bodies
    assert "#77" in written
    assert "perfbot:pull" not in written
    assert "this run opens" not in written
    assert found.done == [pull, board]


def test_without_a_pr_written_the_dashboard_is_written_as_planned() -> None:
    port = _Recorder()
    board = EditIssueAction(issue=5, body=f"{OPENING} records these.")
    apply(_plan(board), cast(GitHubWriter, port), budget=5)
    assert port.bodies == [board.body]


def test_outside_text_cannot_take_the_pr_s_place() -> None:
    """Only perfbot's own comments are replaced: outside text is neutralised, which breaks `<!--`."""
    forged = neutral("<!-- perfbot:pull -->ship it<!-- /perfbot:pull -->")
    assert named_pull(f"{forged} and {OPENING}", 9) == f"{forged} and #9"
