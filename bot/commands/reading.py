"""Reading a comment: its command lines (`grammar`), each read by its verb's grammar (`registry`).

Total: never raises. A malformed line becomes a `ParseError` that names the problem and the
verb's usage.
"""

from __future__ import annotations

from bot.commands.grammar import VERBS, ArgumentError, Command, Parsed, ParseError, command_lines, has_raw_command_line
from bot.commands.registry import lookup
from bot.untrusted import code_span


def parse(body: str, prefix: str, max_comment: int, max_argument: int) -> Parsed:
    """Every command and every malformed command line of a comment."""
    if len(body) > max_comment:
        return Parsed(too_long=has_raw_command_line(body, prefix))
    commands: list[Command] = []
    errors: list[ParseError] = []
    for number, text in command_lines(body, prefix):
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
        return spec.build(number, text, args)
    except ArgumentError as bad:
        return f"{bad}; usage: {prefix} {spec.usage}"
