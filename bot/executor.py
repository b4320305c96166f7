"""Act: perform a plan's actions through the GitHub port, in order, within a write budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.actions import Action, AssignAction, CommentAction, EditCommentAction, Plan, PullRequestAction, ReactAction


class GitHubPort(Protocol):
    """The writes perfbot makes; the live and offline adapters both provide them."""

    def comment(self, action: CommentAction) -> int: ...
    def edit_comment(self, action: EditCommentAction) -> None: ...
    def react(self, action: ReactAction) -> None: ...
    def assign(self, action: AssignAction) -> None: ...
    def pull_request(self, action: PullRequestAction) -> None: ...


@dataclass
class Report:
    done: list[Action] = field(default_factory=list)
    deferred: list[Action] = field(default_factory=list)


def apply(plan: Plan, port: GitHubPort, budget: int) -> Report:
    """Perform each action until the budget is spent; what is left is safe to do next run
    because every action is keyed (markers, reactions, the PR branch) and planned afresh."""
    report = Report()
    pull = plan.pull_request()
    # The PR carries every accepted command; a flood of comments must not crowd it out.
    reserved = 1 if pull.operation != "none" and budget > 0 else 0
    for action in plan.actions:
        if isinstance(action, PullRequestAction) and action.operation == "none":
            continue
        limit = budget if isinstance(action, PullRequestAction) else budget - reserved
        if len(report.done) >= limit:
            report.deferred.append(action)
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
            port.pull_request(action)
        report.done.append(action)
    return report
