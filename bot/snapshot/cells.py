"""The rules on text that lands in the page's table cells, the replies and a job's log: no `|`,
line break, HTML markup, control or bidirectional character, trailing backslash or Actions
command. Part of `validation`."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from bot.snapshot.fields import Finding
from bot.snapshot.model import Snapshot

# Raw HTML (a tag, a comment, a declaration) renders inside GitHub's tables and can end a cell.
_HTML_TAG = re.compile(r"<[A-Za-z/!?]")
# Characters no page line may carry: controls (but the tab) and the line separators some readers
# break lines at; bidirectional controls, which reorder the text around them on the page.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
_BIDI = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# What a GitHub Actions runner reads as a command when the page or the plan is printed to a log.
_WORKFLOW_COMMAND = re.compile(r"^\s*::|##\[")
# Any character or markup a check below looks for: a text without one (almost every text) has no
# finding but a trailing backslash's, and is passed over with one search instead of six.
_SUSPECT = re.compile("|".join(p.pattern for p in (_CONTROL, _BIDI, _WORKFLOW_COMMAND, _HTML_TAG)) + r"|[|\n\r]")
# The same, looked for in a whole record's JSON at once (one search in C instead of a walk over
# its texts): JSON writes the controls below U+0020, a backslash and a quote as escapes (each
# starts with a backslash), and the rest as they are, so a record whose JSON has none of these
# has no text any check would flag. Built from the classes above, so it cannot drift from them, as
# one class (alternatives, tried at every character, cost a run at 100x the seed 7% more instructions).
_MAYBE_SUSPECT_JSON = re.compile(f"[{_CONTROL.pattern[1:-1]}{_BIDI.pattern[1:-1]}|<\\\\]|::|##\\[")


def table_cells(s: Snapshot, clean: Snapshot | None = None) -> Iterator[Finding]:
    """Text that lands in a table cell may not contain `|` or a line break (upstream does not escape).

    `clean` is a snapshot known to have no finding, the one a command changed into `s`: a record
    of `s` that is one of its records (the same object, which a frozen record shares between the
    two) is passed over, so a run applying a thousand commands checks each changed record once
    rather than every record a thousand times."""
    # The other fields are read only when one of them is not `clean`'s (a command changes records).
    unchanged = clean is not None and all(getattr(s, name) is getattr(clean, name) for name in _OTHER_FIELDS)
    rest = {} if unchanged else s.model_dump(by_alias=True, exclude=set(_RECORD_LISTS))
    for name, field in Snapshot.model_fields.items():
        key = field.alias or name
        if name not in _RECORD_LISTS:
            if not unchanged:
                yield from _text_cells(_strings(rest[key], (key,)), lambda loc: _name(s, loc))
            continue
        records = getattr(s, name)
        before = getattr(clean, name) if clean is not None else ()
        if records is before:
            continue  # the list `clean` holds: none of its records is read again
        yield from _changed_cells(key, records, before)


def _changed_cells(key: str, records: tuple[BaseModel, ...], before: tuple[BaseModel, ...]) -> Iterator[Finding]:
    """The cells of each record that is not one of `before`'s. A record at its place in `before`
    is told at once; the others are looked up among all of `before`'s (built only then).
    Identities compare only while both snapshots are alive, as they are for the whole check.
    A list that only grew (a ledger after each command) is told in one comparison in C: its
    first records are `before`'s (the same objects, or equal ones, which have no finding either)."""
    if len(records) > len(before) and records[: len(before)] == before:
        for index in range(len(before), len(records)):
            yield from _record_cells(key, index, records[index])
        return
    known: set[int] | None = None
    for index, record in enumerate(records):
        if index < len(before) and record is before[index]:
            continue
        if known is None:
            known = set(map(id, before))
        if id(record) not in known:
            yield from _record_cells(key, index, record)


def _record_lists() -> frozenset[str]:
    """The snapshot's lists of records (`tuple[SomeModel, ...]`), whose cells are checked per record."""
    return frozenset(
        name
        for name, field in Snapshot.model_fields.items()
        if get_origin(field.annotation) is tuple
        and (args := get_args(field.annotation))
        and isinstance(args[0], type)
        and issubclass(args[0], BaseModel)
    )


_RECORD_LISTS = _record_lists()
_OTHER_FIELDS = tuple(name for name in Snapshot.model_fields if name not in _RECORD_LISTS)


def _record_cells(key: str, index: int, record: BaseModel) -> tuple[Finding, ...]:
    with contextlib.suppress(PydanticSerializationError):  # a lone surrogate (every reader removes them first)
        if not _MAYBE_SUSPECT_JSON.search(record.model_dump_json()):  # nor does any field name hold one
            return ()  # the usual record: none of its texts holds anything the checks look for
    return _walked_cells(key, index, record)


def _walked_cells(key: str, index: int, record: BaseModel) -> tuple[Finding, ...]:
    named = _record_name(key, index, record) + " "
    strings = _strings(record.model_dump(by_alias=True), (key, index))
    return tuple(_text_cells(strings, lambda loc: named + ".".join(map(str, loc[2:]))))


def _text_cells(
    strings: Iterator[tuple[tuple[str | int, ...], str]], name: Callable[[tuple[str | int, ...]], str]
) -> Iterator[Finding]:
    for loc, text in strings:
        if not _SUSPECT.search(text) and not text.endswith("\\"):
            continue
        yield from (Finding(loc, f"{name(loc)}: {why}") for why in _unprintable(text))
        if loc == ("definition",):
            if "\n" in text or "\r" in text:
                yield Finding(loc, "definition must be one line")
            continue
        if "|" in text:
            yield Finding(loc, f"{name(loc)}: '|' would break the table cell; rephrase it")
        if _HTML_TAG.search(text):
            yield Finding(loc, f"{name(loc)}: HTML markup would break the table; rephrase it")
        if "\n" in text or "\r" in text:
            yield Finding(loc, f"{name(loc)}: a line break would break the table cell; use one line")


def _unprintable(text: str) -> Iterator[str]:
    """Why `text` cannot be printed as it is on the page, in replies or in a job's log."""
    if _CONTROL.search(text):
        yield "a control character or line separator would break the page; use plain text"
    if _BIDI.search(text):
        yield "a bidirectional control character would reorder the text around it; remove it"
    if text.endswith("\\") and (len(text) - len(text.rstrip("\\"))) % 2:
        yield "a trailing backslash would escape the markup that follows it on the page; remove it"
    if _WORKFLOW_COMMAND.search(text):
        yield "'::' at the start or '##[' would be read as a GitHub Actions command; rephrase it"


def _strings(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, (*loc, index))


def _name(s: Snapshot, loc: tuple[str | int, ...]) -> str:
    """`section "id" field` for a message, e.g. `work_packets "m1" next_action`."""
    if len(loc) >= 3 and isinstance(loc[1], int):
        key, index = str(loc[0]), loc[1]
        return f"{_record_name(key, index, getattr(s, key)[index])} {'.'.join(map(str, loc[2:]))}"
    return ".".join(map(str, loc))


def _record_name(key: str, index: int, record: BaseModel) -> str:
    """`section "id"`: a record by its id, else its source or state, else its place in the list."""
    # A route has a state too, but its source is what names it.
    ident = getattr(record, "id", None) or getattr(record, "source", None) or getattr(record, "state", None)
    return f'{key} "{ident if ident is not None else index}"'
