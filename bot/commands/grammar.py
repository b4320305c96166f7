"""Slash-command grammar: the typed command, one type per shape of arguments, and how each is written.

Each verb's `Grammar` pairs its forms (what usage shows) with the builder that reads its
arguments into their type; a malformed argument raises `ArgumentError`, which `reading` turns
into a per-line error. The verbs themselves are the registry's (`registry.Verb`). Ids are
checked against the snapshot later (`effects`), not here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import NamedTuple, TypeVar

from bot.issue_refs import ForeignIssue, IssueKey, localised, parse_issue, seen_from
from bot.snapshot.model import WORK_STATES
from bot.untrusted import code_span

_DIGITS = re.compile(r"[0-9]{1,18}")
# An id runs to the next space, starting with a letter or digit of any script: one written with
# look-alike characters (`ﬁx`, a Cyrillic `а`) reaches `effects` whole, which refuses it by name,
# rather than being cut at its first such character into a shorter id.
_ID = re.compile(r"[^\W_]\S*")
_CLASS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-/]*")


@dataclass(frozen=True, slots=True)
class NoArgs:
    """A verb that takes no arguments (`help`)."""


@dataclass(frozen=True, slots=True)
class Targeted:
    """The packet or constraint id a verb names, and nothing else (`claim`, `unblock`, `why`, ...)."""

    target: str


@dataclass(frozen=True, slots=True)
class Completion(Targeted):
    result: str
    receipt: IssueKey | None = None

    def seen_from(self, where: IssueKey, own: str) -> Completion:
        """As written on issue `where` by a user of the bot's repository `own`: `receipt: #N` on
        another repository's issue is its issue N; `own`'s issue is its plain number."""
        if self.receipt is None:
            return self
        return replace(self, receipt=localised(seen_from(self.receipt, where), own))


@dataclass(frozen=True, slots=True)
class StateChange(Targeted):
    state: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Blocking(Targeted):
    condition: str


@dataclass(frozen=True, slots=True)
class Review(Targeted):
    by: dt.date | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class Evidence(Targeted):
    evidence_class: str
    summary: str
    ref: str


@dataclass(frozen=True, slots=True)
class ExitMet(Targeted):
    ref: str


@dataclass(frozen=True, slots=True)
class Drop:
    drop_ids: tuple[int, ...] = ()
    drop_all: bool = False


Args = NoArgs | Targeted | Completion | StateChange | Blocking | Review | Evidence | ExitMet | Drop
Shape = TypeVar("Shape", bound=Args)


class Command(NamedTuple):
    """A parsed command line, at its line in the comment: the verb (a `registry.Verb`) and its arguments."""

    verb: str
    line: int
    text: str
    args: Args = NoArgs()

    @property
    def target(self) -> str:
        """The packet or constraint id the command names; empty for a verb that names none."""
        return self.args.target if isinstance(self.args, Targeted) else ""

    def of(self, shape: type[Shape]) -> Shape:
        """The arguments as the shape an effect takes; another shape is a wiring error in the registry."""
        if not isinstance(self.args, shape):
            raise TypeError(f"`{self.verb}` was read as {type(self.args).__name__}, not {shape.__name__}")
        return self.args

    def parsed(self) -> dict[str, object]:
        """The parsed form for the plan JSON: the verb and every argument that was given.

        The arguments' names and order are their fields' (the target first), as the plan JSON
        has always listed them.
        """
        out: dict[str, object] = {"verb": self.verb}
        for name in _field_names(type(self.args)):
            value = getattr(self.args, name)
            if value not in ("", None, (), False):
                out[name] = _json_value(value)
        return out


def _json_value(value: object) -> object:
    """An argument as the plan JSON shows it: a date in ISO form, another repository's issue `owner/repo#N`."""
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value) if isinstance(value, ForeignIssue) else value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(shape: type) -> tuple[str, ...]:
    """An argument shape's field names in order (`dataclasses.fields` walks the class each call)."""
    if shape not in _FIELD_NAMES:
        _FIELD_NAMES[shape] = tuple(field.name for field in fields(shape))
    return _FIELD_NAMES[shape]


class ArgumentError(Exception):
    """A malformed argument; the reader turns it into a ParseError with the verb's usage."""


def _ident(args: str, what: str) -> tuple[str, str]:
    match = _ID.match(args)
    if not match:
        raise ArgumentError(f"expected a {what} id")
    return match.group(0), args[match.end() :].strip()


def _free_text(text: str, what: str) -> str:
    """Trailing free text, optionally in double quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    if not text:
        raise ArgumentError(f"{what} is empty")
    return text


def _labelled(args: str, label: str) -> str | None:
    match = re.match(rf"{label}:\s*(.*)$", args, re.IGNORECASE)
    return match.group(1) if match else None


# Reads one verb's arguments, the text after the verb, into their type.
Builder = Callable[[str], Args]


class Grammar(NamedTuple):
    """How a verb is written: its forms, as usage shows them, and the reader of its arguments."""

    forms: tuple[str, ...]
    build: Builder

    @property
    def usage(self) -> str:
        return " | ".join(self.forms)


def syntax(*forms: str) -> Callable[[Builder], Grammar]:
    """Declares a builder's forms (after the prefix) next to the code that reads them.

    Applied as `verb = syntax(...)(_read_verb)` right after the reader rather than as a decorator:
    mutmut does not mutate decorated functions, and the readers are rules (docs/testing.md).
    """

    def declare(build: Builder) -> Grammar:
        return Grammar(forms, build)

    return declare


def only_id(verb: str, what: str) -> Grammar:
    """`<verb> <what>`: a single packet or constraint id."""

    def build(args: str) -> Args:
        target, rest = _ident(args, what)
        if rest:
            raise ArgumentError(f"unexpected text after the {what} id: {code_span(rest, 60)}")
        return Targeted(target)

    return Grammar((f"{verb} <{what}>",), build)


def _read_complete(args: str) -> Args:
    target, rest = _ident(args, "packet")
    receipt = None
    tail = re.search(r"\s*receipt:\s*(\S+)\s*$", rest, re.IGNORECASE)
    if tail:
        receipt = _receipt(tail.group(1))
        rest = rest[: tail.start()]
    result = _labelled(rest, "result")
    if result is None:
        raise ArgumentError("expected `result: <text>`")
    return Completion(target, _free_text(result, "result"), receipt)


def _receipt(text: str) -> IssueKey:
    """A receipt as the snapshot names issues (`#N`, `owner/repo#N`, an issue URL), never a bare
    number, which a comment's reader would not see as an issue."""
    try:
        issue = None if text.isdigit() else parse_issue(text)
    except ValueError:
        issue = None
    if issue is None:
        given = code_span(text, 40)
        raise ArgumentError(f"receipt must be an issue reference like #123 or owner/repo#123, not {given}")
    return issue


complete = syntax("complete <packet> result: <text> [receipt: #N]")(_read_complete)


def _read_state(args: str) -> Args:
    target, rest = _ident(args, "packet")
    wanted, _, tail = rest.partition(" ")
    if wanted not in WORK_STATES:
        raise ArgumentError(
            f"unknown state {code_span(wanted, 40)}; states: {', '.join(WORK_STATES)}" if wanted else "expected a state"
        )
    if wanted == "complete":
        raise ArgumentError("use `complete <packet> result: <text>` to complete a packet")
    reason = ""
    if tail.strip():
        found = _labelled(tail.strip(), "reason")
        if found is None:
            raise ArgumentError("expected `reason: <text>` after the state")
        reason = _free_text(found, "reason")
    return StateChange(target, wanted, reason)


state = syntax("state <packet> <state> [reason: <text>]")(_read_state)


def _read_block(args: str) -> Args:
    target, rest = _ident(args, "packet")
    return Blocking(target, _free_text(rest, "condition"))


block = syntax("block <packet> <condition>")(_read_block)


def _read_review(args: str) -> Args:
    target, rest = _ident(args, "constraint")
    by = None
    note = ""
    note_at = re.search(r"(?:^|\s)note:\s*", rest, re.IGNORECASE)
    if note_at:
        note = _free_text(rest[note_at.end() :], "note")
        rest = rest[: note_at.start()].strip()
    if rest:
        match = re.fullmatch(r"by\s+(\S+)", rest, re.IGNORECASE | re.ASCII)
        if not match:
            raise ArgumentError(f"unexpected text {code_span(rest, 60)}")
        try:
            by = (
                dt.date.fromisoformat(match.group(1))
                if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", match.group(1))
                else None
            )
        except ValueError:
            by = None
        if by is None:
            raise ArgumentError(f"{code_span(match.group(1), 40)} is not a date (YYYY-MM-DD)")
    return Review(target, by, note)


review = syntax("review <constraint> [by YYYY-MM-DD] [note: <text>]")(_read_review)


def _read_evidence(args: str) -> Args:
    target, rest = _ident(args, "constraint")
    cls, _, rest = rest.partition(" ")
    if not _CLASS.fullmatch(cls):
        raise ArgumentError("expected an evidence class such as `issue` or `accepted`")
    rest = rest.strip()
    if not rest.endswith(")"):
        raise ArgumentError("expected the reference in parentheses at the end: `(<ref>)`")
    depth = 0
    for index in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[index], 0)
        if depth == 0:
            summary, ref = rest[:index].strip(), rest[index + 1 : -1].strip()
            break
    else:
        raise ArgumentError("unbalanced parentheses around the reference")
    return Evidence(target, cls, _free_text(summary, "summary"), _free_text(ref, "reference"))


evidence = syntax("evidence <constraint> <class> <summary> (<ref>)")(_read_evidence)


def _read_exit_met(args: str) -> Args:
    target, rest = _ident(args, "constraint")
    ref = _labelled(rest, "met")
    if ref is None:
        raise ArgumentError("expected `met: <ref>`")
    return ExitMet(target, _free_text(ref, "reference"))


exit_met = syntax("exit <constraint> met: <ref>")(_read_exit_met)


def verb_only(verb: str) -> Grammar:
    """`<verb>` alone; any text after it is ignored."""

    def build(args: str) -> Args:
        return NoArgs()

    return Grammar((verb,), build)


def _read_drop(args: str) -> Args:
    if args.lower() == "all":
        return Drop(drop_all=True)
    ids = args.replace(",", " ").split()
    if not ids or not all(_DIGITS.fullmatch(i) for i in ids):
        raise ArgumentError("expected `all` or comment ids")
    return Drop(drop_ids=tuple(int(i) for i in ids))


drop = syntax("drop all", "drop <comment-id> [<comment-id> ...]")(_read_drop)
