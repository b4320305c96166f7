"""Field types shared by every snapshot record: the strict base model, ISO dates, id lists; and
the finding every check reports: where in the snapshot (a key path) and what is wrong, and the
shape of a check made one record at a time."""

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictStr, WithJsonSchema

from bot.untrusted import echo

# ASCII digits only, nothing around them: upstream parses with Go's `time.DateOnly`, which refuses
# a date padded with spaces (" 2026-08-27") and any other digit.
_DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# What an editor can check of a date without parsing it: the shape and plausible month and day.
DATE_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"


def _iso_date(value: Any) -> Any:
    """Accept only `YYYY-MM-DD` text or a date; lax pydantic would also take numbers."""
    if isinstance(value, dt.datetime):
        raise ValueError("expected a date (YYYY-MM-DD), got a date and time")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _DATE_TEXT.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{echo(value)} is not a valid date (YYYY-MM-DD)")


IsoDate = Annotated[
    dt.date,
    BeforeValidator(_iso_date),
    WithJsonSchema({"type": "string", "format": "date", "pattern": DATE_PATTERN}),
]
Ids = tuple[StrictStr, ...]
# Fields that mean the same in several records, described once.
HumanName = Annotated[StrictStr, Field(description="Human name.")]
ConstraintIds = Annotated[Ids, Field(description="At least one; each must be a constraint id.")]


class Model(BaseModel):
    """Base of every snapshot type: unknown keys are errors; values are immutable."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


class Finding(NamedTuple):
    loc: tuple[str | int, ...]
    message: str


@dataclass(frozen=True)
class EachRecord:
    """A check made one record of `field` at a time: a record's findings depend on the record and
    on what `prepare` reads of the snapshot (`context`) alone. After a change that leaves what
    `context` names as it was (`validation.validate`), only the records the change made are read.
    `reads` is all the check reads, `field` (every record) among it; `context` names an attribute
    of `field`'s records (its ids), so an unchanged context means as many records."""

    field: str
    prepare: Callable[[Any], Any]
    record: Callable[[Any, Any, int, Any], Iterator[Finding]]
    reads: frozenset[str]
    context: frozenset[str]
