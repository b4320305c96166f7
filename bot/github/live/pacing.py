"""Pacing content-creating requests inside GitHub's documented secondary limits, across runs.

GitHub's REST docs ("Rate limits for the REST API", "About secondary rate limits") allow, in
general, no more than 80 content-generating requests per minute and no more than 500 per hour,
across the REST and GraphQL APIs. perfbot counts every REST write (POST, PATCH, PUT, DELETE) and
every GraphQL mutation as one, which is never fewer than GitHub counts.

The pacer keeps the times of the requests it sent in the last hour (`sent`) and lets a request
go only while the last minute holds fewer than `PER_MINUTE` and the last hour fewer than
`HOUR_SHARE`: 20 below GitHub's 500, left for the runs that answer people while a long chain
of follow-ups adopts a large repository, and for the dispatch that asks for the next run. The
windows slide, the strictest reading of "per minute" and "per hour", so a burst is sent at once
(writes stay a second apart, `traffic.py`) and the hour's share is used as early as GitHub lets it.

One run waits at most `RUN_SECONDS` for the pace: when the next write would need longer, the run
leaves the rest to a follow-up (`bot/reconcile/follow_up.py`), whose dispatch carries `sent` and
the time the next write may go (`next_at`); the workflow waits for that time before the
follow-up's writer job starts, outside the writer's concurrency group, so people's runs are not
held behind it.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# GitHub's figures ("About secondary rate limits").
PER_MINUTE = 80
PER_HOUR = 500
HOUR_SHARE = PER_HOUR - 20
WINDOWS = ((60.0, PER_MINUTE), (3600.0, HOUR_SHARE))
# Past a window's edge by this much before a request counts as outside it: the runs' clocks and
# GitHub's are not one clock.
MARGIN = 1.0
# Pacing waits one run makes before it leaves the rest of its writes to a follow-up: while it
# waits it holds the writer's concurrency group, and people's commands wait behind it.
RUN_SECONDS = 120.0


@dataclass
class Pacer:
    """The pace of content-creating requests; times are seconds on a monotonic clock that reads
    `origin` at wall time `start`."""

    start: dt.datetime
    monotonic: Callable[[], float]
    wait: Callable[[float], None]
    origin: float = 0.0
    sent: list[float] = field(default_factory=list)
    waited: float = 0.0

    @classmethod
    def carried(
        cls,
        start: dt.datetime,
        monotonic: Callable[[], float],
        wait: Callable[[float], None],
        sent: Iterable[dt.datetime] = (),
    ) -> Pacer:
        """A pacer that goes on from the requests earlier runs sent (none: an idle repository).
        A time after `start` (a skewed clock, a forged payload) counts as sent at `start`."""
        origin = monotonic()
        times = sorted(origin + min((moment - start).total_seconds(), 0.0) for moment in sent)
        return cls(start, monotonic, wait, origin, [t for t in times if origin - t < WINDOWS[-1][0] + MARGIN])

    def next_free(self) -> float:
        """The monotonic time the next request may go: now, or when each window has room again."""
        now = self.monotonic()
        free = now
        for window, most in WINDOWS:
            inside = len(self.sent) - bisect.bisect_right(self.sent, now - window - MARGIN)
            if inside >= most:
                free = max(free, self.sent[len(self.sent) - most] + window + MARGIN)
        return free

    def fits(self) -> bool:
        """Whether the next request's wait keeps this run's pacing waits within `RUN_SECONDS`."""
        return self.waited + self.next_free() - self.monotonic() <= RUN_SECONDS

    def before_request(self) -> None:
        """Wait until the next request may go (at most what is left of `RUN_SECONDS`: a request
        the executor did not ask about goes then, and a refusal is waited out by the retry
        policy), and count it."""
        delay = min(self.next_free() - self.monotonic(), max(RUN_SECONDS - self.waited, 0.0))
        if delay > 0:
            self.wait(delay)
            self.waited += delay
        now = self.monotonic()
        del self.sent[: bisect.bisect_right(self.sent, now - WINDOWS[-1][0] - MARGIN)]
        self.sent.append(now)

    def wall(self, moment: float) -> dt.datetime:
        return self.start + dt.timedelta(seconds=moment - self.origin)

    def next_at(self) -> dt.datetime:
        """When the next request may go, as wall time: when a follow-up starts writing."""
        return self.wall(self.next_free())

    def sent_at(self) -> list[dt.datetime]:
        """The requests of the last hour, as wall times: what a follow-up goes on from."""
        return [self.wall(t) for t in self.sent]
