"""The typed snapshot: upstream schema /2, the completion extension, levers and our additions."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from bot.untrusted import echo, neutral

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
WORK_STATES: tuple[WorkState, ...] = (
    "running",
    "ready",
    "waiting-dependency",
    "waiting-coordination",
    "waiting-evidence",
    "capacity-hold",
    "complete",
)
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
    raise ValueError(f"{echo(value)} is not a valid date (YYYY-MM-DD)")


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
