"""The write budget: which of a plan's writes this run makes, in which order, and why the rest wait. Pure.

Writes go in four tiers. First the answers to commands (👀, the replies that record each
decision, assignments, lapsed notices), keeping one write for the regeneration PR; then the PR;
then the other reactions, the nudges and the dashboard issue; last the labels, the links and the comments that
account for them. While an answer waits for the next run, so does everything after it: the PR
carries the commands the answers record, a 🚀 says a comment is fully answered, and a later
write must not take an earlier one's place (comments are numbered in the order they are made,
so bounded runs end exactly where one unbounded run ends). So within any budget of at least 3,
a run that writes the last answer also writes the PR, and a label or a link never takes the
place of a reply or the PR. A budget of 1 keeps nothing for the PR: each run writes one answer,
and the PR once none waits.

A write is a request: labels added to one issue one after another go in one request
(`actions.joins`) and spend one write of the budget together.
"""

from __future__ import annotations

from bot.github.actions import (
    NATIVE_KINDS,
    NATIVE_TOPICS,
    REPLY_TOPICS,
    Action,
    AssignAction,
    CommentAction,
    Deferral,
    EditCommentAction,
    PullRequestAction,
    ReactAction,
    joins,
)

ANSWERS, PULL, NUDGES, NATIVE = range(4)
REASONS = {
    ANSWERS: "write budget: answers to commands come first, with one write kept for the regeneration PR",
    PULL: "the regeneration PR waits for the answers the budget leaves for the next run: it carries their commands",
    NUDGES: "write budget: reactions and nudges come after the answers and the regeneration PR",
    -1: "waits for the answers the budget leaves for the next run: nothing is written after an answer that waits",
    NATIVE: "write budget: labels and links come last",
}


def tier(action: Action) -> int:
    if isinstance(action, PullRequestAction):
        return PULL
    if action.kind in NATIVE_KINDS or (
        isinstance(action, CommentAction | EditCommentAction) and action.topic in NATIVE_TOPICS
    ):
        return NATIVE
    if isinstance(action, AssignAction):
        # After the PR, which records quiet answers: an assignment made first could change who may
        # use a command (an assignee's `block`) before the record of it is written.
        return NUDGES
    if isinstance(action, ReactAction):
        return ANSWERS if action.content == "eyes" and not action.remove else NUDGES
    if isinstance(action, CommentAction | EditCommentAction) and action.topic in REPLY_TOPICS:
        return ANSWERS  # a reply edited in place to the decision on an edited comment, too
    return NUDGES  # the other reactions, the nudges and the dashboard's writes (`DASHBOARD_KINDS`)


def is_write(action: Action) -> bool:
    return not (isinstance(action, PullRequestAction) and action.operation == "none" and action.delete_head is None)


def schedule(actions: list[Action], budget: int | None) -> tuple[list[Action], list[Deferral]]:
    """The actions in the order they are written, and those the budget leaves for the next run."""
    ordered = sorted(actions, key=tier)  # stable: each tier keeps the order it was planned in
    if budget is None:
        return ordered, []
    pull_writes = any(isinstance(a, PullRequestAction) and is_write(a) for a in ordered)
    # One write kept for the PR, unless that would leave the answers none: a budget of 1 answers one
    # comment a run, and the PR follows once no answer waits (never a run that writes nothing).
    kept = 1 if pull_writes and budget > 1 else 0
    room = budget
    deferred: list[Deferral] = []
    answers_wait = False
    previous: Action | None = None  # the write before this one, when it is made this run
    for index, action in enumerate(ordered):
        if not is_write(action):
            continue
        level = tier(action)
        joined = joins(previous, action)
        if level == ANSWERS:
            fits = room - kept > 0
            answers_wait |= not fits
        else:
            fits = (joined or room > 0) and not answers_wait
        previous = action if fits else None
        if fits:
            room -= 0 if joined else 1
        else:
            why = level if level in (ANSWERS, PULL) or not answers_wait else -1
            deferred.append(Deferral(index=index, reason=REASONS[why]))
    return ordered, deferred
