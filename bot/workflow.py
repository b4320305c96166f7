"""What a run leaves for the GitHub Actions workflow: the plan JSON file, the step outputs,
the job summary, and on failure the error annotations and a summary that counts them all."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from bot.annotations import error_annotations, failure_annotation
from bot.config import SHIPPED_TEMPLATES
from bot.errors import BotError, InputError
from bot.files import append_text, write_atomic
from bot.github.actions import NUDGE_TOPICS, CommentAction, EditCommentAction
from bot.issue_refs import issue_json, sorted_issues
from bot.reconcile.summary import RunResult, failure_summary, job_summary, pull_request_number
from bot.render import Renderer


class Destinations(NamedTuple):
    """Where the results go; each is optional (outside Actions, none is set)."""

    plan_json: Path | None = None
    outputs: Path | None = None  # $GITHUB_OUTPUT
    summary: Path | None = None  # $GITHUB_STEP_SUMMARY
    server_url: str = "https://github.com"


# `pull-request-operation` in create-pull-request's words (its README, "Action outputs"), so a
# condition copied from its docs matches; the plan JSON keeps the verbs.
OPERATION_OUTPUT = {"create": "created", "update": "updated", "close": "closed", "none": "none"}
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def step_outputs(result: RunResult, plan_json: Path | None, server_url: str) -> dict[str, str]:
    """The action's outputs (described in action.yml); a dry run (no report) wrote nothing, so its
    PR operation is `none`, no head was committed, no comment written and no issue nudged. The
    PR's number, address and branch name the PR this run wrote, else the open one."""
    plan, report = result.plan, result.report
    pull = plan.pull_request()
    number = pull_request_number(plan, report)
    done = report.done if report is not None else []
    posted = [a for a in done if isinstance(a, CommentAction)]
    edited = [a for a in done if isinstance(a, EditCommentAction)]
    nudged = sorted_issues({a.issue for a in posted if a.topic in NUDGE_TOPICS})
    return {
        "pull-request-number": "" if number is None else str(number),
        "pull-request-operation": OPERATION_OUTPUT[pull.operation] if pull in done else "none",
        "pull-request-url": _pull_url(number, result.repository, server_url),
        "pull-request-branch": "" if number is None else pull.branch,
        "pull-request-head-sha": (report.pull_request_head or "") if report is not None and pull in done else "",
        "comments-written": str(len(posted) + len(edited)),
        "nudged-issues": json.dumps([issue_json(n) for n in nudged]),
        "plan-json": "" if plan_json is None else str(plan_json),
    }


def _pull_url(number: int | None, repository: str, server_url: str) -> str:
    if number is None or not _REPOSITORY.fullmatch(repository):
        return ""
    return f"{server_url.rstrip('/')}/{repository}/pull/{number}"


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
        append_text(to.outputs, outputs_text(step_outputs(result, to.plan_json, to.server_url)))
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
