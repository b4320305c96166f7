"""The plan: the actions that bring GitHub in line, each packet's derivation, and what the run
saw (the plan JSON). It carries derivations, so it sits above `evidence`; the actions it holds are
the port's words (`bot.github.actions`)."""

from pydantic import Field

from bot.evidence.derive import Derivation
from bot.github.actions import (
    Action,
    CommentAction,
    DashboardReport,
    Deferral,
    Frozen,
    IgnoredRecord,
    LeaseReport,
    MergeOutcome,
    NativeNote,
    OverdueReview,
    Proposal,
    PullRequestAction,
    TipReport,
)
from bot.github.events import Trigger
from bot.reconcile.changes import Change
from bot.reconcile.reach import Unreachable
from bot.snapshot.model import WorkState


class Plan(Frozen):
    now: str
    actions: tuple[Action, ...]
    packets: tuple[Derivation, ...]
    overdue: tuple[OverdueReview, ...] = ()
    # Constraints whose review nudge has nowhere to go (no `review_issue`, no `#N` in the owner).
    unrouted_reviews: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    leases: LeaseReport
    commands: tuple[dict[str, object], ...] = ()
    # (comment id, line) of the commands this run decided or acted on; the job summary lists these
    # alone (the others were listed by the run that decided them). Not in the JSON.
    this_run: tuple[tuple[int, int], ...] = Field(default=(), exclude=True)
    # Requests made, by kind (`graphql`, `rest_read`, `rest_write`); set by a live run.
    api: dict[str, int] = Field(default_factory=dict)
    trigger: Trigger | None = None
    # Set only when the tip's files were used, so offline plans stay as they were.
    decided_on: TipReport | None = Field(default=None, exclude_if=lambda value: value is None)
    # Why the PR must not be proposed (`reconcile.proposal`); the PR action's note says so in the
    # JSON, and the CLI writes nothing and exits 1. Left out of the JSON, which it would change.
    refusal: str = Field(default="", exclude=True)
    # Actions the write budget leaves for the next run, and why (absent when none is).
    deferred: tuple[Deferral, ...] = Field(default=(), exclude_if=lambda value: not value)
    # What perfbot did not do on GitHub's labels and links, and why (skipped packets, refusals).
    native_notes: tuple[NativeNote, ...] = Field(default=(), exclude_if=lambda value: not value)
    # Each label and link switch of the config that is off, and the writes turning it on would
    # add to this run's plan (absent when every one is on).
    switched_off: dict[str, int] = Field(default_factory=dict, exclude_if=lambda value: not value)
    # People's native links proposed as `blocked_by_ids` entries in the regeneration PR.
    proposals: tuple[Proposal, ...] = Field(default=(), exclude_if=lambda value: not value)
    # The run's story for the job summary, left out of the JSON (its `packets` say the PR's states):
    # each packet's merged state (the default branch's snapshot with the live leases and issues),
    # the state the PR gives each packet it changes, and every change of the PR's diff.
    merged: tuple[Derivation, ...] = Field(default=(), exclude=True)
    # Comments this run read and found to hold no command: a port that remembers reads
    # (`port.ReadMemory`) does not have them read again until they are edited.
    commandless: tuple[int, ...] = Field(default=(), exclude=True)
    pending: dict[str, WorkState] = Field(default_factory=dict, exclude=True)
    changes: tuple[Change, ...] = Field(default=(), exclude=True)
    # Records and markers not counted because someone other than perfbot wrote or edited them.
    ignored_records: tuple[IgnoredRecord, ...] = Field(default=(), exclude_if=lambda value: not value)
    # What `pull_request.merge: auto` did with the PR the run wrote (absent otherwise, and in a dry run).
    merge: MergeOutcome | None = Field(default=None, exclude_if=lambda value: value is None)
    # Other repositories the token cannot write (or read), each with the writes withheld there
    # (absent when the snapshot names none, or the token can write every one).
    unreachable: tuple[Unreachable, ...] = Field(default=(), exclude_if=lambda value: not value)
    # The dashboard issue: what this run does with it (absent when the dashboard is off).
    dashboard: DashboardReport | None = Field(default=None, exclude_if=lambda value: value is None)

    def pull_request(self) -> PullRequestAction:
        return next(a for a in self.actions if isinstance(a, PullRequestAction))

    def deferred_reasons(self) -> dict[int, str]:
        """Why each deferred action waits, by its index in `actions`."""
        return {d.index: d.reason for d in self.deferred}

    def comments(self) -> list[CommentAction]:
        return [a for a in self.actions if isinstance(a, CommentAction)]
