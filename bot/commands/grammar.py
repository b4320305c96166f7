"""Slash-command grammar: issue-comment text to typed commands or per-line errors. Total: never raises.

One command per line, starting with the configured prefix; lines inside code fences or `>`
quotes are not commands. Ids are checked against the snapshot later (`effects`), not here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal, get_args

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot.snapshot.model import WORK_STATES
from bot.untrusted import code_span

Verb = Literal[
    "complete", "claim", "unclaim", "state", "block", "unblock", "review", "evidence", "exit", "help", "drop"
]
VERBS: tuple[Verb, ...] = get_args(Verb)

_MARKDOWN = MarkdownIt("commonmark")
_DIGITS = re.compile(r"[0-9]{1,18}")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-/]*")
_ISSUE = re.compile(r"#([0-9]{1,9})")


@dataclass(frozen=True)
class Command:
    """A parsed command line; `target` is a packet or constraint id where the verb takes one."""

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
_ARGUMENTS = tuple(f.name for f in fields(Command)[3:])


@dataclass(frozen=True)
class ParseError:
    line: int
    text: str
    message: str


@dataclass(frozen=True)
class Parsed:
    commands: tuple[Command, ...] = ()
    errors: tuple[ParseError, ...] = ()
    too_long: bool = False

    @property
    def empty(self) -> bool:
        return not self.commands and not self.errors and not self.too_long


def command_lines(body: str, prefix: str) -> list[tuple[int, str]]:
    """(line number, text) of each line of a paragraph that starts with the prefix.

    The comment is read as CommonMark, the way people see it: lines in code blocks, fences, HTML
    blocks (including `<!-- -->` comments) and block quotes (lazy continuation lines too) are
    not paragraphs, so they are never commands.
    """
    if prefix not in body:
        return []
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    found: list[tuple[int, str]] = []
    quoted = 0
    for token in _MARKDOWN.parse(text):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        elif token.type == "inline" and not quoted and token.map:
            hidden = _inside_inline_html(token, lines)
            for number in range(token.map[0], token.map[1]):
                line = lines[number].strip()
                if number not in hidden and (line == prefix or line.startswith((prefix + " ", prefix + "\t"))):
                    found.append((number + 1, line))
    return found


def _inside_inline_html(paragraph: Token, lines: list[str]) -> set[int]:
    """Lines a multi-line inline HTML span (a `<!-- -->` comment, a tag) continues onto: hidden."""
    assert paragraph.map is not None
    first = paragraph.map[0]
    raw = "\n".join(lines[first : paragraph.map[1]])
    hidden: set[int] = set()
    offset = 0
    for child in paragraph.children or []:
        if child.type != "html_inline" or "\n" not in child.content:
            continue
        start = raw.find(child.content, offset)
        if start < 0:
            continue
        offset = start + len(child.content)
        top = first + raw.count("\n", 0, start)
        hidden.update(range(top + 1, top + 1 + child.content.count("\n")))
    return hidden


def has_raw_command_line(body: str, prefix: str) -> bool:
    """A cheap look for a command-like line, for comments too long to read properly."""
    return any(
        (line := raw.strip()) == prefix or line.startswith((prefix + " ", prefix + "\t")) for raw in body.split("\n")
    )


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


def only_id(verb: Verb, what: str) -> Builder:
    def build(number: int, text: str, args: str) -> Command:
        target, rest = _ident(args, what)
        if rest:
            raise ArgumentError(f"unexpected text after the {what} id: {code_span(rest, 60)}")
        return Command(verb, number, text, target=target)

    return build


def build_complete(number: int, text: str, args: str) -> Command:
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


def build_state(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    state, _, tail = rest.partition(" ")
    if state not in WORK_STATES:
        raise ArgumentError(
            f"unknown state {code_span(state, 40)}; states: {', '.join(WORK_STATES)}" if state else "expected a state"
        )
    if state == "complete":
        raise ArgumentError("use `complete <packet> result: <text>` to complete a packet")
    reason = ""
    if tail.strip():
        found = _labelled(tail.strip(), "reason")
        if found is None:
            raise ArgumentError("expected `reason: <text>` after the state")
        reason = _free_text(found, "reason")
    return Command("state", number, text, target=target, state=state, reason=reason)


def build_block(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    return Command("block", number, text, target=target, condition=_free_text(rest, "condition"))


def build_review(number: int, text: str, args: str) -> Command:
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


def build_evidence(number: int, text: str, args: str) -> Command:
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


def build_exit(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "constraint")
    ref = _labelled(rest, "met")
    if ref is None:
        raise ArgumentError("expected `met: <ref>`")
    return Command("exit", number, text, target=target, ref=_free_text(ref, "reference"))


def build_help(number: int, text: str, args: str) -> Command:
    return Command("help", number, text)


def build_drop(number: int, text: str, args: str) -> Command:
    if args.lower() == "all":
        return Command("drop", number, text, drop_all=True)
    ids = args.replace(",", " ").split()
    if not ids or not all(_DIGITS.fullmatch(i) for i in ids):
        raise ArgumentError("expected `all` or comment ids")
    return Command("drop", number, text, drop_ids=tuple(int(i) for i in ids))
