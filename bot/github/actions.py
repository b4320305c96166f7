"""The words of a plan that the GitHub port speaks: each kind of write (an action), the topics of
perfbot's comments, and the records a plan reports beside them. Imports nothing else of `bot`, so
every package can name them, from the adapters that perform the writes up to the CLI.

Also how the regeneration PR merges itself: GitHub's merge rules as a pure choice (its section below).
"""

from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bot.issue_refs import IssueRef

# GitHub refuses an issue, comment or pull request body longer than this ("Validation Failed: body
# is too long (maximum is 65536 characters)"); every body perfbot writes stays within it.
GITHUB_BODY_LIMIT = 65_536

# Every topic of perfbot's comments; `TOPICS` below holds what each one is (a test holds the two equal).
Topic = Literal[
    "packet-ready",
    "lease-lost",
    "review-overdue",
    "issue-mismatch",
    "command-reply",
    "command-lapsed",
    "native-links",
    "native-restored",
]


# What a topic's comment is for: a `nudge` tells people on an issue that something changed (the
# action's `nudged-issues` output names the issues nudged); a `reply` answers a command comment; a
# `native` comment accounts for perfbot's labels and links (written with their writes).
TopicKind = Literal["nudge", "reply", "native"]


class TopicSpec(NamedTuple):
    """One comment topic: the template that words it, when perfbot writes it (docs/reference.md),
    and what kind of comment it is."""

    template: str
    meaning: str
    kind: TopicKind


# The topic registry: adding a topic is its word in `Topic` and its entry here, plus its template.
TOPICS: dict[Topic, TopicSpec] = {
    "packet-ready": TopicSpec(
        "comments/packet-ready.md.j2",
        "on a packet's issue, once per episode, when its derived state (merged plus live: the default branch's "
        "snapshot with the live leases and issues) becomes `ready` from the waiting state perfbot last told, "
        "whether the default branch or its open PR recorded it; not while a change waiting in the PR makes it "
        "anything but `ready` (what that change makes true is told when it merges): why (dependencies met, lease "
        "released), its next action and exit condition",
        "nudge",
    ),
    "lease-lost": TopicSpec(
        "comments/lease-lost.md.j2",
        "on a packet's issue, once per episode, when a `running` packet's issue no longer holds a live lease; "
        "not when a command waiting in the PR completes or holds it",
        "nudge",
    ),
    "review-overdue": TopicSpec(
        "comments/review-overdue.md.j2",
        "on a constraint's review issue, once per `review_by` date, when today (UTC) is past it",
        "nudge",
    ),
    "issue-mismatch": TopicSpec(
        "comments/issue-mismatch.md.j2",
        "on an issue closed while its packet is not complete, or reopened while it is complete, naming the merged"
        " state its labels show; nothing is changed",
        "nudge",
    ),
    "command-reply": TopicSpec(
        "comments/command-reply.md.j2",
        "the answer to a comment with something to read (a refusal with its reason and 😕, a malformed line, a"
        " `why` or `help` answer, a `drop`'s list), one line per command; its author is @-mentioned only for a"
        " refusal. A comment whose commands were all accepted gets 🚀 alone (`commands.replies: all`: a reply"
        " to every command comment). Edited in place when its author edits a comment nothing of which was"
        " accepted, which is decided again",
        "reply",
    ),
    "command-lapsed": TopicSpec(
        "comments/command-lapsed.md.j2",
        "when an applied command no longer applies to the default branch's snapshot, or its author no longer "
        "has the permission it needs, so the PR leaves it out",
        "reply",
    ),
    "native-links": TopicSpec(
        "comments/native-links.md.j2",
        "on a program's umbrella issue (`authority_issue`): one living comment per program, edited in place when the "
        "native links perfbot keeps for it change (none when they do not; posted again once if it was deleted): each "
        "kept link and why, and the last change, each link added or removed with its cause (a dependency met, a "
        "blocker's lease released, a packet complete or moved, the snapshot no longer naming it); its markers are "
        "perfbot's record of the links it owns",
        "native",
    ),
    "native-restored": TopicSpec(
        "comments/native-restored.md.j2",
        "on an issue whose state label or perfbot link a person took off, just before perfbot puts it back: what, "
        "and that the snapshot and the evidence decide; once for each removal (a marker per label and link)",
        "native",
    ),
}
ReactionContent = Literal["eyes", "rocket", "confused"]
PullOperation = Literal["create", "update", "close", "none"]
# `blocked_by`: `issue` is natively blocked by `target`; `sub_issue`: `issue` is a sub-issue of `target`.
LinkRelation = Literal["blocked_by", "sub_issue"]


class Frozen(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")


class CommentAction(Frozen):
    kind: Literal["comment"] = "comment"
    issue: IssueRef
    topic: Topic
    body: str


class EditCommentAction(Frozen):
    """Edit one of perfbot's own comments in place: a living comment (a record, not an event) whose
    text changed. Repeatable: the same body twice is one edit."""

    kind: Literal["edit_comment"] = "edit_comment"
    issue: IssueRef
    comment_id: int
    topic: Topic
    body: str


class ReactAction(Frozen):
    kind: Literal["react"] = "react"
    issue: IssueRef
    comment_id: int
    content: ReactionContent
    # Take perfbot's own reaction back: the 👀 of a comment answered quietly after all (a run under
    # `replies: all` stopped after it, and the config says `errors` since), which would say for ever
    # that its answer is still to come.
    remove: bool = Field(default=False, exclude_if=lambda value: not value)


class AssignAction(Frozen):
    kind: Literal["assign"] = "assign"
    issue: IssueRef
    login: str
    add: bool


class PullRequestAction(Frozen):
    kind: Literal["pull_request"] = "pull_request"
    operation: PullOperation
    number: int | None = None
    branch: str
    title: str = ""
    body: str = ""
    files: dict[str, str] = {}
    note: str = ""
    # The open PR's branch carries commits perfbot did not make: perfbot leaves the PR as it is, and
    # the surfaces say what a person does next (merge or close it, or take the commits off).
    held: bool = Field(default=False, exclude_if=lambda value: not value)
    # A person edited inside perfbot's part of the PR's body: this update writes perfbot's part again
    # over that edit (people's text above and below the part is kept), and the surfaces say so.
    replaced: bool = Field(default=False, exclude_if=lambda value: not value)
    # perfbot's part of the PR's body does not fit beside what people wrote there (GitHub's 65,536
    # characters): the body is left as they wrote it, and perfbot's commit alone keeps the records.
    crowded: bool = Field(default=False, exclude_if=lambda value: not value)
    # Why the branch starts again from the default branch's tip, leaving commits behind (people's,
    # after their PR was merged or closed); "" when nothing is left behind.
    restarted: str = Field(default="", exclude_if=lambda value: not value)
    # Open PRs from forks whose branch has perfbot's branch name: not perfbot's, so left alone.
    forks: tuple[int, ...] = Field(default=(), exclude_if=lambda value: not value)
    # `auto` (`pull_request.merge`): once written, the PR is merged, or set to merge itself.
    merge: Literal["manual", "auto"] = Field(default="manual", exclude_if=lambda value: value == "manual")
    # What a PR perfbot opens starts with (`pull_request` in the config); written only by `create`.
    labels: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    reviewers: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    team_reviewers: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    draft: bool = Field(default=False, exclude_if=lambda value: not value)
    # `pull_request.delete_branch`: the branch's head commit (perfbot's) when the branch is deleted
    # after this action, no PR of it being open then; deleted only while it still points there.
    delete_head: str | None = Field(default=None, exclude_if=lambda value: value is None)
    # The head of the branch the plan was decided on: the branch moves, and the PR is written, only
    # while it is still there (another run that wrote since decided on more). None: not checked.
    expected_head: str | None = Field(default=None, exclude=True)
    # The records of quiet answers (`commands.records`), kept in the message of the commit too, where
    # no edit of the PR's body reaches them (in the plan, they are in the body's header already).
    records: tuple[str, ...] = Field(default=(), exclude=True)

    def commit_message(self, message: str) -> str:
        """`message`, with a trailer per record after a blank line."""
        if not self.records:
            return message
        return message.rstrip("\n") + "\n\n" + "".join(f"{RECORD_TRAILER}: {r}\n" for r in self.records)


# The git trailer that carries a record of a quiet answer in the message of perfbot's commit.
RECORD_TRAILER = "Perfbot-Decision"


class IgnoredRecord(Frozen):
    """A record or marker perfbot did not count, as someone other than perfbot may have written it:
    where it was (`pull-body`: the regeneration PR's body; `commit`: the message of perfbot's commit on
    its branch; `comment`: one of perfbot's comments),
    the comment it names or is, and why."""

    where: Literal["pull-body", "commit", "comment"]
    comment_id: int
    reason: str


class LabelAction(Frozen):
    """Add or remove one of perfbot's state labels on an issue."""

    kind: Literal["label"] = "label"
    issue: IssueRef
    name: str
    add: bool


class CreateLabelAction(Frozen):
    """Create a state label the repository lacks, with its colour and description (once)."""

    kind: Literal["create_label"] = "create_label"
    name: str
    color: str
    description: str
    # Another repository the snapshot's issues are in; absent: the bot's own.
    repository: str | None = Field(default=None, exclude_if=lambda value: value is None)


class LinkAction(Frozen):
    """Add or remove a native link: `issue` blocked by `target`, or `issue` a sub-issue of `target`."""

    kind: Literal["link"] = "link"
    relation: LinkRelation
    issue: IssueRef
    target: IssueRef
    add: bool


# The dashboard issue's writes: perfbot opens the issue once, then edits its body in place.
class CreateIssueAction(Frozen):
    """Open an issue with a title, a body and labels (the dashboard); not repeatable: the next run
    finds a created issue by its label and the marker its body starts with."""

    kind: Literal["create_issue"] = "create_issue"
    title: str
    body: str
    labels: tuple[str, ...] = ()


class EditIssueAction(Frozen):
    """Replace the body of an issue perfbot opened (repeatable: the same body twice is one state)."""

    kind: Literal["edit_issue"] = "edit_issue"
    issue: int
    body: str


DashboardStatus = Literal["created", "edited", "unchanged", "closed"]


class DashboardReport(Frozen):
    """What a run does with the dashboard issue, and what its body left out to fit."""

    status: DashboardStatus
    issue: int | None = None
    chars: int
    # What the body leaves out to fit GitHub's limit, by section ("graphs", "waiting", ...).
    omitted: dict[str, int] = Field(default={}, exclude_if=lambda value: not value)
    # Other open issues that carry the dashboard's marker (a duplicate): left alone.
    others: tuple[int, ...] = Field(default=(), exclude_if=lambda value: not value)


Action = Annotated[
    CommentAction
    | EditCommentAction
    | ReactAction
    | AssignAction
    | PullRequestAction
    | LabelAction
    | CreateLabelAction
    | LinkAction
    | CreateIssueAction
    | EditIssueAction,
    Field(discriminator="kind"),
]
# The dashboard's writes (tier: with the nudges, after the answers and the regeneration PR).
DASHBOARD_KINDS = frozenset({"create_issue", "edit_issue"})
# The writes on labels and links: the lowest priority of a run.
NATIVE_KINDS = frozenset({"label", "create_label", "link"})


def joins(previous: Action | None, action: Action) -> bool:
    """Whether `action` goes in the same request as `previous`, the write just before it: both add
    labels to one issue, and GitHub's "Add labels to an issue" takes several names in one POST."""
    return (
        isinstance(previous, LabelAction)
        and isinstance(action, LabelAction)
        and previous.add
        and action.add
        and previous.issue == action.issue
    )


# Comments that account for native writes: the record (native-links) is written only once every
# native write of the run landed; an explanation (native-restored) just before the writes it explains.
NATIVE_TOPICS = frozenset(topic for topic, spec in TOPICS.items() if spec.kind == "native")
# The comments that tell people something changed (not replies to commands, not records of links).
NUDGE_TOPICS = frozenset(topic for topic, spec in TOPICS.items() if spec.kind == "nudge")
# The answers to command comments (tier: first of a run).
REPLY_TOPICS = frozenset(topic for topic, spec in TOPICS.items() if spec.kind == "reply")
# Topics that are records rather than events: one living comment each, edited in place when what
# it records changes (none when nothing does), posted again once if it was deleted.
LIVING_TOPICS: frozenset[Topic] = frozenset({"native-links"})


NoteKind = Literal["umbrella", "other-parent", "cycle", "unavailable", "refused", "invalid-proposal", "sub-issue-cap"]


class NativeNote(Frozen):
    """Something perfbot did not do on GitHub's labels or links, and why; templates word it."""

    kind: NoteKind
    issue: IssueRef = 0
    packet: str = ""
    other: IssueRef = 0
    detail: str = ""


class Proposal(Frozen):
    """A person's native link that the snapshot lacks, proposed as a `blocked_by_ids` entry."""

    packet: str
    blocker: str
    issue: IssueRef
    target: IssueRef


class Deferral(Frozen):
    """An action the write budget leaves for the next run (`index` into `Plan.actions`), and why."""

    index: int
    reason: str


class OverdueReview(Frozen):
    constraint: str
    review_by: str
    issue: IssueRef | None


class ReadbackTime(Frozen):
    """When a published readback was read back on the fleet host, and whether that is too long ago."""

    at: str
    # Minutes from the readback to this run (negative when the readback is after this run's clock).
    age_minutes: int
    max_age_minutes: int
    # Older than `max_age_minutes`: a warning; its leases still count (fail closed).
    stale: bool


class LeaseReport(Frozen):
    file: str
    format: str
    live: int
    # Of `live`, those open pull requests hold (`leases.sources: [pull-requests]`); absent when none.
    pulls: int = Field(default=0, exclude_if=lambda value: value == 0)
    stale: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    # Only a published readback carries its time, so plans of the other formats stay as they were.
    readback: ReadbackTime | None = Field(default=None, exclude_if=lambda value: value is None)


class TipReport(Frozen):
    """The run decided on the default branch's tip, whose files differ from the local checkout."""

    oid: str
    files: tuple[str, ...]


# ------------------------------------------------------------------------------------------------
# How the regeneration PR merges itself (`pull_request.merge: auto`): GitHub's rules as a pure choice.
#
# GitHub's own merge rules decide, read from the PR's `mergeStateStatus` (GraphQL, "Detailed
# information about the current pull request merge state status") and the repository's settings:
#
# - `CLEAN` ("mergeable and passing commit status"), `HAS_HOOKS` and `UNSTABLE` ("mergeable with
#   non-passing commit status": a check that is not required failed): GitHub merges it now, so
#   perfbot merges it directly (`PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` with the head
#   `sha` it wrote). GitHub refuses to arm auto-merge on such a PR ("Pull request is in clean
#   status"): there is nothing to wait for.
# - `BLOCKED` ("the merge is blocked": a required check has not passed, or a required review is
#   missing): GitHub's native auto-merge (`enablePullRequestAutoMerge`, with `expectedHeadOid`)
#   merges it once the requirements are met, when the repository allows auto-merge
#   (`autoMergeAllowed`). A PR opened with Actions' `GITHUB_TOKEN` starts no workflow, so its
#   required checks never run and it waits until a person pushes, re-runs or merges; a GitHub App's
#   token starts them (docs/reference.md, *A PR that merges itself*).
# - `BEHIND` (the branch must be up to date with its base), `DIRTY` (conflicts) and a draft: neither
#   is allowed; the next run rebuilds the PR on the new tip.
# - `UNKNOWN` ("the state cannot currently be determined": GitHub computes mergeability after a
#   push): read again after a pause, a few times; then auto-merge is tried when allowed, else a
#   direct merge, and GitHub's refusal is the line said.
#
# The merge method is the first the repository allows of merge commit, squash and rebase.

MergeMethod = Literal["MERGE", "SQUASH", "REBASE"]
METHODS: tuple[MergeMethod, ...] = ("MERGE", "SQUASH", "REBASE")
# Mergeable now: GitHub merges these directly, and refuses to arm auto-merge on them.
MERGEABLE_NOW = frozenset({"CLEAN", "HAS_HOOKS", "UNSTABLE"})
# Where GitHub's setting lives, for the line said when auto-merge would be needed.
AUTO_MERGE_SETTING = "Settings → General → Pull Requests → Allow auto-merge"


class MergeFacts(NamedTuple):
    """What GitHub says of the PR and its repository, read just after perfbot wrote the PR."""

    state: str  # mergeStateStatus
    auto_merge_allowed: bool
    methods: tuple[MergeMethod, ...]  # those the repository allows, in METHODS' order
    armed: bool  # auto-merge is enabled on it already
    draft: bool = False


class MergeStep(NamedTuple):
    """What to do: merge now, arm GitHub's auto-merge, wait and read again, or nothing (`line` says why)."""

    kind: Literal["merge", "auto", "again", "none"]
    method: MergeMethod | None = None
    line: str = ""


class MergeOutcome(BaseModel):
    """What `merge: auto` did with the PR: merged it, turned on auto-merge, or neither (`line`: why)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    status: Literal["merged", "auto-merge", "not-merged"]
    pull: int
    method: MergeMethod | None = None
    line: str = ""

    def said(self) -> str:
        """The outcome in one line, for the run's log and the job summary."""
        how = {"MERGE": "a merge commit", "SQUASH": "squash", "REBASE": "rebase"}.get(self.method or "", "")
        if self.status == "merged":
            return f"merged PR #{self.pull} ({how})"
        if self.status == "auto-merge":
            return f"turned on auto-merge for PR #{self.pull} ({how}): GitHub merges it when its required checks pass"
        return f"PR #{self.pull} not merged: {self.line}"


def choose(facts: MergeFacts, reads_left: int) -> MergeStep:
    """The one step GitHub's rules allow for a PR in `facts` (see the module's docstring)."""
    if not facts.methods:
        return MergeStep("none", line="the repository allows no merge method")
    method = facts.methods[0]
    if facts.draft:
        return MergeStep("none", line="it is a draft")
    if facts.state in MERGEABLE_NOW:
        return MergeStep("merge", method)
    if facts.state == "UNKNOWN" and reads_left > 0:
        return MergeStep("again")
    if facts.state in ("BLOCKED", "UNKNOWN"):
        if facts.armed:
            return MergeStep("none", line="auto-merge is on already: GitHub merges it when its requirements are met")
        if facts.auto_merge_allowed:
            return MergeStep("auto", method)
        if facts.state == "UNKNOWN":
            return MergeStep("merge", method)
        return MergeStep(
            "none",
            line="the default branch requires checks or reviews it has not passed, and the repository does not "
            f"allow auto-merge ({AUTO_MERGE_SETTING})",
        )
    if facts.state == "BEHIND":
        return MergeStep("none", line="the default branch requires it to be up to date, and it is behind")
    if facts.state == "DIRTY":
        return MergeStep("none", line="it conflicts with the default branch")
    return MergeStep("none", line=f"GitHub gives its merge state as {facts.state}")


def allowed_methods(merge_commit: bool, squash: bool, rebase: bool) -> tuple[MergeMethod, ...]:
    flags = {"MERGE": merge_commit, "SQUASH": squash, "REBASE": rebase}
    return tuple(method for method in METHODS if flags[method])
