"""Act: perform a plan's actions through the GitHub port, in order, within a write budget."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.github.port import GitHubError, GitHubWriter
from bot.reconcile.actions import Action, AssignAction, CommentAction, Plan, PullRequestAction, ReactAction


@dataclass
class Report:
    """What a run did: the actions done, those left for the next run, and the write that failed."""

    done: list[Action] = field(default_factory=list)
    deferred: list[Action] = field(default_factory=list)
    failed: Action | None = None
    error: GitHubError | None = None
    # The regeneration PR this run created, updated or closed (a created PR's number is only known now).
    pull_request_number: int | None = None


def apply(plan: Plan, port: GitHubWriter, budget: int) -> Report:
    """Perform each action until the budget is spent or a write fails; what is left is safe to do
    next run because every action is keyed (markers, reactions, the PR branch) and planned afresh.

    The report is returned even when a write fails, so the caller can say what was done."""
    report = Report()
    # The PR carries commands whose replies record their decisions (and claims that assign
    # people); it waits until none of those is deferred, so a merge never outruns its record.
    waiting_for_answers = False
    for action in plan.actions:
        if isinstance(action, PullRequestAction) and action.operation == "none":
            continue
        if (
            report.error is not None
            or len(report.done) >= budget
            or (isinstance(action, PullRequestAction) and waiting_for_answers)
        ):
            report.deferred.append(action)
            waiting_for_answers |= isinstance(action, AssignAction) or (
                isinstance(action, CommentAction) and action.topic == "command-reply"
            )
            continue
        try:
            number = _perform(action, port)
        except GitHubError as error:
            report.failed, report.error = action, error
            continue
        report.done.append(action)
        if isinstance(action, PullRequestAction):
            report.pull_request_number = number if number is not None else action.number
    return report


def _perform(action: Action, port: GitHubWriter) -> int | None:
    """Perform one write; the PR's number when the write is the regeneration PR."""
    if isinstance(action, CommentAction):
        port.comment(action)
    elif isinstance(action, ReactAction):
        port.react(action)
    elif isinstance(action, AssignAction):
        port.assign(action)
    else:
        return port.pull_request(action)
    return None
