"""The typed snapshot: upstream schema /2, the completion extension, levers and our additions."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr

SCHEMA_ID = "fak-native-performance-current/2"

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


_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso_date(value: Any) -> Any:
    """Accept only `YYYY-MM-DD` text or a date; lax pydantic would also take numbers."""
    if isinstance(value, dt.datetime):
        raise ValueError("expected a date (YYYY-MM-DD), got a date and time")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _DATE_TEXT.fullmatch(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a valid date (YYYY-MM-DD)")


IsoDate = Annotated[dt.date, BeforeValidator(_iso_date)]
Ids = tuple[StrictStr, ...]


class Model(BaseModel):
    """Base of every snapshot type: unknown keys are errors; values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class EvidenceRef(Model):
    class_: StrictStr = Field(alias="class")
    summary: StrictStr
    ref: StrictStr

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Constraint(Model):
    id: StrictStr
    name: StrictStr
    type: ConstraintType
    horizon: ConstraintHorizon
    state: ConstraintState
    observed_at: IsoDate
    review_by: IsoDate
    evidence: tuple[EvidenceRef, ...] = ()
    envelope: StrictStr
    driver: StrictStr
    authority_owner: StrictStr
    next_action: StrictStr
    exit_when: StrictStr
    ready_lever_ids: Ids = ()
    review_issue: StrictInt | None = None


class Program(Model):
    id: StrictStr
    name: StrictStr
    authority_issue: StrictInt
    constraint_ids: Ids = ()
    hero_metric: StrictStr
    current_result: StrictStr
    sequence_rule: StrictStr


class WorkPacket(Model):
    id: StrictStr
    name: StrictStr
    program_id: StrictStr
    constraint_ids: Ids = ()
    issue: StrictInt
    related_issues: tuple[StrictInt, ...] = ()
    program_order: StrictInt = 0
    state: WorkState
    owner: StrictStr
    lane: StrictStr
    paths: Ids = ()
    hard_dependency_ids: Ids = ()
    satisfied_dependency_ids: Ids = ()
    blocked_by_ids: Ids = ()
    blocked_by_condition: StrictStr = ""
    next_action: StrictStr = ""
    result: StrictStr = ""
    exit_when: StrictStr
    # How many times a perfbot change moved this packet's state; keys its nudges, one per episode.
    state_revision: StrictInt = 0
    # The state that change moved it from (none before the first): a ready episode is announced
    # only when it follows a waiting one.
    previous_state: WorkState | None = None


class ReadyWave(Model):
    id: StrictStr
    envelope_id: StrictStr
    ready_lever_ids: Ids = ()
    parallel_with: Ids = ()
    serial_within_wave: StrictBool = False
    serial_reason: StrictStr = ""


class Collision(Model):
    id: StrictStr
    kind: StrictStr
    members: Ids = ()
    reason: StrictStr


class OSSState(Model):
    state: StrictStr
    meaning: StrictStr
    required_evidence: StrictStr


class OSSWalkStep(Model):
    order: StrictInt
    name: StrictStr
    requirement: StrictStr
    exit: StrictStr


class OSSRoute(Model):
    source: StrictStr
    revision: StrictStr
    state: StrictStr
    seam: StrictStr
    proposed_constraint_ids: Ids = ()
    deduped_issues: tuple[StrictInt, ...] = ()
    next_action: StrictStr


class Lever(Model):
    """One independently attributable knob of the lever graph (only what readiness needs)."""

    id: StrictStr
    envelope_id: StrictStr
    enabled: StrictBool = False
    witnessed: StrictBool = False
    dependency_ids: Ids = ()
    conflict_ids: Ids = ()


class RetiredConstraint(Model):
    """A constraint whose exit condition was met, kept for the record."""

    id: StrictStr
    name: StrictStr
    retired_on: IsoDate
    ref: StrictStr


class LedgerEntry(Model):
    """One applied command: recorded in the same change as its effect."""

    comment_id: StrictInt
    line: StrictInt = 1
    issue: StrictInt
    author: StrictStr
    at: StrictStr
    effect: StrictStr

    @property
    def key(self) -> tuple[int, int]:
        return (self.comment_id, self.line)


class Snapshot(Model):
    schema_: StrictStr = Field(alias="schema")
    as_of: IsoDate
    definition: StrictStr
    constraints: tuple[Constraint, ...] = ()
    programs: tuple[Program, ...] = ()
    work_packets: tuple[WorkPacket, ...] = ()
    ready_waves: tuple[ReadyWave, ...] = ()
    collisions: tuple[Collision, ...] = ()
    oss_states: tuple[OSSState, ...] = ()
    oss_walk: tuple[OSSWalkStep, ...] = ()
    oss_routes: tuple[OSSRoute, ...] = ()
    levers: tuple[Lever, ...] = ()
    retired_constraints: tuple[RetiredConstraint, ...] = ()
    ledger: tuple[LedgerEntry, ...] = ()
    # Every command in a comment with an id up to this one is settled (merged, refused or dropped);
    # their ledger entries have been compacted away.
    commands_settled_through: StrictInt = 0

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

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
