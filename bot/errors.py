"""User-facing errors: each carries the message a person reads; only `cli` catches them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError


@dataclass(frozen=True, order=True)
class Problem:
    """One finding located in an input file (1-based line and column; 0 when unknown)."""

    file: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        if self.line <= 0:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


class BotError(Exception):
    """An error whose message is meant for the person running perfbot."""

    def user_message(self) -> str:
        return str(self)


class InputError(BotError):
    """Bad input: one or more located problems. Nothing has been written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def input_error(file: str, message: str, line: int = 0, col: int = 0) -> InputError:
    return InputError([Problem(file, line, col, message)])


Locator = Callable[[tuple[str | int, ...]], tuple[int, int]]


def validation_problems(
    exc: ValidationError, file: str, locate: Locator | None = None, prefix: str = ""
) -> list[Problem]:
    """One located problem per pydantic error, worded for a person (`unknown key`, not `extra_forbidden`)."""
    problems = []
    for err in exc.errors(include_url=False):
        line, col = locate(err["loc"]) if locate else (0, 0)
        where = ".".join(str(p) for p in err["loc"]) or "(top)"
        if err["type"] == "extra_forbidden":
            message = "unknown key"
        elif err["type"] == "missing":
            message = "required key is missing"
        else:
            message = str(err["msg"]).removeprefix("Value error, ")
        problems.append(Problem(file, line, col, f"{prefix}{where}: {message}"))
    return problems
