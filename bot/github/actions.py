"""The words of a plan that the GitHub port speaks: each kind of write (an action), the topics of
perfbot's comments, and the records a plan reports beside them. Imports nothing else of `bot`, so
every package can name them, from the adapters that perform the writes up to the CLI."""

from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

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


class TopicSpec(NamedTuple):
    """One comment topic: the template that words it, and when perfbot writes it (docs/reference.md)."""

    template: str
    meaning: str


# The topic registry: adding a topic is its word in `Topic` and its entry here, plus its template.
TOPICS: dict[Topic, TopicSpec] = {
    "packet-ready": TopicSpec(
        "comments/packet-ready.md.j2",
        "on a packet's issue, once per episode, when its derived state becomes `ready` from a waiting state: why "
        "(dependencies met, lease released), its next action and exit condition",
    ),
    "lease-lost": TopicSpec(
        "comments/lease-lost.md.j2",
        "on a packet's issue, once per episode, when a `running` packet's issue no longer holds a live lease",
    ),
    "review-overdue": TopicSpec(
        "comments/review-overdue.md.j2",
        "on a constraint's review issue, once per `review_by` date, when today (UTC) is past it",
    ),
    "issue-mismatch": TopicSpec(
        "comments/issue-mismatch.md.j2",
        "on an issue closed while its packet is not complete, or reopened while it is complete, naming the merged"
        " state its labels show; nothing is changed",
    ),
    "command-reply": TopicSpec(
        "comments/command-reply.md.j2",
        "the answer to a comment with something to read (a refusal with its reason and 😕, a malformed line, a"
        " `why` or `help` answer, a `drop`'s list), one line per command; its author is @-mentioned only for a"
        " refusal. A comment whose commands were all accepted gets 🚀 alone (`commands.replies: all`: a reply"
        " to every command comment)",
    ),
    "command-lapsed": TopicSpec(
        "comments/command-lapsed.md.j2",
        "when an applied command no longer applies to the default branch's snapshot, so the PR leaves it out",
    ),
    "native-links": TopicSpec(
        "comments/native-links.md.j2",
        "on a program's umbrella issue (`authority_issue`), whenever the native links perfbot keeps for the program "
        "change: each kept link and why, and those it removed; its markers are perfbot's record of the links it owns",
    ),
    "native-restored": TopicSpec(
        "comments/native-restored.md.j2",
        "on an issue whose state label or perfbot link a person took off, when perfbot puts it back: what, and that "
        "the snapshot and the evidence decide",
    ),
}
ReactionContent = Literal["eyes", "rocket", "confused"]
PullOperation = Literal["create", "update", "close", "none"]
# `blocked_by`: `issue` is natively blocked by `target`; `sub_issue`: `issue` is a sub-issue of `target`.
LinkRelation = Literal["blocked_by", "sub_issue"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CommentAction(Frozen):
    kind: Literal["comment"] = "comment"
    issue: int
    topic: Topic
    body: str


class ReactAction(Frozen):
    kind: Literal["react"] = "react"
    issue: int
    comment_id: int
    content: ReactionContent


class AssignAction(Frozen):
    kind: Literal["assign"] = "assign"
    issue: int
    login: str
    add: bool
    # A quiet answer's assignment waits for the PR that records its comment (`outbox`): made
    # first, it could change who may use the comment's other commands before they are recorded.
    after_pull: bool = Field(default=False, exclude_if=lambda after: not after)


class PullRequestAction(Frozen):
    kind: Literal["pull_request"] = "pull_request"
    operation: PullOperation
    number: int | None = None
    branch: str
    title: str = ""
    body: str = ""
    files: dict[str, str] = {}
    note: str = ""
    # Open PRs from forks whose branch has perfbot's branch name: not perfbot's, so left alone.
    forks: tuple[int, ...] = Field(default=(), exclude_if=lambda value: not value)


class LabelAction(Frozen):
    """Add or remove one of perfbot's state labels on an issue."""

    kind: Literal["label"] = "label"
    issue: int
    name: str
    add: bool


class CreateLabelAction(Frozen):
    """Create a state label the repository lacks, with its colour and description (once)."""

    kind: Literal["create_label"] = "create_label"
    name: str
    color: str
    description: str


class LinkAction(Frozen):
    """Add or remove a native link: `issue` blocked by `target`, or `issue` a sub-issue of `target`."""

    kind: Literal["link"] = "link"
    relation: LinkRelation
    issue: int
    target: int
    add: bool


Action = Annotated[
    CommentAction | ReactAction | AssignAction | PullRequestAction | LabelAction | CreateLabelAction | LinkAction,
    Field(discriminator="kind"),
]
# The writes on labels and links: the lowest priority of a run.
NATIVE_KINDS = frozenset({"label", "create_label", "link"})
# Comments that account for native writes: posted only once every native write of the run landed.
NATIVE_TOPICS = frozenset({"native-links", "native-restored"})


NoteKind = Literal["umbrella", "other-parent", "cycle", "unavailable", "refused", "invalid-proposal"]


class NativeNote(Frozen):
    """Something perfbot did not do on GitHub's labels or links, and why; templates word it."""

    kind: NoteKind
    issue: int = 0
    packet: str = ""
    other: int = 0
    detail: str = ""


class Proposal(Frozen):
    """A person's native link that the snapshot lacks, proposed as a `blocked_by_ids` entry."""

    packet: str
    blocker: str
    issue: int
    target: int


class Deferral(Frozen):
    """An action the write budget leaves for the next run (`index` into `Plan.actions`), and why."""

    index: int
    reason: str


class OverdueReview(Frozen):
    constraint: str
    review_by: str
    issue: int | None


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
    stale: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    # Only a published readback carries its time, so plans of the other formats stay as they were.
    readback: ReadbackTime | None = Field(default=None, exclude_if=lambda value: value is None)


class TipReport(Frozen):
    """The run decided on the default branch's tip, whose files differ from the local checkout."""

    oid: str
    files: tuple[str, ...]
