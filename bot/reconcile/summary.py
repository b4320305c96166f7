"""The job summary: what one run found and did, as Markdown people read on the run's page.

The templates (`job-summary.md.j2`, `job-failed.md.j2`) put every value from outside (ids,
logins, lease holders, paths, messages) in a code span, so it shows as written and can neither
format, link nor ping. GitHub keeps at most 1 MiB of summary per step: long lists are cut.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from bot.annotations import MAX_ANNOTATIONS
from bot.errors import Problem
from bot.evidence.leases import LeaseReadback
from bot.github.actions import Action, PullRequestAction, ReactAction
from bot.issue_refs import IssueKey, issue_text, number_of, parse_issue, repository_of
from bot.reconcile.executor import Report
from bot.reconcile.plan import Plan
from bot.reconcile.schedule import is_write
from bot.render import Renderer
from bot.timestamps import duration, utc_stamp

MAX_ROWS = 100
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class RunResult(NamedTuple):
    """What one run decided and did, with what it read: the job summary and the outputs report it."""

    plan: Plan
    report: Report | None  # None for a dry run: nothing was written
    readback: LeaseReadback
    now: dt.datetime
    repository: str


def _rows(plan: Plan, report: Report | None) -> list[tuple[Action, str]]:
    """Each action with what became of it: planned (dry run), done or deferred."""
    if report is None:
        return [(a, "planned") for a in plan.actions if not _idle(a)]
    return [(a, "done" if a in report.done else "deferred") for a in plan.actions if not _idle(a)]


def _idle(action: Action) -> bool:
    return not is_write(action)


def pull_request_number(plan: Plan, report: Report | None) -> int | None:
    """The regeneration PR's number: the one this run wrote, else the open one the plan knows."""
    pull = plan.pull_request()
    if report is not None and pull in report.done and report.pull_request_number is not None:
        return report.pull_request_number
    return pull.number


def _pull_link(number: int | None, repository: str, server_url: str) -> str:
    if number is None:
        return ""
    if not _REPOSITORY.fullmatch(repository) or not server_url.startswith("https://"):
        return f"#{number}"
    return f"[#{number}]({server_url.rstrip('/')}/{repository}/pull/{number})"


def dashboard_link(plan: Plan, report: Report | None, repository: str, server_url: str) -> str:
    """The dashboard issue's link ("" when the dashboard is off or not opened yet)."""
    number = plan.dashboard.issue if plan.dashboard else None
    number = report.dashboard_number if report is not None and report.dashboard_number else number
    if number is None:
        return ""
    if not _REPOSITORY.fullmatch(repository) or not server_url.startswith("https://"):
        return f"#{number}"
    return f"[#{number}]({server_url.rstrip('/')}/{repository}/issues/{number})"


def newest_activity(readback: LeaseReadback) -> dt.datetime | None:
    """The latest acquire or heartbeat among the readback's leases, live or released."""
    stamps = [s for lease in (*readback.live, *readback.released) if (s := lease.last_seen()) is not None]
    return max(stamps, default=None)


def age(delta: dt.timedelta) -> str:
    return duration(int(delta.total_seconds() // 60))


def _relative(stamp: dt.datetime, now: dt.datetime) -> str:
    if stamp > now:
        return f"{age(stamp - now)} after this run's clock"
    return f"{age(now - stamp)} before this run"


def _reactions(rows: list[tuple[Action, str]]) -> dict[str, object]:
    """The run's reactions as one row: how many of each content, on how many comments, and their fate."""
    reacts = [(a, s) for a, s in rows if isinstance(a, ReactAction)]
    contents = Counter(f"{a.content} taken back" if a.remove else a.content for a, _ in reacts)
    return {
        "count": len(reacts),
        "contents": sorted(contents.items()),
        "comments": len({a.comment_id for a, _ in reacts}),
        "status": sorted(Counter(s for _, s in reacts).items()),
    }


def _order(plan: Plan) -> dict[str, int]:
    """Each packet's place in the snapshot, so pending states are listed in the page's order."""
    return {d.id: n for n, d in enumerate(plan.packets)}


def _comment_link(issue: IssueKey | str, comment_id: int, repository: str, server_url: str) -> str:
    """A command comment's link, for the summary's commands table (its number when no link is safe);
    a comment on another repository's issue links there."""
    key = parse_issue(issue)
    shown = issue_text(key)
    repository, number = repository_of(key) or repository, number_of(key)
    if not _REPOSITORY.fullmatch(repository) or not server_url.startswith("https://"):
        return f"{shown} (comment {comment_id})"
    url = f"{server_url.rstrip('/')}/{repository}/issues/{number}#issuecomment-{comment_id}"
    return f"[{shown} (comment {comment_id})]({url})"


def job_summary(result: RunResult, renderer: Renderer, server_url: str = "https://github.com") -> str:
    """The summary of a run."""
    plan, report = result.plan, result.report
    rows = _rows(plan, report)
    number = pull_request_number(plan, report)
    status = next((s for a, s in rows if isinstance(a, PullRequestAction)), "")
    newest = newest_activity(result.readback)
    read_at = result.readback.readback_at
    now_keys = set(plan.this_run)
    this_run = [c for c in plan.commands if (int(str(c["comment_id"])), int(str(c["line"]))) in now_keys]
    return renderer.render(
        "job-summary.md.j2",
        plan=plan,
        dry_run=report is None,
        moved=[p for p in plan.merged if p.recorded_state != p.derived_state],
        pending=sorted(plan.pending.items(), key=lambda item: _order(plan).get(item[0], 0)),
        rows=[(a, s) for a, s in rows if not isinstance(a, ReactAction)],
        reactions=_reactions(rows),
        commands=[
            (c, _comment_link(parse_issue(c["issue"]), int(str(c["comment_id"])), result.repository, server_url))
            for c in this_run
        ],
        earlier=len(plan.commands) - len(this_run),
        run_at=utc_stamp(result.now),
        max_rows=MAX_ROWS,
        done=sum(1 for _, s in rows if s == "done"),
        deferred=sum(1 for _, s in rows if s == "deferred"),
        pull_number=number,
        link=_pull_link(number, result.repository, server_url),
        pr_status=status,
        dashboard=dashboard_link(plan, report, result.repository, server_url),
        newest_activity=newest.isoformat() if newest else "",
        activity_age=_relative(newest, result.now) if newest else "",
        readback_age=_relative(read_at, result.now) if read_at else "",
    )


def failure_summary(renderer: Renderer, problems: Sequence[Problem], message: str) -> str:
    """The summary of a run that stopped: its located problems, or the one message it has."""
    annotated = min(len(problems), MAX_ANNOTATIONS)
    return renderer.render(
        "job-failed.md.j2",
        problems=list(problems),
        annotated=annotated,
        hidden=len(problems) - annotated,
        max_rows=MAX_ROWS,
        message=message,
    )
