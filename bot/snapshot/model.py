"""The typed snapshot: upstream schema /2, the completion extension, levers and our additions."""

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from pydantic import ConfigDict, Field, StrictInt, StrictStr

from bot.issue_refs import IssueRef
from bot.snapshot.fields import ConstraintIds, HumanName, Ids, IsoDate, Model
from bot.snapshot.sections import Collision, Lever, OSSRoute, OSSState, OSSWalkStep, ReadyWave
from bot.untrusted import neutral

__all__ = ["Collision", "Lever", "OSSRoute", "OSSState", "OSSWalkStep", "ReadyWave"]

SCHEMA_ID = "fak-native-performance-current/2"
# Upstream's older schema: constraints, waves, collisions and the OSS walk, no programs or packets,
# four constraint states; its page has its own layout (`templates/page-schema-1.md.j2`).
SCHEMA_ONE = "fak-native-performance-current/1"
SCHEMA_IDS = (SCHEMA_ID, SCHEMA_ONE)

ConstraintType = Literal["correctness", "evidence", "dependency", "capacity", "coordination"]
ConstraintHorizon = Literal["transient", "semi-durable", "structural"]
ConstraintState = Literal[
    "ready",
    "waiting-evidence",
    "waiting-dependency",
    "waiting-coordination",
    "held-correctness",
    "capacity-bound",
]
WorkState = Literal[
    "running",
    "ready",
    "waiting-dependency",
    "waiting-coordination",
    "waiting-evidence",
    "capacity-hold",
    "complete",
]
WORK_STATES: tuple[WorkState, ...] = get_args(WorkState)
# States that change only by a person's decision, never by derivation.
DECIDED_STATES: frozenset[str] = frozenset({"complete", "capacity-hold", "waiting-evidence"})
REQUIRED_OSS_STATES: tuple[str, ...] = (
    "watch",
    "candidate",
    "studied",
    "mapped",
    "mapped-needs-limiter",
    "experimenting",
    "kept",
    "rejected",
)


class EvidenceRef(Model):
    class_: StrictStr = Field(
        alias="class",
        description="Kind of evidence (open vocabulary), e.g. `live-readback`, `issue`, `contract`, `open`, "
        "`control-loop`, `witnessed-refusal`, `accepted`, `approximate`, `hypothesis`, `diagnostic`.",
    )
    summary: StrictStr = Field(description="What the evidence shows, in one line.")
    ref: StrictStr = Field(description="Where it is: a URL, a repository path (#anchor), or free text.")

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, populate_by_name=True)


class Named(Model):
    """A record people refer to by its id and read by its name; each kind's description gives an id."""

    id: StrictStr = Field(description="Stable id, unique among records of its kind (see the kind's example).")
    name: HumanName


class Constraint(Named):
    """What limits an outcome now; an id looks like `cuda-cold-decode`."""

    type: ConstraintType = Field(description="What kind of limit this is.")
    horizon: ConstraintHorizon = Field(description="Whether time alone may clear it.")
    state: ConstraintState = Field(description="The constraint's current state.")
    observed_at: IsoDate = Field(description="When the driver was observed (YYYY-MM-DD).")
    review_by: IsoDate = Field(
        description="Staleness deadline (YYYY-MM-DD), not before `observed_at` nor `as_of`; perfbot comments on "
        "the review issue once the day has passed."
    )
    evidence: tuple[EvidenceRef, ...] = Field(default=(), description="At least one evidence item.")
    envelope: StrictStr = Field(description="The envelope id the constraint is measured in, or `portfolio`.")
    driver: StrictStr = Field(description="Why the outcome is limited now.")
    authority_owner: StrictStr = Field(
        description="Who owns it, free text; when `review_issue` is unset, its first issue reference (`#N`, "
        "`owner/repo#N` or an issue URL) is the review issue (as snapshots written before `review_issue` have it)."
    )
    next_action: StrictStr = Field(description="The next step.")
    exit_when: StrictStr = Field(description="The checkable condition that retires the constraint.")
    ready_lever_ids: Ids = Field(
        default=(), description="Dependency-ready levers shown with the constraint; each must be a ready lever."
    )
    review_issue: IssueRef | None = Field(
        default=None,
        description="The issue (`#N`, `owner/repo#N` or an issue URL) perfbot comments on when the constraint "
        "is past `review_by` (`perfbot init` writes one). Unset: the first issue reference of `authority_owner`; "
        "with neither, the review nudge has nowhere to go, "
        "and the plan and the dashboard list the constraint.",
    )


class Program(Named):
    """A program of work against constraints; an id looks like `mac-top10`."""

    authority_issue: IssueRef = Field(
        description="The umbrella issue: a number (> 0) in this repository, `owner/repo#N` or an issue URL."
    )
    constraint_ids: ConstraintIds = ()
    hero_metric: StrictStr = Field(description="The program's target.")
    current_result: StrictStr = Field(description="Where it stands now, printed after **Current:**.")
    sequence_rule: StrictStr = Field(description="How its packets are ordered.")


class WorkPacket(Named):
    """A work packet of a program; an id looks like `mac.m1-streamed-q4k-no-copy`."""

    program_id: StrictStr = Field(description="The program the packet belongs to; must be a program id.")
    constraint_ids: ConstraintIds = ()
    issue: IssueRef = Field(
        description="The owning issue: a number (> 0) in this repository, `owner/repo#N` or an issue URL; "
        "commands and nudges go there."
    )
    related_issues: tuple[IssueRef, ...] = Field(
        default=(), description="More issues (unique, not `issue`), e.g. accepted-receipt issues."
    )
    program_order: StrictInt = Field(
        default=0, description="Position in the program, unique within it; 0 or absent prints as —."
    )
    state: WorkState = Field(
        description="Dispatch truth. `complete`, `capacity-hold` and `waiting-evidence` are a person's decisions; "
        "perfbot derives the others from dependencies, leases and assignment."
    )
    owner: StrictStr = Field(
        description="Free text; perfbot writes the assignees (or `unassigned`) plus ` / live DOS lease`."
    )
    lane: StrictStr = Field(description="DOS lane names joined by `+`, e.g. `model+compute`.")
    paths: Ids = Field(
        default=(), description="The write region: at least one glob, e.g. `internal/model/**`; used for lease overlap."
    )
    hard_dependency_ids: Ids = Field(
        default=(), description="Open prerequisites: other packet ids that must be `complete` first."
    )
    satisfied_dependency_ids: Ids = Field(
        default=(), description="Completed prerequisites: `complete` packet ids, none also in `hard_dependency_ids`."
    )
    blocked_by_ids: Ids = Field(
        default=(),
        description="Packets blocking this one while they hold an overlapping lease; perfbot drops cleared ones.",
    )
    blocked_by_condition: StrictStr = Field(default="", description="A free-text blocker that is not a packet.")
    next_action: StrictStr = Field(default="", description="The next step; required unless `complete`.")
    result: StrictStr = Field(default="", description="The accepted result; required when, and only when, `complete`.")
    exit_when: StrictStr = Field(description="The exit condition (for a `complete` packet: the exit achieved).")
    # How many times a perfbot change moved this packet's state; keys its nudges, one per episode.
    state_revision: StrictInt = Field(
        default=0, description="Written by perfbot (>= 0): how many of its changes moved the state."
    )
    previous_state: WorkState | None = Field(
        default=None,
        description="Written by perfbot: the state its last change moved the packet from (none before the first); "
        "a ready nudge is sent only when readiness follows a waiting state.",
    )


class RetiredConstraint(Model):
    """A constraint whose exit condition was met, kept for the record."""

    id: StrictStr = Field(description="The retired constraint's id; not a current constraint's.")
    name: HumanName
    retired_on: IsoDate = Field(description="The day it was retired (YYYY-MM-DD).")
    ref: StrictStr = Field(description="The evidence that its exit condition was met.")


class LedgerEntry(Model):
    """One applied command: recorded in the same change as its effect."""

    comment_id: StrictInt = Field(description="Id of the issue comment that carried the command.")
    line: StrictInt = Field(default=1, description="The command's line in that comment (1-based).")
    issue: IssueRef = Field(description="The issue the comment is on.")
    author: StrictStr = Field(description="Login of the comment's author.")
    at: StrictStr = Field(description="When the comment was created (ISO-8601).")
    effect: StrictStr = Field(description="What the command changed, in one line.")

    @property
    def key(self) -> tuple[int, int]:
        return (self.comment_id, self.line)


class Snapshot(Model):
    schema_: StrictStr = Field(
        alias="schema",
        description=f"Schema id: `{SCHEMA_ID}`, or upstream's older `{SCHEMA_ONE}` (no programs or packets; "
        "its own page layout).",
        json_schema_extra={"enum": list(SCHEMA_IDS)},
    )
    as_of: IsoDate = Field(description="The date the snapshot speaks for (YYYY-MM-DD); no `review_by` before it.")
    definition: StrictStr = Field(description="The paragraph printed under the page's header; one line.")
    constraints: tuple[Constraint, ...] = Field(default=(), description="What limits each outcome now, in page order.")
    programs: tuple[Program, ...] = Field(default=(), description="Programs of work against the constraints.")
    work_packets: tuple[WorkPacket, ...] = Field(default=(), description="The packets inside the programs.")
    ready_waves: tuple[ReadyWave, ...] = Field(default=(), description="Waves covering every dependency-ready lever.")
    collisions: tuple[Collision, ...] = Field(default=(), description="Packets and levers that collide.")
    oss_states: tuple[OSSState, ...] = Field(default=(), description="The OSS walk's states (8 are required).")
    oss_walk: tuple[OSSWalkStep, ...] = Field(default=(), description="The OSS walk's gates, ordered 1..n.")
    oss_routes: tuple[OSSRoute, ...] = Field(default=(), description="Sources adjacent to a named constraint.")
    levers: tuple[Lever, ...] = Field(default=(), description="The lever graph the ready arms are derived from.")
    retired_constraints: tuple[RetiredConstraint, ...] = Field(
        default=(), description="Constraints retired by `/perf exit`, kept for the record."
    )
    ledger: tuple[LedgerEntry, ...] = Field(
        default=(), description="Written by perfbot: applied commands not yet settled on the default branch."
    )
    # Every command in a comment with an id up to this one is settled (merged, refused or dropped);
    # their ledger entries have been compacted away.
    commands_settled_through: StrictInt = Field(
        default=0, description="Written by perfbot: every command in a comment up to this id is settled."
    )

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, populate_by_name=True)

    def packet(self, packet_id: str) -> WorkPacket | None:
        return next((p for p in self.work_packets if p.id == packet_id), None)

    def constraint(self, constraint_id: str) -> Constraint | None:
        return next((c for c in self.constraints if c.id == constraint_id), None)

    def to_data(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The YAML shape (upstream key names): every field, and only those not at their default."""
        return self.model_dump(by_alias=True), self.model_dump(by_alias=True, exclude_defaults=True)


# Identity key of each list of mappings, used to match items when writing back.
LIST_KEYS: dict[str, str] = {
    "constraints": "id",
    "evidence": "",
    "programs": "id",
    "work_packets": "id",
    "ready_waves": "id",
    "collisions": "id",
    "oss_states": "state",
    "oss_walk": "order",
    "oss_routes": "source",
    "levers": "id",
    "retired_constraints": "id",
    "ledger": "comment_id",
}

# What a record of each list is called in messages (upstream's wording where it has one).
ENTITY_NOUNS: dict[str, str] = {
    "constraints": "current constraint",
    "programs": "execution program",
    "work_packets": "work packet",
    "ready_waves": "current ready wave",
    "collisions": "collision",
    "oss_states": "OSS state",
    "oss_walk": "OSS walk step",
    "oss_routes": "OSS route",
    "levers": "lever",
    "retired_constraints": "retired constraint",
    "ledger": "ledger entry of comment",
}


def entity_label(data: Any, loc: Sequence[str | int]) -> tuple[str, tuple[str | int, ...]] | None:
    """`work packet "m1"` and the rest of `loc`, for a problem inside a record that has a usable id.

    `data` is the file as read (the id of a record that failed validation is taken from there);
    None when the record has no usable id, or when the problem is with the id itself.
    """
    if len(loc) < 3 or loc[0] not in ENTITY_NOUNS or not isinstance(loc[1], int):
        return None
    records = data.get(loc[0]) if isinstance(data, Mapping) else None
    if not isinstance(records, Sequence) or isinstance(records, str) or not 0 <= loc[1] < len(records):
        return None
    record, key = records[loc[1]], LIST_KEYS[str(loc[0])]
    ident = record.get(key) if isinstance(record, Mapping) else None
    if loc[2] == key or isinstance(ident, bool) or not isinstance(ident, str | int) or ident == "":
        return None
    shown = f'"{neutral(ident, 60)}"' if isinstance(ident, str) else str(ident)
    return f"{ENTITY_NOUNS[str(loc[0])]} {shown}", tuple(loc[2:])
