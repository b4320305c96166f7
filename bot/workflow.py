"""What a run leaves for the GitHub Actions workflow: the plan JSON file, the step outputs,
the job summary, and on failure the error annotations and a summary that counts them all."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from bot.annotations import error_annotations, failure_annotation
from bot.config import SHIPPED_TEMPLATES
from bot.errors import BotError, InputError
from bot.files import append_text, write_atomic
from bot.github.actions import CommentAction
from bot.reconcile.executor import Report
from bot.reconcile.plan import Plan
from bot.reconcile.summary import RunResult, failure_summary, job_summary, pull_request_number
from bot.render import Renderer


class Destinations(NamedTuple):
    """Where the results go; each is optional (outside Actions, none is set)."""

    plan_json: Path | None = None
    outputs: Path | None = None  # $GITHUB_OUTPUT
    summary: Path | None = None  # $GITHUB_STEP_SUMMARY
    server_url: str = "https://github.com"


def step_outputs(plan: Plan, report: Report | None, plan_json: Path | None) -> dict[str, str]:
    """The action's outputs; a dry run (no report) wrote nothing, so its PR operation is `none`."""
    pull = plan.pull_request()
    number = pull_request_number(plan, report)
    written = [a for a in (report.done if report else []) if isinstance(a, CommentAction)]
    return {
        "pull-request-number": "" if number is None else str(number),
        "pull-request-operation": pull.operation if report is not None and pull in report.done else "none",
        "comments-written": str(len(written)),
        "plan-json": "" if plan_json is None else str(plan_json),
    }


def outputs_text(outputs: dict[str, str]) -> str:
    """`name=value` lines as `$GITHUB_OUTPUT` reads them; a line break would forge another output."""
    for name, value in outputs.items():
        if value != " ".join(value.splitlines()):
            raise BotError(f"the step output {name} cannot hold a line break: {value!r}")
    return "".join(f"{name}={value}\n" for name, value in outputs.items())


def leave_results(result: RunResult, renderer: Renderer, to: Destinations) -> None:
    if to.plan_json is not None:
        write_atomic(to.plan_json, result.plan.model_dump_json(indent=2) + "\n")
    if to.outputs is not None:
        append_text(to.outputs, outputs_text(step_outputs(result.plan, result.report, to.plan_json)))
    if to.summary is not None:
        append_text(to.summary, job_summary(result, renderer, server_url=to.server_url))


def failure_lines(error: BotError) -> list[str]:
    """The annotations of a failed run: one per located problem (at most ten), else one."""
    if isinstance(error, InputError) and error.problems:
        return error_annotations(error.problems)
    return [failure_annotation(error.user_message())]


def leave_failure(error: BotError, summary: Path | None) -> None:
    if summary is None:
        return
    problems = error.problems if isinstance(error, InputError) else []
    text = failure_summary(Renderer.from_directory(SHIPPED_TEMPLATES), problems, error.user_message())
    append_text(summary, text)
