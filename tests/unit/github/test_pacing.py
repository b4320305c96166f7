"""The pacer keeps content-creating requests within GitHub's secondary limits (its pacer, below), as
seen by the double's model of them, across runs that carry what was sent."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.github.live import client
from bot.github.live.client import HOUR_SHARE, RUN_SECONDS, Pacer
from tests.github_double.limits import ContentLimits
from tests.support.backends import FakeClock

T0 = dt.datetime(2026, 8, 27, 17, tzinfo=dt.UTC)


def wall(clock: FakeClock) -> dt.datetime:
    return T0 + dt.timedelta(seconds=clock.now)


def test_an_idle_repository_sends_its_share_of_the_hour_at_once_a_second_apart_then_waits_the_hour_out() -> None:
    clock = FakeClock()
    pacer = Pacer.carried(T0, clock.monotonic, clock.wait)
    for _ in range(HOUR_SHARE):
        assert pacer.fits()
        pacer.before_request()
        clock.now += 1.0  # the write spacing of `traffic.py`
    assert clock.waits == []
    assert not pacer.fits()  # the hour's share is spent: the next request would wait past RUN_SECONDS
    assert (pacer.next_at() - T0).total_seconds() == 3600 + client.MARGIN


@settings(max_examples=20, deadline=None)
@given(
    runs=st.lists(
        st.tuples(st.integers(1, 120), st.floats(0, 400), st.floats(0, 2)),
        min_size=1,
        max_size=12,
    )
)
def test_no_chain_of_runs_is_ever_refused_by_githubs_limits(runs: list[tuple[int, float, float]]) -> None:
    """Runs of any size, started any time apart (the workflow's wait for `next_at` or not), each
    carrying what the run before it sent as the dispatch carries it (whole seconds, rounded up)."""
    clock = FakeClock()
    limits = ContentLimits(lambda: wall(clock), on=True)
    carried: list[dt.datetime] = []
    for writes, gap, spacing in runs:
        clock.now += gap
        pacer = Pacer.carried(wall(clock), clock.monotonic, clock.wait, carried)
        for _ in range(writes):
            if not pacer.fits():
                clock.now = max(clock.now, (pacer.next_at() - T0).total_seconds())  # the wait step
                pacer = Pacer.carried(wall(clock), clock.monotonic, clock.wait, pacer.sent_at())
            pacer.before_request()
            assert limits.admit() is None
            clock.now += spacing
        carried = [moment + dt.timedelta(microseconds=-moment.microsecond % 1_000_000) for moment in pacer.sent_at()]
    assert limits.refusals == []


def test_a_run_waits_at_most_run_seconds_for_the_pace() -> None:
    clock = FakeClock()
    sent = [T0 - dt.timedelta(seconds=3500 - n) for n in range(HOUR_SHARE)]
    pacer = Pacer.carried(T0, clock.monotonic, clock.wait, sent)
    assert pacer.fits()  # the oldest leaves the hour in 101 s
    pacer.before_request()
    assert clock.waits == [100 + client.MARGIN]
    far = Pacer.carried(T0, clock.monotonic, clock.wait, [T0] * HOUR_SHARE)
    assert not far.fits()
    far.before_request()  # a request the executor did not ask about goes after the run's bound
    assert far.waited == RUN_SECONDS


def test_times_after_the_runs_start_count_as_sent_then_and_older_than_an_hour_are_dropped() -> None:
    clock = FakeClock()
    future = T0 + dt.timedelta(days=365)
    old = T0 - dt.timedelta(hours=2)
    pacer = Pacer.carried(T0, clock.monotonic, clock.wait, [future, old])
    assert pacer.sent_at() == [T0]
