"""Upstream's lever graph (`fak native-performance --json`) as perfbot's levers.

Upstream's lever carries more than readiness needs. What perfbot models is kept where its lever
holds it: `id`, `applicability.envelope_id` (as `envelope_id`), `enabled`, `dependency_ids`,
`conflict_ids`, `status` (present, partial, absent), `expected`, and `witnessed`, an object or
null upstream, as the bool `witnessed` (upstream's ready arms skip a lever whose witness is not
null, so the bool derives the same arms) and the object itself as `witness`. The snapshot's
validation holds them to upstream's checks. Every other field present is named in the list of
dropped fields. Go writes an empty list as `null`; it reads as empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from bot.errors import InputError, Problem, validation_problems
from bot.snapshot.model import Lever, entity_label
from bot.snapshot.sections import LeverEffect
from bot.untrusted import echo
from bot.upstream.json_places import Places

GRAPH_SCHEMA = "fak-native-performance-graph/v2"
Ids = tuple[StrictStr, ...] | None


class _Upstream(BaseModel):
    """Upstream's JSON as Go writes it: every key it has is named here, any other is an error."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


class _Applicability(_Upstream):
    envelope_id: StrictStr
    platform: StrictStr = ""
    backend: StrictStr = ""


class _Effect(_Upstream):
    summary: StrictStr = ""
    classification: Literal["hypothesis", "witnessed", "comparison"]
    provenance: StrictStr = ""
    receipt: StrictStr = ""


class _IssueRef(_Upstream):
    number: StrictInt = 0
    url: StrictStr = ""


class UpstreamLever(_Upstream):
    id: StrictStr
    name: StrictStr = ""
    applicability: _Applicability
    enabled: StrictBool
    status: Literal["present", "partial", "absent"] | None = None
    dependency_ids: Ids = None
    conflict_ids: Ids = None
    expected: _Effect | None = None
    witnessed: _Effect | None = None
    owning_issue: _IssueRef | None = None
    next_witness: StrictStr = ""


class UpstreamGraph(_Upstream):
    # Upstream's graph also holds its envelopes and the legacy rungs; perfbot reads only the levers.
    schema_: StrictStr | None = Field(default=None, alias="schema")
    envelope: Any = None
    comparison: Any = None
    rungs: Any = None
    features: Any = None
    envelopes: Any = None
    levers: tuple[UpstreamLever, ...] | None


# Where each perfbot lever field came from in upstream's lever, for locating a finding.
SOURCE_FIELD: dict[str, tuple[str, ...]] = {"envelope_id": ("applicability", "envelope_id"), "witness": ("witnessed",)}
_EFFECT = ("summary", "classification", "provenance", "receipt")
# Leaves of upstream's lever that perfbot's lever holds.
_KEPT = {
    ("id",),
    ("enabled",),
    ("dependency_ids",),
    ("conflict_ids",),
    ("applicability", "envelope_id"),
    ("status",),
    *((side, leaf) for side in ("expected", "witnessed") for leaf in _EFFECT),
}


class LeverGraph(NamedTuple):
    levers: tuple[Lever, ...]
    dropped: list[str]


def read_graph(data: Mapping[str, Any], text: str, file: str) -> LeverGraph:
    """perfbot's levers from upstream's graph JSON (`data`, read from `text`), and what was dropped;
    a graph that is not upstream's shape is an error naming each place."""
    schema = data.get("schema")
    if schema is not None and schema != GRAPH_SCHEMA:
        line, col = Places(text).locate(("schema",))
        message = f"schema: {echo(schema)} is not upstream's lever graph ({GRAPH_SCHEMA})"
        raise InputError([Problem(file, line, col, message)])
    try:
        graph = UpstreamGraph.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, file, Places(text).locate, label=lambda loc: entity_label(data, loc))
        raise InputError(sorted(problems)) from None
    upstream = graph.levers or ()
    refused = list(status_problems(upstream))
    if refused:
        places = Places(text)
        raise InputError([Problem(file, *places.locate(loc), why) for loc, why in refused])
    return LeverGraph(tuple(lever_of(u) for u in upstream), dropped(data))


def lever_of(upstream: UpstreamLever) -> Lever:
    return Lever(
        id=upstream.id,
        envelope_id=upstream.applicability.envelope_id,
        enabled=upstream.enabled,
        witnessed=upstream.witnessed is not None,
        dependency_ids=upstream.dependency_ids or (),
        conflict_ids=upstream.conflict_ids or (),
        status=upstream.status,
        expected=_effect(upstream.expected),
        witness=_effect(upstream.witnessed),
    )


def _effect(upstream: _Effect | None) -> LeverEffect | None:
    """An effect as the snapshot holds it; its classification is checked by the snapshot's validation."""
    if upstream is None:
        return None
    return LeverEffect.model_validate(upstream.model_dump())


def status_problems(levers: tuple[UpstreamLever, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Upstream refuses a graph whose lever status contradicts `enabled`; perfbot keeps `enabled`
    and drops the status, so such a graph is refused here rather than read one way."""
    for index, lever in enumerate(levers):
        if lever.enabled and lever.status == "absent":
            yield ("levers", index, "status"), f"lever {echo(lever.id)} is enabled but its status is absent"
        elif not lever.enabled and lever.status == "present":
            yield ("levers", index, "status"), f"lever {echo(lever.id)} is not enabled but its status is present"


def dropped(data: Mapping[str, Any]) -> list[str]:
    """Each field of upstream's graph that perfbot does not keep, with how many levers have it,
    in the order upstream writes them; `null` and empty values hold nothing and are not listed."""
    found = [key for key, value in data.items() if key not in ("schema", "levers") and _holds(value)]
    counts: dict[str, int] = {}
    for lever in data.get("levers") or ():
        for leaf in _leaves(lever, ()):
            counts[leaf] = counts.get(leaf, 0) + 1
    return found + [f"levers[].{leaf} ({count})" for leaf, count in counts.items()]


def _leaves(value: Any, path: tuple[str, ...]) -> Iterator[str]:
    """The dotted names of the leaves of one upstream lever that perfbot does not keep."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, key))
    elif path not in _KEPT and _holds(value):
        yield ".".join(path)


def _holds(value: Any) -> bool:
    return value not in (None, "", [], {})
