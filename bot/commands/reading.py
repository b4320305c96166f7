"""Reading a comment: its command lines, each read by its verb's grammar. Total: never raises.

One command per line, starting with the configured prefix; only lines that GitHub shows as
paragraph text count (`visible`), so code, HTML, quotes, tables and hidden spans are never
commands. A malformed line becomes a `ParseError` that names the problem and the verb's usage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from bot.commands.grammar import ArgumentError, Command
from bot.commands.registry import VERBS, lookup
from bot.commands.visible import paragraph_lines, starts_command
from bot.untrusted import code_span


@dataclass(frozen=True)
class CommandLine:
    """A line of a comment that starts with the command prefix: its number (1-based) and its text."""

    line: int
    text: str


@dataclass(frozen=True)
class ParseError(CommandLine):
    """A command line that could not be read, and why."""

    message: str


class Parsed(NamedTuple):
    """A comment's commands and malformed lines; `too_long` when it was too long to read at all,
    `too_intricate` when it holds more markup before its last command line than perfbot reads."""

    commands: tuple[Command, ...] = ()
    errors: tuple[ParseError, ...] = ()
    too_long: bool = False
    too_intricate: bool = False

    @property
    def empty(self) -> bool:
        return not self.commands and not self.errors and not self.too_long and not self.too_intricate


def command_lines(body: str, prefix: str) -> list[tuple[int, str]] | None:
    """(line number, text) of each line that GitHub shows as paragraph text and that starts with the prefix.

    See `visible`: lines in code, HTML, quotes, headings, tables, tight list items, or inside a
    span that hides or restyles them (code spans, image alt text, links, HTML) are not commands.
    None when the comment is too intricate to read (see `visible.paragraph_lines`).
    """
    return paragraph_lines(body, prefix)


def has_raw_command_line(body: str, prefix: str) -> bool:
    """A cheap look for a command-like line, for comments too long to read properly."""
    return any(starts_command(raw.strip(), prefix) for raw in body.split("\n"))


def parse(body: str, prefix: str, max_comment: int, max_argument: int) -> Parsed:
    """Every command and every malformed command line of a comment."""
    if len(body) > max_comment:
        return Parsed(too_long=has_raw_command_line(body, prefix))
    lines = command_lines(body, prefix)
    if lines is None:
        return Parsed(too_intricate=True)
    commands: list[Command] = []
    errors: list[ParseError] = []
    for number, text in lines:
        read = _read_line(text, prefix, max_argument, number)
        if isinstance(read, str):
            errors.append(ParseError(number, text, read))
        else:
            commands.append(read)
    return Parsed(tuple(commands), tuple(errors))


def _read_line(text: str, prefix: str, max_argument: int, number: int) -> Command | str:
    """The command on one line, or what is wrong with it."""
    word, _, args = text[len(prefix) :].strip().partition(" ")
    spec = lookup(word.lower())
    args = args.strip()
    if spec is None:
        return f"unknown command {code_span(word, 40)}; known: {', '.join(VERBS)}" if word else "no command given"
    if len(args) > max_argument:
        return f"arguments are {len(args)} characters long; the limit is {max_argument}"
    try:
        return Command(spec.verb, number, text, spec.grammar.build(args))
    except ArgumentError as bad:
        return f"{bad}; usage: {prefix} {spec.grammar.usage}"
