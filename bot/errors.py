"""User-facing errors: each carries the message a person reads; only `cli` catches them."""

from __future__ import annotations

from dataclasses import dataclass


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
