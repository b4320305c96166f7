"""When a run asks for a follow-up, and what the dispatch carries (`bot/reconcile/executor.py`)."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.github.actions import CommentAction, LabelAction
from bot.github.events import FollowUp, follow_up
from bot.github.port import GitHubError
from bot.reconcile import executor as chain
from bot.reconcile.executor import Report

LABEL = LabelAction(issue=1, name="perf/ready", add=True)
T0 = dt.datetime(2026, 8, 27, 17, 0, 0, 250_000, tzinfo=dt.UTC)


def report(done: int, left: int, **fields: object) -> Report:
    found = Report(done=[LABEL] * done, deferred=[LABEL] * left, left=left)
    for name, value in fields.items():
        setattr(found, name, value)
    return found


BUDGET = 50


def test_nothing_left_asks_for_no_follow_up() -> None:
    assert not chain.wanted(report(50, 0), None, BUDGET)
    assert not chain.wanted(report(50, 0), FollowUp(10), BUDGET)


@pytest.mark.parametrize(
    ("why", "fields"),
    [
        ("a write failed", {"error": GitHubError("boom")}),
        ("another run wrote", {"superseded": CommentAction(issue=1, topic="packet-ready", body="x")}),
    ],
)
def test_a_failed_or_overtaken_run_asks_for_none(why: str, fields: dict[str, object]) -> None:
    assert not chain.wanted(report(3, 10, **fields), None, BUDGET), why


def test_no_progress_asks_for_none_so_refusals_never_loop() -> None:
    assert not chain.wanted(report(0, 10), None, BUDGET)


def test_a_follow_up_whose_count_did_not_fall_goes_on_while_its_chain_has_runs_left() -> None:
    """A run the pace cut short, or whose writes uncovered others, left as many as it was started
    for: the chain goes on (the guard that stopped it there is gone), up to its bound."""
    assert chain.wanted(report(50, 100), None, BUDGET)
    assert chain.wanted(report(5, 150), FollowUp(150, run=3, runs_most=9), BUDGET)
    assert chain.wanted(report(5, 200), FollowUp(150, run=8, runs_most=9), BUDGET)
    assert not chain.wanted(report(5, 200), FollowUp(150, run=9, runs_most=9), BUDGET)


def test_the_first_run_bounds_its_chain_by_the_writes_it_left_and_the_budget() -> None:
    # 120 left at 50 a run: three budgets' worth, twice over, and one more run.
    assert chain.chain_step(report(50, 120), None, BUDGET) == (1, 7)
    assert chain.chain_step(report(50, 1), None, BUDGET) == (1, 3)
    # A follow-up keeps the lower of its own bound and the one it carries, which never rises.
    assert chain.chain_step(report(50, 120), FollowUp(170, run=2, runs_most=5), BUDGET) == (3, 5)
    assert chain.chain_step(report(50, 10), FollowUp(170, run=2, runs_most=50), BUDGET) == (3, 5)
    # A dispatch from before the chain carried a bound (or a forged one without it): its own.
    assert chain.chain_step(report(50, 120), FollowUp(170), BUDGET) == (2, 8)


def walk(lefts: list[int], budget: int) -> int:
    """The runs a chain takes when its runs, each of which wrote something, leave `lefts` (the
    last repeated as needed)."""
    started_by: FollowUp | None = None
    runs = 0
    while True:
        found = Report(done=[LABEL], left=lefts[min(runs, len(lefts) - 1)])
        runs += 1
        if not chain.wanted(found, started_by, budget):
            return runs
        carried = chain.payload(found, None, started_by, budget)
        started_by = follow_up(
            "repository_dispatch", json.dumps({"action": "perfbot-follow-up", "client_payload": carried}), "e"
        )
        assert started_by is not None


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 100), st.data())
def test_no_chain_loops_whatever_its_runs_leave(budget: int, data: st.DataObject) -> None:
    """Runs that each write something but leave as much or more (writes that uncover writes, a
    count that never falls) still end: at most the first run's bound, then the run that stops."""
    lefts = data.draw(st.lists(st.integers(1, 40 * budget), min_size=1, max_size=30))
    first = chain.chain_step(Report(done=[LABEL], left=lefts[0]), None, budget)[1]
    assert walk(lefts, budget) <= first + 1
    # A count that never falls runs to the bound exactly: the first run, its follow-ups, the last.
    assert walk([max(lefts)], budget) == chain.chain_step(Report(done=[LABEL], left=max(lefts)), None, budget)[1] + 1


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 100), st.integers(1, 40), st.data())
def test_a_chain_that_makes_half_its_budget_a_run_is_never_stopped(
    budget: int, budgets: int, data: st.DataObject
) -> None:
    """Each run makes at least half its budget of net progress (it wrote fewer, or its writes
    uncovered a few more): the chain runs until nothing is left."""
    left = data.draw(st.integers(1, budgets * budget))
    lefts = [left]
    while left:
        left = max(left - data.draw(st.integers(math.ceil(budget / 2), budget)), 0)
        lefts.append(left)
    assert walk(lefts, budget) == len(lefts)


def test_the_payload_carries_the_count_the_chain_step_and_the_pace_rounded_up_and_reads_back() -> None:
    carried = chain.payload(
        report(50, 7), ([T0, T0 + dt.timedelta(seconds=1)], T0), FollowUp(60, run=4, runs_most=9), 50
    )
    assert carried == {
        "writes_left": "7",
        "run": "5",
        "runs_most": "7",
        "sent": f"{int(T0.timestamp()) + 1},{int(T0.timestamp()) + 2}",
        "next_at": "2026-08-27T17:00:01Z",
    }
    event = {"action": "perfbot-follow-up", "client_payload": carried}
    found = follow_up("repository_dispatch", json.dumps(event), "event.json")
    assert found is not None
    assert (found.writes_left, found.run, found.runs_most) == (7, 5, 7)
    assert [moment >= T0 for moment in found.sent] == [True, True]
    assert found.next_at == dt.datetime(2026, 8, 27, 17, 0, 1, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("workflow_dispatch", {"action": "perfbot-follow-up", "client_payload": {"writes_left": "3"}}),
        ("repository_dispatch", {"action": "perfbot-leases", "client_payload": {"writes_left": "3"}}),
        ("repository_dispatch", {"action": "perfbot-follow-up", "client_payload": {"writes_left": "-3"}}),
        ("repository_dispatch", {"action": "perfbot-follow-up", "client_payload": {"writes_left": "٣"}}),
        ("repository_dispatch", {"action": "perfbot-follow-up", "client_payload": {"writes_left": 3}}),
        ("repository_dispatch", {"action": "perfbot-follow-up"}),
    ],
)
def test_only_a_follow_up_dispatch_with_a_count_is_a_follow_up(name: str, event: dict[str, object]) -> None:
    assert follow_up(name, json.dumps(event), "event.json") is None


def test_a_pace_that_cannot_be_read_is_left_out() -> None:
    carried = {"writes_left": "3", "sent": "12,x,-4,99999999999999", "next_at": "soon"}
    found = follow_up(
        "repository_dispatch", json.dumps({"action": "perfbot-follow-up", "client_payload": carried}), "e"
    )
    assert found == FollowUp(3, (dt.datetime.fromtimestamp(12, dt.UTC),), None)


@pytest.mark.parametrize(("run", "most"), [("x", "-1"), ("0", "1" * 10), ("٣", ""), ("", "x")])
def test_a_chain_step_that_cannot_be_read_is_the_first_follow_up_with_no_bound_carried(run: str, most: str) -> None:
    carried = {"writes_left": "3", "run": run, "runs_most": most}
    found = follow_up(
        "repository_dispatch", json.dumps({"action": "perfbot-follow-up", "client_payload": carried}), "e"
    )
    assert found == FollowUp(3)
