"""The offline adapter's journal: a run's writes appended one line each, folded into the state once.

Rewriting a 10 MB state file after each of a run's 50 writes cost seconds, most of a run at 100×
the seed. In a run (`OfflineGitHub.open(..., journal=True)`) each write instead appends one line
to `<state>.journal` beside the state file, and the run folds the journal into the state file at
its end (one atomic rename) and removes it. A run that stops halfway leaves the state file as it
was and the journal of exactly the writes it made; whoever reads the state next folds them in
first, so no write is lost and none is made twice.

The first line names the state text the journal extends (its SHA-256). Each further line sets one
value at a path (a top-level key, then dict keys or a list index; the index equal to the list's
length appends), so folding a journal twice changes nothing: a run stopped after writing the
folded state and before removing the journal left a journal that is already in. A journal over a
state file that changed in any other way is refused, never applied to the wrong records. A last
line without its line break is a write that never finished (the process stopped while appending)
and is left out, as a GitHub request cut off before it landed.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.errors import InputError, OutputError, input_error
from bot.files import MAX_STATE_BYTES, read_text, signature
from bot.json_input import JsonProblem, loads, parse_object

Path_ = Sequence[str | int]


def journal_path(state: Path) -> Path:
    """Beside the state file and named after it, so a copy of `state*` carries it along."""
    return state.with_name(state.name + ".journal")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def header(state_text: str) -> str:
    return json.dumps({"extends": digest(state_text)}) + "\n"


def entry(raw: dict[str, Any], path: Path_) -> str:
    """The line that sets `path` to what `raw` holds there now."""
    value: Any = raw
    for part in path:
        value = value[part]
    return json.dumps({"set": list(path), "value": value}) + "\n"


def read_folded(path: Path) -> tuple[str, dict[str, Any], bool]:
    """The state file's text, its raw state with the journal's writes folded in, and whether a
    journal that extends the text is there."""
    text = read_text(path, MAX_STATE_BYTES)
    raw, journalled = fold(parse_object(text, str(path), "the state"), text, journal_path(path))
    return text, raw, journalled


# The state file's and its journal's signatures: both unchanged, the two hold what was read or written.
Stamp = tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]


def stamp(path: Path) -> Stamp:
    return signature(path), signature(journal_path(path))


def append(journal: Path, lines: str) -> None:
    """Add whole lines; ASCII only (`json.dumps` escapes the rest), so no write splits a character."""
    try:
        with journal.open("a", encoding="ascii", newline="") as handle:
            handle.write(lines)
    except OSError as exc:
        raise OutputError(f"{journal}: cannot append: {exc.strerror or exc}") from exc


def fold(raw: dict[str, Any], state_text: str, journal: Path) -> tuple[dict[str, Any], bool]:
    """`raw` (read from `state_text`) with the journal's writes in, and whether the journal still
    extends that text (False: absent, or already folded into it)."""
    if not journal.exists():
        return raw, False
    lines = read_text(journal, MAX_STATE_BYTES).split("\n")
    complete = lines[:-1]  # the part after the last line break is a write cut off halfway, or ""
    if not complete:
        return raw, False
    items = [_line(line, number, journal) for number, line in enumerate(complete, start=1)]
    extends = items[0].get("extends") if set(items[0]) == {"extends"} else None
    if not isinstance(extends, str):
        raise input_error(str(journal), 'not a journal of state writes: the first line is not {"extends": ...}', 1)
    entries = [_write(item, number, journal) for number, item in enumerate(items[1:], start=2)]
    if extends == digest(state_text):
        return _applied(raw, entries, journal), True
    message = "holds writes over a different state file (it changed after a run stopped); remove one of them"
    try:
        if _applied(copy.deepcopy(raw), entries, journal) == raw:
            return raw, False  # folded already; the run stopped before removing the journal
    except InputError:
        pass  # its writes do not even fit the state: the same answer
    raise input_error(str(journal), message)


def _line(line: str, number: int, journal: Path) -> dict[str, Any]:
    try:
        item = loads(line)
    except JsonProblem as problem:
        raise input_error(str(journal), f"not a journal of state writes: {problem.reason}", number) from problem
    if not isinstance(item, dict):
        raise input_error(str(journal), "not a journal of state writes: a line is not a JSON object", number)
    return item


def _write(item: dict[str, Any], number: int, journal: Path) -> tuple[list[str | int], Any]:
    """(path, value) of a write line: `{"set": [key or index, ...], "value": ...}` and nothing else."""
    path = item.get("set")
    if set(item) != {"set", "value"} or not isinstance(path, list) or not path:
        expected = 'not a write of the journal: expected {"set": [key, ...], "value": ...}'
        raise input_error(str(journal), expected, number)
    if not all(type(part) in (str, int) for part in path):  # `bool` is an `int`, but no key or index
        raise input_error(str(journal), "not a write of the journal: a key or index is not text or a number", number)
    return path, item["value"]


def _applied(raw: dict[str, Any], entries: list[tuple[list[str | int], Any]], journal: Path) -> dict[str, Any]:
    for number, (path, value) in enumerate(entries, start=2):
        try:
            _set(raw, path, value)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise input_error(str(journal), f"a write that does not fit the state: {exc}", number) from exc
    return raw


def _set(raw: dict[str, Any], path: list[str | int], value: Any) -> None:
    node: Any = raw
    for depth, part in enumerate(path[:-1]):
        made: Any = [] if isinstance(path[depth + 1], int) else {}
        node = node.setdefault(part, made) if isinstance(node, dict) else node[part]
    last = path[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or not 0 <= last <= len(node):
            raise IndexError(f"no item {last} to set in a list of {len(node)}")
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise TypeError(f"{type(node).__name__} at {path[:-1]}")


def trim_partial(journal: Path) -> None:
    """Cut a last line that has no line break (a write a stopped run never finished), so the next
    write starts a line of its own instead of running on from the cut-off text."""
    try:
        with journal.open("r+b") as handle:
            data = handle.read()
            if data and not data.endswith(b"\n"):
                handle.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{journal}: cannot trim: {exc.strerror or exc}") from exc


def remove(journal: Path) -> None:
    try:
        journal.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"{journal}: cannot remove: {exc.strerror or exc}") from exc
