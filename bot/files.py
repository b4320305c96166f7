"""Reading and writing the files perfbot touches: text with located errors, atomic writes, JSON objects."""

from __future__ import annotations

import json
from pathlib import Path
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


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise input_error(str(path), "file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise input_error(str(path), f"cannot read: {exc}") from exc


def append_text(path: Path, text: str) -> None:
    """Add to a file another program reads as a whole later (the runner's summary and outputs)."""
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise input_error(str(path), f"cannot append: {exc}") from exc


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and rename, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
