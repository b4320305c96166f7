"""Slash-command grammar: the verbs, the typed command, and how each verb's arguments are written.

Each verb's `Grammar` pairs its forms (what usage shows) with the builder that reads its
arguments; a malformed argument raises `ArgumentError`, which `reading` turns into a per-line
error. Ids are checked against the snapshot later (`effects`), not here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Literal, NamedTuple, get_args

from bot.snapshot.model import WORK_STATES
from bot.untrusted import code_span

Verb = Literal[
    "complete", "claim", "unclaim", "state", "block", "unblock", "review", "evidence", "exit", "why", "help", "drop"
]
VERBS: tuple[Verb, ...] = get_args(Verb)

_DIGITS = re.compile(r"[0-9]{1,18}")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-/]*")
_ISSUE = re.compile(r"#([0-9]{1,9})")


class Command(NamedTuple):
    """A parsed command line, at its line in the comment.

    `target` is a packet or constraint id where the verb takes one; other arguments are set only
    by the verbs that take them.
    """

    verb: Verb
    line: int
    text: str
    target: str = ""
    state: str = ""
    result: str = ""
    receipt: int | None = None
    reason: str = ""
    condition: str = ""
    by: dt.date | None = None
    note: str = ""
    evidence_class: str = ""
    summary: str = ""
    ref: str = ""
    drop_ids: tuple[int, ...] = ()
    drop_all: bool = False

    def parsed(self) -> dict[str, object]:
        """The parsed form for the plan JSON: the verb and every argument that was given."""
        out: dict[str, object] = {"verb": self.verb}
        for name in _ARGUMENTS:
            value = getattr(self, name)
            if value not in ("", None, (), False):
                out[name] = value.isoformat() if isinstance(value, dt.date) else value
        return out


# Every field after verb, line and text is an argument, in the order the plan JSON lists them.
_ARGUMENTS = Command._fields[3:]


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


# Reads one verb's arguments: (line number, the line's text, the text after the verb) to a command.
Builder = Callable[[int, str, str], Command]


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


def only_id(verb: Verb, what: str) -> Grammar:
    """`<verb> <what>`: a single packet or constraint id."""

    def build(number: int, text: str, args: str) -> Command:
        target, rest = _ident(args, what)
        if rest:
            raise ArgumentError(f"unexpected text after the {what} id: {code_span(rest, 60)}")
        return Command(verb, number, text, target=target)

    return Grammar((f"{verb} <{what}>",), build)


def _read_complete(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    receipt = None
    tail = re.search(r"\s*receipt:\s*(\S+)\s*$", rest, re.IGNORECASE)
    if tail:
        issue = _ISSUE.fullmatch(tail.group(1))
        if not issue or int(issue.group(1)) <= 0:
            raise ArgumentError(f"receipt must be an issue reference like #123, not {code_span(tail.group(1), 40)}")
        receipt = int(issue.group(1))
        rest = rest[: tail.start()]
    result = _labelled(rest, "result")
    if result is None:
        raise ArgumentError("expected `result: <text>`")
    return Command("complete", number, text, target=target, result=_free_text(result, "result"), receipt=receipt)


complete = syntax("complete <packet> result: <text> [receipt: #N]")(_read_complete)


def _read_state(number: int, text: str, args: str) -> Command:
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
    return Command("state", number, text, target=target, state=wanted, reason=reason)


state = syntax("state <packet> <state> [reason: <text>]")(_read_state)


def _read_block(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    return Command("block", number, text, target=target, condition=_free_text(rest, "condition"))


block = syntax("block <packet> <condition>")(_read_block)


def _read_review(number: int, text: str, args: str) -> Command:
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
    return Command("review", number, text, target=target, by=by, note=note)


review = syntax("review <constraint> [by YYYY-MM-DD] [note: <text>]")(_read_review)


def _read_evidence(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "constraint")
    cls, _, rest = rest.partition(" ")
    if not _ID.fullmatch(cls):
        raise ArgumentError("expected an evidence class such as `issue` or `accepted`")
    rest = rest.strip()
    if not rest.endswith(")"):
        raise ArgumentError("expected the reference in parentheses at the end: (<ref>)")
    depth = 0
    for index in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[index], 0)
        if depth == 0:
            summary, ref = rest[:index].strip(), rest[index + 1 : -1].strip()
            break
    else:
        raise ArgumentError("unbalanced parentheses around the reference")
    return Command(
        "evidence",
        number,
        text,
        target=target,
        evidence_class=cls,
        summary=_free_text(summary, "summary"),
        ref=_free_text(ref, "reference"),
    )


evidence = syntax("evidence <constraint> <class> <summary> (<ref>)")(_read_evidence)


def _read_exit_met(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "constraint")
    ref = _labelled(rest, "met")
    if ref is None:
        raise ArgumentError("expected `met: <ref>`")
    return Command("exit", number, text, target=target, ref=_free_text(ref, "reference"))


exit_met = syntax("exit <constraint> met: <ref>")(_read_exit_met)


def verb_only(verb: Verb) -> Grammar:
    """`<verb>` alone; any text after it is ignored."""

    def build(number: int, text: str, args: str) -> Command:
        return Command(verb, number, text)

    return Grammar((verb,), build)


def _read_drop(number: int, text: str, args: str) -> Command:
    if args.lower() == "all":
        return Command("drop", number, text, drop_all=True)
    ids = args.replace(",", " ").split()
    if not ids or not all(_DIGITS.fullmatch(i) for i in ids):
        raise ArgumentError("expected `all` or comment ids")
    return Command("drop", number, text, drop_ids=tuple(int(i) for i in ids))


drop = syntax("drop all", "drop <comment-id> [<comment-id> ...]")(_read_drop)
