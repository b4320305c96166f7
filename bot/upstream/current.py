"""Upstream's current snapshot (`fak native-performance --current`) as perfbot's snapshot.

perfbot's snapshot uses upstream's field names, so the data is upstream's but for three things:
Go writes an empty list as `null`, which reads as empty; the keys perfbot adds to upstream's shape
(the levers, which come from the graph, the ledger, ...) are not upstream's, so one here is an
unknown key like any other; and schema /1 has no programs or packets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from bot.errors import InputError, Problem, validation_problems
from bot.snapshot.model import SCHEMA_ID, SCHEMA_ONE, Snapshot, entity_label
from bot.untrusted import echo
from bot.upstream.json_places import Places

# The keys perfbot adds to upstream's shape: at the top, and in each record of a list.
PERFBOT_KEYS = frozenset({"levers", "retired_constraints", "ledger", "commands_settled_through"})
PERFBOT_RECORD_KEYS: dict[str, frozenset[str]] = {
    "constraints": frozenset({"review_issue"}),
    "work_packets": frozenset({"state_revision", "previous_state"}),
}
# Schema /2 added these to /1's snapshot.
NOT_IN_SCHEMA_ONE = frozenset({"programs", "work_packets"})

Loc = tuple[str | int, ...]


def read_current(data: Mapping[str, Any], text: str, file: str) -> Snapshot:
    """The snapshot upstream's JSON (`data`, read from `text`) holds, without levers; a text that
    is not upstream's shape is an error naming each place in `file`."""
    schema = data.get("schema")
    if schema not in (SCHEMA_ID, SCHEMA_ONE):
        shown = "required key is missing" if "schema" not in data else f"{echo(schema)} is not"
        why = f"schema: {shown} upstream's current snapshot ({SCHEMA_ID} or {SCHEMA_ONE})"
        raise InputError([Problem(file, *Places(text).locate(("schema",)), why)])
    foreign = list(foreign_keys(data, str(schema)))
    if foreign:
        places = Places(text)
        raise InputError([Problem(file, *places.locate(loc), why) for loc, why in foreign])
    try:
        return Snapshot.model_validate(empty_lists(data, Snapshot))
    except ValidationError as exc:
        problems = validation_problems(exc, file, Places(text).locate, label=lambda loc: entity_label(data, loc))
        raise InputError(sorted(problems)) from None


def foreign_keys(data: Mapping[str, Any], schema: str) -> Iterator[tuple[Loc, str]]:
    """Each key perfbot's model knows that upstream's JSON of `schema` does not have."""
    top = PERFBOT_KEYS | (NOT_IN_SCHEMA_ONE if schema == SCHEMA_ONE else frozenset())
    for key in data:
        if key in top:
            yield (key,), f"{key}: unknown key (not a field of {schema})"
    for records, keys in PERFBOT_RECORD_KEYS.items():
        value = data.get(records)
        for index, record in enumerate(value if isinstance(value, list) else ()):
            for key in record if isinstance(record, Mapping) else ():
                if key in keys:
                    loc: Loc = (records, index, key)
                    named = entity_label(data, loc)
                    head = f"{named[0]}: {key}" if named else f"{records}.{index}.{key}"
                    yield loc, f"{head}: unknown key (not a field of {schema})"


def empty_lists(value: Any, model: type[BaseModel]) -> Any:
    """`value` with each `null` where `model` has a list read as an empty list, in nested records too."""
    if not isinstance(value, Mapping):
        return value
    out = dict(value)
    for name, field in model.model_fields.items():
        key = field.alias or name
        item = _item_type(field.annotation)
        if key not in out or item is None:
            continue
        if out[key] is None:
            out[key] = []
        elif isinstance(out[key], list) and isinstance(item, type) and issubclass(item, BaseModel):
            out[key] = [empty_lists(record, item) for record in out[key]]
    return out


def _item_type(annotation: Any) -> Any:
    """The item type of a list field (`tuple[X, ...]`), or None for a field that is not a list."""
    return get_args(annotation)[0] if get_origin(annotation) is tuple else None
