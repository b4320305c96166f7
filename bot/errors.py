"""User-facing errors: each carries the message a person reads; only `cli` catches them."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from pydantic import ValidationError

from bot.untrusted import neutral, one_line


class Problem(NamedTuple):
    """One finding located in an input file (1-based line and column; 0 when unknown)."""

    file: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        file, message = one_line(self.file), one_line(self.message)
        if self.line <= 0:
            return f"{file}: {message}"
        if self.col <= 0:
            return f"{file}:{self.line}: {message}"
        return f"{file}:{self.line}:{self.col}: {message}"


class BotError(Exception):
    """An error whose message is meant for the person running perfbot."""

    def user_message(self) -> str:
        return str(self)


# An error lists its first hundred problems and counts the rest: a file with 200,000 unknown keys
# would otherwise print megabytes that no one reads, and the first ones say what to fix.
SHOWN_PROBLEMS = 100


class InputError(BotError):
    """Bad input: one or more located problems. Nothing has been written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(shown_problems(problems)))


def shown_problems(problems: list[Problem]) -> list[str]:
    """The first `SHOWN_PROBLEMS` problems as lines, then one line that counts the rest."""
    lines = [str(p) for p in problems[:SHOWN_PROBLEMS]]
    hidden = len(problems) - SHOWN_PROBLEMS
    if hidden > 0:
        lines.append(f"… and {hidden} more {'problem' if hidden == 1 else 'problems'}")
    return lines


class OutputError(BotError):
    """A file perfbot writes could not be written; the message names it and why."""


class ProposalRefused(BotError):
    """The run decided a snapshot it could not write faithfully: no PR is proposed, nothing is written."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"perfbot refused to propose the pull request: {reason}; nothing was written")


def input_error(file: str, message: str, line: int = 0, col: int = 0) -> InputError:
    return InputError([Problem(file, line, col, message)])


Locator = Callable[[tuple[str | int, ...]], tuple[int, int]]
# Names the record a key path points into (`work packet "m1"`) and returns the rest of the path.
Labeler = Callable[[tuple[str | int, ...]], "tuple[str, tuple[str | int, ...]] | None"]
# Key paths come from the input (a mapping's keys): each part is shown short and on one line.
_PART_LIMIT = 60


def validation_problems(
    exc: ValidationError, file: str, locate: Locator | None = None, prefix: str = "", label: Labeler | None = None
) -> list[Problem]:
    """One located problem per pydantic error, worded for a person (`unknown key`, not `extra_forbidden`)."""
    problems = []
    for err in exc.errors(include_url=False):
        line, col = locate(err["loc"]) if locate else (0, 0)
        named = label(err["loc"]) if label else None
        entity, rest = named if named else ("", err["loc"])
        where = ".".join(_part(p) for p in rest) or ("" if entity else "(top)")
        if err["type"] == "extra_forbidden":
            message = "unknown key"
        elif err["type"] == "missing":
            message = "required key is missing"
        else:
            message = str(err["msg"]).removeprefix("Value error, ")
        head = ": ".join(x for x in (entity, where) if x)
        problems.append(Problem(file, line, col, f"{prefix}{head}: {message}"))
    return problems


def _part(part: object) -> str:
    return neutral(str(part), _PART_LIMIT)
