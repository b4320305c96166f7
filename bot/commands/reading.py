"""Reading a comment: its command lines, each read by its verb's grammar. Total: never raises.

One command per line, starting with the configured prefix; lines that people do not see as
paragraph text (code, HTML, quotes) are not commands. A malformed line becomes a `ParseError`
that names the problem and the verb's usage.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot.commands.grammar import VERBS, ArgumentError, Command
from bot.commands.registry import lookup
from bot.untrusted import code_span

_MARKDOWN = MarkdownIt("commonmark")


@dataclass(frozen=True)
class ParseError:
    """A command line that could not be read, and why."""

    line: int
    text: str
    message: str


@dataclass(frozen=True)
class Parsed:
    """A comment's commands and malformed lines; `too_long` when it was too long to read at all."""

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
    # Normalised as markdown-it normalises its input, so its tokens' text is found in these lines.
    text = body.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
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
        return spec.grammar.build(number, text, args)
    except ArgumentError as bad:
        return f"{bad}; usage: {prefix} {spec.grammar.usage}"
