"""Act: perform a plan's actions through the GitHub port, in order, within a write budget.

Before each comment, a port that can re-read markers (`MarkerRereader`) is asked whether the
comment's markers are on the issue already: then another run wrote it since this run read
GitHub, and this run stops writing, leaving the rest for the next run, which plans afresh.
A port that wants to know (`WriteAnnouncer`) is told every write the run may make, once, first.

Also whether a run its budget stopped with writes left asks for a follow-up run (its section below).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.github.actions import (
    NATIVE_KINDS,
    NATIVE_TOPICS,
    Action,
    AssignAction,
    CommentAction,
    CreateIssueAction,
    EditCommentAction,
    EditIssueAction,
    LabelAction,
    LinkAction,
    MergeOutcome,
    NativeNote,
    PullRequestAction,
    joins,
)
from bot.github.events import FollowUp
from bot.github.markers import markers_in
from bot.github.port import (
    GitHubError,
    GitHubWriter,
    LabelBatcher,
    MarkerRereader,
    NativeRefused,
    PacedWriter,
    PullHeadTeller,
    PullMerger,
    WriteAnnouncer,
)
from bot.reconcile.dashboard import named_pull
from bot.reconcile.labels_and_links import RECORD_TOPIC, REPOSTED_TOPICS
from bot.reconcile.plan import Plan
from bot.reconcile.schedule import is_write
from bot.timestamps import utc_stamp


@dataclass
class Report:
    """What a run did: the actions done, those left for the next run, and the write that failed."""

    done: list[Action] = field(default_factory=list)
    deferred: list[Action] = field(default_factory=list)
    failed: Action | None = None
    error: GitHubError | None = None
    # The regeneration PR this run created, updated or closed (a created PR's number is only known now).
    pull_request_number: int | None = None
    # The commit that write put at the head of the PR branch, from an adapter that tells it.
    pull_request_head: str | None = None
    # A comment another run wrote after this run read GitHub: this run wrote nothing from there on.
    superseded: CommentAction | None = None
    # Label and link writes GitHub refused for good: said once each, and the run went on.
    refused: list[NativeNote] = field(default_factory=list)
    # The dashboard issue this run opened (its number is only known now).
    dashboard_number: int | None = None
    # Deferred writes a later run can make (not those of a family GitHub refused this run).
    left: int = 0
    # What `pull_request.merge: auto` did with the PR this run wrote.
    merge: MergeOutcome | None = None


def _family(action: Action) -> str:
    """Writes GitHub refuses together: labels (and their creation), blocked-by links, sub-issue links."""
    if isinstance(action, LinkAction):
        return action.relation
    return "labels"


def apply(plan: Plan, port: GitHubWriter, budget: int) -> Report:
    """Perform each action the plan schedules for this run until the budget is spent or a write
    fails; what is left is safe to do next run because every action is keyed (markers, reactions,
    the PR branch, labels and links as GitHub shows them) and planned afresh.

    The budget counts requests: labels added to one issue one after another go in one request
    (`actions.joins`) to a port that takes them together. A port that paces its writes
    (`PacedWriter`) may leave the rest for the next run when its pacing would keep the run too long.

    A refused label or link write is not a failure: the rest of its family waits, the run goes on.
    The report is returned even when a write fails, so the caller can say what was done."""
    report = Report()
    later = {d.index for d in plan.deferred}
    if isinstance(port, WriteAnnouncer):
        port.before_writes([action for index, action in enumerate(plan.actions) if index not in later])
    # The PR carries commands whose replies record their decisions (and claims that assign
    # people); it waits until none of those is deferred, so a merge never outruns its record.
    waiting_for_answers = False
    refused: set[str] = set()
    native_left = False  # a label or link write of this run did not land: its comments wait
    spent = 0  # requests made
    batch = _batch(plan.actions, later) if isinstance(port, LabelBatcher) else {}
    for index, action in enumerate(plan.actions):
        if not is_write(action) or batch.get(index) == []:
            continue
        native = action.kind in NATIVE_KINDS
        if (
            index in later
            or report.error is not None
            or report.superseded is not None
            or spent >= budget
            or (isinstance(action, PullRequestAction) and waiting_for_answers)
            or (native and _family(action) in refused)
            or (isinstance(action, CommentAction | EditCommentAction) and action.topic in NATIVE_TOPICS and native_left)
            or (isinstance(port, PacedWriter) and not port.write_fits())
        ):
            together = [plan.actions[i] for i in batch.get(index, [index])]
            report.deferred += together
            if not (native and _family(action) in refused):
                report.left += len(together)
            native_left |= native
            waiting_for_answers |= isinstance(action, AssignAction) or (
                isinstance(action, CommentAction) and action.topic == "command-reply"
            )
            continue
        native_left |= _refused(plan, batch.get(index, [index]), port, report, refused)
        spent += 1
    return report


def _batch(actions: Sequence[Action], later: set[int]) -> dict[int, list[int]]:
    """Each request's first action -> the indexes of the actions it carries, the others -> []."""
    batch: dict[int, list[int]] = {}
    lead: int | None = None
    for index, action in enumerate(actions):
        if lead is not None and index not in later and joins(actions[lead], action):
            batch[lead].append(index)
            batch[index] = []
            continue
        lead = index if isinstance(action, LabelAction) and action.add and index not in later else None
        if lead is not None:
            batch[lead] = [index]
    return batch


def _refused(plan: Plan, carried: list[int], port: GitHubWriter, report: Report, refused: set[str]) -> bool:
    """One request: the actions at `carried` (one, or labels added together); the report says how
    it went. True when GitHub refused it for good (a label or a link: its family waits)."""
    action = plan.actions[carried[0]]
    together = [plan.actions[i] for i in carried]
    try:
        if isinstance(action, CommentAction) and _written_since(action, port):
            report.superseded = action
            report.deferred.append(action)
            return False
        if len(together) > 1 and isinstance(port, LabelBatcher):
            port.add_labels([a for a in together if isinstance(a, LabelAction)])
            number = None
        else:
            number = _perform(_naming_pull(action, report.pull_request_number), port)
    except NativeRefused as refusal:
        refused.add(_family(action))
        report.refused.append(NativeNote(kind="refused", detail=str(refusal)))
        report.deferred += together
        return True
    except GitHubError as error:
        report.failed, report.error = action, error
        return False
    report.done += together
    if isinstance(action, PullRequestAction):
        report.pull_request_number = number if number is not None else action.number
        report.pull_request_head = port.pull_head() if isinstance(port, PullHeadTeller) else None
        report.merge = _merged(action, report.pull_request_number, port)
    if isinstance(action, CreateIssueAction):
        report.dashboard_number = number
    return False


def _naming_pull(action: Action, number: int | None) -> Action:
    """The dashboard's write with the PR this run opened named by its number (the plan could not
    know it); every other write, and a dashboard write when no PR was written, as planned."""
    if number is None or not isinstance(action, CreateIssueAction | EditIssueAction):
        return action
    return action.model_copy(update={"body": named_pull(action.body, number)})


def _merged(action: PullRequestAction, number: int | None, port: GitHubWriter) -> MergeOutcome | None:
    """`merge: auto`: the PR this run opened or updated is merged, or set to merge itself. A merge
    GitHub refuses is a line in the run's results, not a failed run: the PR stays open as it was."""
    if action.merge != "auto" or action.operation not in ("create", "update") or number is None:
        return None
    if not isinstance(port, PullMerger):
        return MergeOutcome(status="not-merged", pull=number, line="this adapter cannot merge")
    try:
        return port.merge_pull(number)
    except GitHubError as error:
        return MergeOutcome(status="not-merged", pull=number, line=str(error))


def _written_since(action: CommentAction, port: GitHubWriter) -> bool:
    """Whether the comment is on its issue already (only a port that can re-read the bot's comments knows).

    A comment with a marker of its own was made when any comment carries that marker. A record
    (native links) is one living comment per program, edited in place; a new one is posted only
    when the run's read found none, so any record of its program on the issue now was posted since
    (by another run, or missed by a lagging list)."""
    if not isinstance(port, MarkerRereader):
        return False
    headers = port.headers_now(action.issue)
    mine = frozenset(markers_in(action.body))
    own = {(topic, key) for topic, key in mine if topic not in REPOSTED_TOPICS}
    if own:
        return any(own & header for header in headers)
    programs = {marker for marker in mine if marker[0] == RECORD_TOPIC}
    return any(programs & header for header in headers)


def _perform(action: Action, port: GitHubWriter) -> int | None:
    """Perform one write; the number of the PR or issue it made when it is the regeneration PR or
    the dashboard issue.

    An action's `kind` is the name of the writer's method that performs it (a unit test holds the
    two together), so a new kind of write is one action and one method, not another branch here."""
    write: Callable[[Action], int | None] = getattr(port, action.kind)
    number = write(action)
    return number if isinstance(action, PullRequestAction | CreateIssueAction) else None


# ------------------------------------------------------------------------------------------------
# Follow-up runs: a run its write budget stopped with writes left asks for the next run itself. Pure.
#
# A repository that switches on labels and links at a hundred times the seed plans thousands of
# writes; at one run a day, making them would take months. So a run that made writes and left
# some that a later run can make sends a `repository_dispatch` of type `perfbot-follow-up` (one
# of the two events a job's GITHUB_TOKEN may start a run with), which the workflow listens for.
# The follow-up plans afresh from GitHub, as every run does, and goes on at the pace the run
# before it left (the pacing section of `bot/github/live/client.py`), carried in the dispatch's
# `client_payload`: the workflow waits until `next_at` before the follow-up's writer job starts.
#
# A chain of follow-ups ends, and never loops. A run asks for one only when it made at least one
# write, failed no write, was not overtaken by another run, and left writes a later run can make.
# Each dispatch carries the number of the run it starts (`run`: the chain's first follow-up is 1)
# and the most runs the chain may reach (`runs_most`). A run derives that bound from what it
# leaves: at least one write per run, and `RUNS_PER_BUDGET` runs for each budget's worth of
# writes left (a run the pace cuts short writes less than its budget, and the writes of one run
# may uncover a few more, such as the comment that accounts for a link), and keeps the lower of
# its own and the one it was started with. So the bound never rises along a chain, while the run
# number rises by one each run: a chain is finite whatever its runs write or find, yet a chain
# that goes on writing is not stopped because one run's count of writes left did not fall
# (another write that run's writes uncovered, or a run the pace cut short). The workflow's
# concurrency group runs one at a time.
RUNS_PER_BUDGET = 2


def wanted(report: Report, started_by: FollowUp | None, budget: int) -> bool:
    """Whether this run asks for a follow-up (the chain's guard: see the section's comment)."""
    if report.error is not None or report.superseded is not None or not report.done or report.left == 0:
        return False
    run, most = chain_step(report, started_by, budget)
    return run <= most


def chain_step(report: Report, started_by: FollowUp | None, budget: int) -> tuple[int, int]:
    """The number of the follow-up this run would ask for, and the most runs its chain may reach."""
    run = 1 if started_by is None else started_by.run + 1
    own = run - 1 + RUNS_PER_BUDGET * math.ceil(report.left / max(budget, 1)) + 1
    carried = started_by.runs_most if started_by is not None else None
    return run, own if carried is None else min(own, carried)


def payload(
    report: Report,
    pace: tuple[list[dt.datetime], dt.datetime] | None,
    started_by: FollowUp | None,
    budget: int,
) -> dict[str, str]:
    """The dispatch's `client_payload`, text values: the writes left, the chain's step, and the pace
    (`events.follow_up`). Times are rounded up to the second: a request carried as later than it was
    never lets the next one out early."""
    run, most = chain_step(report, started_by, budget)
    carried = {"writes_left": str(report.left), "run": str(run), "runs_most": str(most)}
    if pace is not None:
        sent, next_at = pace
        carried["sent"] = ",".join(str(math.ceil(moment.timestamp())) for moment in sent)
        carried["next_at"] = utc_stamp(next_at + dt.timedelta(microseconds=-next_at.microsecond % 1_000_000))
    return carried
