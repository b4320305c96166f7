"""Act: perform a plan's actions through the GitHub port, in order, within a write budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.reconcile.actions import (
    Action,
    AssignAction,
    CommentAction,
    EditCommentAction,
    Plan,
    PullRequestAction,
    ReactAction,
)


class GitHubPort(Protocol):
    """The writes perfbot makes; the live and offline adapters both provide them."""

    def comment(self, action: CommentAction) -> int: ...
    def edit_comment(self, action: EditCommentAction) -> None: ...
    def react(self, action: ReactAction) -> None: ...
    def assign(self, action: AssignAction) -> None: ...
    def pull_request(self, action: PullRequestAction) -> int | None:
        """Create, update or close the PR; its number when the adapter knows it."""


@dataclass
class Report:
    done: list[Action] = field(default_factory=list)
    deferred: list[Action] = field(default_factory=list)
    # The regeneration PR this run created, updated or closed (a created PR's number is only known now).
    pull_request_number: int | None = None


def apply(plan: Plan, port: GitHubPort, budget: int) -> Report:
    """Perform each action until the budget is spent; what is left is safe to do next run
    because every action is keyed (markers, reactions, the PR branch) and planned afresh."""
    report = Report()
    # The PR carries commands whose replies record their decisions (and claims that assign
    # people); it waits until none of those is deferred, so a merge never outruns its record.
    waiting_for_answers = False
    for action in plan.actions:
        if isinstance(action, PullRequestAction) and action.operation == "none":
            continue
        if len(report.done) >= budget or (isinstance(action, PullRequestAction) and waiting_for_answers):
            report.deferred.append(action)
            waiting_for_answers |= isinstance(action, AssignAction) or (
                isinstance(action, CommentAction) and action.topic == "command-reply"
            )
            continue
        if isinstance(action, CommentAction):
            port.comment(action)
        elif isinstance(action, EditCommentAction):
            port.edit_comment(action)
        elif isinstance(action, ReactAction):
            port.react(action)
        elif isinstance(action, AssignAction):
            port.assign(action)
        else:
            number = port.pull_request(action)
            report.pull_request_number = number if number is not None else action.number
        report.done.append(action)
    return report
