"""Follow-up runs: a run its write budget stopped with writes left asks for the next run itself. Pure.

A repository that switches on labels and links at a hundred times the seed plans thousands of
writes; at one run a day, making them would take months. So a run that made writes and left
some that a later run can make sends a `repository_dispatch` of type `perfbot-follow-up` (one
of the two events a job's GITHUB_TOKEN may start a run with), which the workflow listens for.
The follow-up plans afresh from GitHub, as every run does, and goes on at the pace the run
before it left (`bot/github/live/pacing.py`), carried in the dispatch's `client_payload`: the
workflow waits until `next_at` before the follow-up's writer job starts.

A chain of follow-ups ends: a run asks for one only when it made at least one write, failed no
write, was not overtaken by another run, and left writes; and a follow-up asks for the next only
when it left fewer writes than it was started for, so the count it carries falls with each run.
The workflow's concurrency group runs one at a time.
"""

from __future__ import annotations

import datetime as dt
import math

from bot.github.events import FOLLOW_UP as EVENT_TYPE
from bot.github.events import FollowUp

__all__ = ["EVENT_TYPE", "FollowUp", "payload", "wanted"]
from bot.reconcile.executor import Report
from bot.timestamps import utc_stamp


def wanted(report: Report, started_by: FollowUp | None) -> bool:
    """Whether this run asks for a follow-up (the chain's guard: see the module's docstring)."""
    if report.error is not None or report.superseded is not None or not report.done or report.left == 0:
        return False
    return started_by is None or report.left < started_by.writes_left


def payload(report: Report, pace: tuple[list[dt.datetime], dt.datetime] | None) -> dict[str, str]:
    """The dispatch's `client_payload`, text values: the writes left, and the pace (`events.follow_up`).
    Times are rounded up to the second: a request carried as later than it was never lets the
    next one out early."""
    carried = {"writes_left": str(report.left)}
    if pace is not None:
        sent, next_at = pace
        carried["sent"] = ",".join(str(math.ceil(moment.timestamp())) for moment in sent)
        carried["next_at"] = utc_stamp(next_at + dt.timedelta(microseconds=-next_at.microsecond % 1_000_000))
    return carried
