"""The rule that closes the corrupt-snapshot class: a PR proposes only a snapshot that reloads as intended.

However the text was written (spliced records, patched scalars, a future writer), it is parsed
again, as the next run will parse it after the merge, and must give back exactly the model that
was decided (every field, the ledger included) and still validate. Otherwise the run refuses to
propose it and says why. Pure: text and models in, a reason out.
"""

from __future__ import annotations

from typing import Any

from bot.errors import InputError
from bot.snapshot.model import Snapshot
from bot.snapshot.store import parse_model
from bot.snapshot.validation import validate


def refusal(text: str, file: str, intended: Snapshot, *, intended_valid: bool = False) -> str:
    """Why `text` must not be proposed as `file`, or "" when it reloads to `intended` and validates.

    `intended_valid`: the caller validated `intended` and found nothing, so a reload equal to it
    (validation reads nothing but the values) is valid too, and is not validated again."""
    try:
        reloaded = parse_model(text, file, Snapshot).model
    except InputError as exc:
        return f"the proposed {file} would not load ({exc.problems[0]})"
    if reloaded != intended:
        where = first_difference(reloaded.model_dump(by_alias=True), intended.model_dump(by_alias=True))
        return f"the proposed {file} would reload differently from the decided snapshot (at {where or 'the top'})"
    findings = [] if intended_valid else validate(reloaded)
    if findings:
        return f"the proposed {file} would be invalid ({findings[0].message})"
    return ""


def first_difference(got: Any, wanted: Any, path: str = "") -> str:
    """The key path of the first place two dumps differ ("" when they differ at the top)."""
    if isinstance(got, dict) and isinstance(wanted, dict):
        for key in [*wanted, *(k for k in got if k not in wanted)]:
            if got.get(key) != wanted.get(key):
                return first_difference(got.get(key), wanted.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(got, list | tuple) and isinstance(wanted, list | tuple) and len(got) == len(wanted):
        for index, (a, b) in enumerate(zip(got, wanted, strict=True)):
            if a != b:
                return first_difference(a, b, f"{path}.{index}" if path else str(index))
    return path
