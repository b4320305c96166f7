"""JSON input files (the offline state, Actions event payloads) read with located errors."""

from __future__ import annotations

import json
from typing import Any

from bot.errors import input_error


def parse_object(text: str, file: str, what: str) -> dict[str, Any]:
    """The JSON object in `text`; bad JSON or another type is an error naming file, line and column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise input_error(file, f"{what} is not valid JSON: {exc.msg}", exc.lineno, exc.colno) from exc
    if not isinstance(data, dict):
        raise input_error(file, f"{what} is not a JSON object", 1, 1)
    return data
