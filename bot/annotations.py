"""Error annotations for the GitHub Actions log: `::error file=…,line=…,col=…::message`.

GitHub shows about ten error annotations per step, so at most ten are written; the job summary
counts the rest. Values are escaped as workflow commands require, so a message cannot end its
command early or start another.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.errors import Problem

MAX_ANNOTATIONS = 10


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(problem: Problem) -> str:
    where = [f"file={_property(problem.file)}"]
    if problem.line > 0:
        where += [f"line={problem.line}", f"col={max(problem.col, 1)}"]
    return f"::error {','.join(where)}::{_data(problem.message)}"


def error_annotations(problems: Sequence[Problem]) -> list[str]:
    """The first `MAX_ANNOTATIONS` problems as annotation lines."""
    return [annotation(p) for p in problems[:MAX_ANNOTATIONS]]


def failure_annotation(message: str) -> str:
    """A run that failed without a location (a missing token, a refused API call)."""
    return f"::error title=perfbot::{_data(message)}"
