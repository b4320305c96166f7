"""Slash-command grammar: issue-comment text to typed commands or per-line errors. Total: never raises.

One command per line, starting with the configured prefix; lines inside code fences or `>`
quotes are not commands. Ids are checked against the snapshot later (`effects`), not here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot.snapshot.model import WORK_STATES
from bot.untrusted import code_span

Verb = Literal[
    "complete", "claim", "unclaim", "state", "block", "unblock", "review", "evidence", "exit", "help", "drop"
]
VERBS: tuple[Verb, ...] = (
    "complete",
    "claim",
    "unclaim",
    "state",
    "block",
    "unblock",
    "review",
    "evidence",
    "exit",
    "help",
    "drop",
)
MUTATING: frozenset[str] = frozenset({"complete", "state", "block", "unblock", "review", "evidence", "exit"})
# Commands a packet's own assignee may use without write permission.
ASSIGNEE_VERBS: frozenset[str] = frozenset({"claim", "unclaim", "block"})
USAGE: dict[str, str] = {
    "complete": "complete <packet> result: <text> [receipt: #N]",
    "claim": "claim <packet>",
    "unclaim": "unclaim <packet>",
    "state": "state <packet> <state> [reason: <text>]",
    "block": "block <packet> <condition>",
    "unblock": "unblock <packet>",
    "review": "review <constraint> [by YYYY-MM-DD] [note: <text>]",
    "evidence": "evidence <constraint> <class> <summary> (<ref>)",
    "exit": "exit <constraint> met: <ref>",
    "help": "help",
    "drop": "drop all | drop <comment-id> [<comment-id> ...]",
}

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
        for name in (
            "target",
            "state",
            "result",
            "receipt",
            "reason",
            "condition",
            "by",
            "note",
            "evidence_class",
            "summary",
            "ref",
            "drop_ids",
            "drop_all",
        ):
            value = getattr(self, name)
            if value not in ("", None, (), False):
                out[name] = value.isoformat() if isinstance(value, dt.date) else value
        return out


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


@dataclass
class _Limits:
    prefix: str
    max_argument: int
    errors: list[ParseError] = field(default_factory=list)


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


def _raw_command_line(body: str, prefix: str) -> bool:
    """A cheap look for a command-like line, for comments too long to read properly."""
    return any(
        (line := raw.strip()) == prefix or line.startswith((prefix + " ", prefix + "\t")) for raw in body.split("\n")
    )


def parse(body: str, prefix: str, max_comment: int, max_argument: int) -> Parsed:
    """Every command and every malformed command line of a comment. Never raises."""
    if len(body) > max_comment:
        return Parsed(too_long=_raw_command_line(body, prefix))
    lines = command_lines(body, prefix)
    if not lines:
        return Parsed()
    limits = _Limits(prefix, max_argument)
    commands = []
    for number, text in lines:
        command = _parse_line(number, text, limits)
        if command is not None:
            commands.append(command)
    return Parsed(tuple(commands), tuple(limits.errors))


def _parse_line(number: int, text: str, limits: _Limits) -> Command | None:
    rest = text[len(limits.prefix) :].strip()
    word, _, args = rest.partition(" ")
    verb = word.lower()
    args = args.strip()

    def fail(message: str) -> None:
        limits.errors.append(ParseError(number, text, message))

    if verb not in VERBS:
        fail(f"unknown command {code_span(word, 40)}; known: {', '.join(VERBS)}" if word else "no command given")
        return None
    if len(args) > limits.max_argument:
        fail(f"arguments are {len(args)} characters long; the limit is {limits.max_argument}")
        return None
    try:
        return _BUILDERS[verb](number, text, args)
    except _Bad as bad:
        fail(f"{bad}; usage: {limits.prefix} {USAGE[verb]}")
        return None


class _Bad(Exception):
    """A malformed argument (internal to the parser; it becomes a ParseError)."""


def _ident(args: str, what: str) -> tuple[str, str]:
    match = _ID.match(args)
    if not match:
        raise _Bad(f"expected a {what} id")
    return match.group(0), args[match.end() :].strip()


def _free_text(text: str, what: str) -> str:
    """Trailing free text, optionally in double quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    if not text:
        raise _Bad(f"{what} is empty")
    return text


def _labelled(args: str, label: str) -> str | None:
    match = re.match(rf"{label}:\s*(.*)$", args, re.IGNORECASE)
    return match.group(1) if match else None


_Builder = Callable[[int, str, str], Command]


def _only_id(verb: Verb, what: str) -> _Builder:
    def build(number: int, text: str, args: str) -> Command:
        target, rest = _ident(args, what)
        if rest:
            raise _Bad(f"unexpected text after the {what} id: {code_span(rest, 60)}")
        return Command(verb, number, text, target=target)

    return build


def _complete(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    receipt = None
    tail = re.search(r"\s*receipt:\s*(\S+)\s*$", rest, re.IGNORECASE)
    if tail:
        issue = _ISSUE.fullmatch(tail.group(1))
        if not issue or int(issue.group(1)) <= 0:
            raise _Bad(f"receipt must be an issue reference like #123, not {code_span(tail.group(1), 40)}")
        receipt = int(issue.group(1))
        rest = rest[: tail.start()]
    result = _labelled(rest, "result")
    if result is None:
        raise _Bad("expected `result: <text>`")
    return Command("complete", number, text, target=target, result=_free_text(result, "result"), receipt=receipt)


def _state(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    state, _, tail = rest.partition(" ")
    if state not in WORK_STATES:
        raise _Bad(
            f"unknown state {code_span(state, 40)}; states: {', '.join(WORK_STATES)}" if state else "expected a state"
        )
    if state == "complete":
        raise _Bad("use `complete <packet> result: <text>` to complete a packet")
    reason = ""
    if tail.strip():
        found = _labelled(tail.strip(), "reason")
        if found is None:
            raise _Bad("expected `reason: <text>` after the state")
        reason = _free_text(found, "reason")
    return Command("state", number, text, target=target, state=state, reason=reason)


def _block(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "packet")
    return Command("block", number, text, target=target, condition=_free_text(rest, "condition"))


def _review(number: int, text: str, args: str) -> Command:
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
            raise _Bad(f"unexpected text {code_span(rest, 60)}")
        try:
            by = (
                dt.date.fromisoformat(match.group(1))
                if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", match.group(1))
                else None
            )
        except ValueError:
            by = None
        if by is None:
            raise _Bad(f"{code_span(match.group(1), 40)} is not a date (YYYY-MM-DD)")
    return Command("review", number, text, target=target, by=by, note=note)


def _evidence(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "constraint")
    cls, _, rest = rest.partition(" ")
    if not _ID.fullmatch(cls):
        raise _Bad("expected an evidence class such as `issue` or `accepted`")
    rest = rest.strip()
    if not rest.endswith(")"):
        raise _Bad("expected the reference in parentheses at the end: (<ref>)")
    depth = 0
    for index in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[index], 0)
        if depth == 0:
            summary, ref = rest[:index].strip(), rest[index + 1 : -1].strip()
            break
    else:
        raise _Bad("unbalanced parentheses around the reference")
    return Command(
        "evidence",
        number,
        text,
        target=target,
        evidence_class=cls,
        summary=_free_text(summary, "summary"),
        ref=_free_text(ref, "reference"),
    )


def _exit(number: int, text: str, args: str) -> Command:
    target, rest = _ident(args, "constraint")
    ref = _labelled(rest, "met")
    if ref is None:
        raise _Bad("expected `met: <ref>`")
    return Command("exit", number, text, target=target, ref=_free_text(ref, "reference"))


def _help(number: int, text: str, args: str) -> Command:
    return Command("help", number, text)


def _drop(number: int, text: str, args: str) -> Command:
    if args.lower() == "all":
        return Command("drop", number, text, drop_all=True)
    ids = args.replace(",", " ").split()
    if not ids or not all(_DIGITS.fullmatch(i) for i in ids):
        raise _Bad("expected `all` or comment ids")
    return Command("drop", number, text, drop_ids=tuple(int(i) for i in ids))


_BUILDERS: dict[str, _Builder] = {
    "complete": _complete,
    "claim": _only_id("claim", "packet"),
    "unclaim": _only_id("unclaim", "packet"),
    "state": _state,
    "block": _block,
    "unblock": _only_id("unblock", "packet"),
    "review": _review,
    "evidence": _evidence,
    "exit": _exit,
    "help": _help,
    "drop": _drop,
}
