"""The snapshot's page-table sections beside constraints and packets: ready waves, collisions,
the OSS walk, and the lever graph the ready arms are derived from."""

from typing import Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr

from bot.snapshot.fields import Ids, Model


class ReadyWave(Model):
    id: StrictStr = Field(description="Wave id, unique among waves, e.g. `metal` or `cuda`.")
    envelope_id: StrictStr = Field(description="The envelope whose dependency-ready levers this wave runs.")
    ready_lever_ids: Ids = Field(
        default=(),
        description="At least one lever; exactly the dependency-ready levers of the envelope, none in two waves.",
    )
    parallel_with: Ids = Field(default=(), description="Ids of other waves that may run at the same time.")
    serial_within_wave: StrictBool = Field(
        default=False, description="True when the wave's arms run one at a time; not printed on the page."
    )
    serial_reason: StrictStr = Field(
        default="", description="Printed as the within-wave rule; required when `serial_within_wave` is true."
    )


class Collision(Model):
    id: StrictStr = Field(description="Collision id, unique among collisions.")
    kind: StrictStr = Field(
        description="Open vocabulary; seen: `live-coordination`, `shared-paths-and-device`, `shared-envelope` "
        "(members must be exactly one envelope's ready levers), `experiment-toggle`."
    )
    members: Ids = Field(default=(), description="Work packet ids and lever ids that collide (a mixed namespace).")
    reason: StrictStr = Field(description="Why they collide, printed on the page.")


class OSSState(Model):
    state: StrictStr = Field(
        description="State name, unique; `watch`, `candidate`, `studied`, `mapped`, `mapped-needs-limiter`, "
        "`experimenting`, `kept` and `rejected` must all be defined, others may be added."
    )
    meaning: StrictStr = Field(description="What the state means.")
    required_evidence: StrictStr = Field(description="The evidence a source needs to be in this state.")


class OSSWalkStep(Model):
    order: StrictInt = Field(description="Position of the step: 1 for the first, then 2, 3 … with no gap.")
    name: StrictStr = Field(description="The gate's name.")
    requirement: StrictStr = Field(description="What the gate requires.")
    exit: StrictStr = Field(description="The gate's exit, printed as code.")


class OSSRoute(Model):
    source: StrictStr = Field(description="The source repository, `owner/repo`; unique among routes.")
    revision: StrictStr = Field(description="The source revision studied (a commit or tag).")
    state: StrictStr = Field(description="One of the states defined in `oss_states`.")
    seam: StrictStr = Field(description="Where the source meets the codebase.")
    proposed_constraint_ids: Ids = Field(default=(), description="Constraints the source may relieve; each must exist.")
    deduped_issues: tuple[StrictInt, ...] = Field(default=(), description="Issue numbers (> 0) this route maps to.")
    next_action: StrictStr = Field(description="The next step for this source.")


# Upstream's lever states and evidence classes (`internal/nativeperf/graph.go`).
LeverStatus = Literal["present", "partial", "absent"]
EvidenceClass = Literal["hypothesis", "witnessed", "comparison"]


class LeverEffect(Model):
    """A lever's effect as upstream's graph states it: the one expected (a projection, a
    `hypothesis`) or the one witnessed (`witnessed`, with the receipt that shows it)."""

    summary: StrictStr = Field(default="", description="What the effect is; required.")
    classification: EvidenceClass = Field(
        description="`hypothesis` for an expected effect, `witnessed` for a witnessed one."
    )
    provenance: StrictStr = Field(default="", description="Where the figure comes from; required.")
    receipt: StrictStr = Field(default="", description="The receipt that witnessed it; required of a witness.")


class Lever(Model):
    """One independently attributable knob of the lever graph: what readiness needs, and upstream's
    state and effects of it when the snapshot carries them."""

    id: StrictStr = Field(description="Lever id, unique, e.g. `metal.paged-kv`.")
    envelope_id: StrictStr = Field(description="The pinned envelope the lever is measured in.")
    enabled: StrictBool = Field(default=False, description="True when the default path uses the lever.")
    witnessed: StrictBool = Field(default=False, description="True when an accepted receipt witnessed its result.")
    dependency_ids: Ids = Field(
        default=(),
        description="Levers that must be enabled first. A lever is dependency-ready when it is not enabled, "
        "not witnessed, and all of these are enabled.",
    )
    conflict_ids: Ids = Field(default=(), description="Levers it cannot be measured together with.")
    status: LeverStatus | None = Field(
        default=None,
        description="Upstream's state of the lever: `present`, `partial` or `absent` (an enabled lever is not "
        "`absent`, a lever not enabled is not `present`).",
    )
    expected: LeverEffect | None = Field(
        default=None, description="The effect expected: a `hypothesis` with a summary and provenance."
    )
    witness: LeverEffect | None = Field(
        default=None,
        description="The effect witnessed: `witnessed`, with a summary, provenance and receipt; a lever with one "
        "is `witnessed`.",
    )
