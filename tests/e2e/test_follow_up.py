"""Issue #43: work a run's write budget leaves is finished by follow-up runs the bot asks for
itself, paced within GitHub's secondary content limits, which the double models.

Each chain runs on a simulated clock (`tests/support/follow_up_chain.py`): the seed's repository
before perfbot kept labels and links, with both switched on.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.adoption import before_perfbot
from benchmarks.worlds import repository
from bot.github.live.client import HOUR_SHARE
from tests.github_double.limits import ANSWERS
from tests.support.backends import FakeClock
from tests.support.follow_up_chain import T0, Chain, least_seconds, on_the_double, writes_planned


def adopting(root: Path, factor: int = 1) -> dict[str, Any]:
    state_path = repository(root, factor)
    before_perfbot(state_path)
    state: dict[str, Any] = json.loads(state_path.read_text(encoding="utf-8"))
    return state


def chain_on(root: Path, budget: int, state: dict[str, Any] | None = None) -> Chain:
    clock = FakeClock()
    double = on_the_double(root, state if state is not None else adopting(root), clock)
    return Chain(root, double, budget=budget, clock=clock)


def content_writes(chain: Chain) -> int:
    return sum(1 for entry in chain.double.requests if entry["kind"] == "rest_write" and entry["status"] != 403)


def test_the_repository_settles_with_no_person_acting_one_follow_up_at_a_time(tmp_path: Path) -> None:
    chain = chain_on(tmp_path, budget=10)
    first = chain.run("workflow_dispatch", {"inputs": {}}, dry_run=True)
    planned = writes_planned(chain.plans[0])
    assert first is None
    assert planned > 25
    chain.settle()
    # Each run made its budget's writes (labels added to one issue together count as one) and
    # the last one left none: it asked for no follow-up.
    assert chain.runs >= 4
    assert "asked for a follow-up" not in chain.errors[-1]
    assert all("asked for a follow-up" in said for said in chain.errors[1:-1])
    dispatches = chain.double.world.records("dispatches")
    assert len(dispatches) == chain.runs - 1
    lefts = [int(d["client_payload"]["writes_left"]) for d in dispatches]
    assert lefts == sorted(lefts, reverse=True)
    # Each dispatch numbers the run it starts, under a bound that never rises.
    assert [int(d["client_payload"]["run"]) for d in dispatches] == list(range(1, chain.runs))
    bounds = [int(d["client_payload"]["runs_most"]) for d in dispatches]
    assert bounds == sorted(bounds, reverse=True)
    assert chain.runs - 1 <= bounds[-1]
    assert chain.run("schedule", {}, dry_run=True) is None
    assert writes_planned(chain.plans[-1]) == 0
    assert chain.double.content.refusals == []


def test_a_run_with_nothing_left_asks_for_no_follow_up(tmp_path: Path) -> None:
    chain = chain_on(tmp_path, budget=500)
    assert chain.run("workflow_dispatch", {"inputs": {}}) is None  # one run made every write
    assert chain.run("schedule", {}) is None
    assert writes_planned(chain.plans[-1]) == 0
    assert chain.double.world.records("dispatches") == []


def test_a_follow_up_of_a_full_hour_waits_for_githubs_limits_and_is_never_refused(tmp_path: Path) -> None:
    """The chain starts as a follow-up whose run before it sent nearly the hour's share in the
    last ten minutes: the next writes wait until the hour lets them, in the workflow's wait step
    (the run leaves them to a follow-up rather than hold the writer's group), and none is refused."""
    chain = chain_on(tmp_path, budget=25)
    sent = [T0 - dt.timedelta(seconds=600 - n) for n in range(HOUR_SHARE - 5)]
    chain.double.content.sent.extend(sent)
    carried = {"writes_left": "1000", "sent": ",".join(str(int(moment.timestamp())) for moment in sent)}
    chain.settle({"event_type": "perfbot-follow-up", "client_payload": carried})
    assert chain.double.content.refusals == []
    assert chain.double.content.early == 0
    # Five writes went at once; the rest had to wait for the first of the hour to leave it.
    assert chain.clock.now >= 3000
    assert chain.clock.now <= 3600 + 60 * chain.runs
    assert chain.run("schedule", {}, dry_run=True) is None
    assert writes_planned(chain.plans[-1]) == 0


@pytest.mark.parametrize("answer", ["retry-after", "no header"])
@pytest.mark.parametrize("status", [403, 429])
def test_a_refusal_from_a_window_others_filled_is_waited_out(tmp_path: Path, answer: str, status: int) -> None:
    """Content created by someone else (the same app in another workflow) filled the minute: the
    run, knowing nothing of it, is refused once, waits what GitHub said, and goes on."""
    assert answer in ANSWERS
    chain = chain_on(tmp_path, budget=10)
    chain.double.content.sent.extend([T0] * 80)
    chain.double.content.answer, chain.double.content.status = answer, status
    chain.run("workflow_dispatch", {"inputs": {}})
    refusals = chain.double.content.refusals
    assert len(refusals) == 1
    assert chain.double.content.early == 0
    assert content_writes(chain) >= 10


def test_the_least_time_githubs_limits_allow() -> None:
    assert least_seconds(1) == 0
    assert least_seconds(80) == 0
    assert least_seconds(81) == 60
    assert least_seconds(500) == 360
    assert least_seconds(501) == 3600
    assert least_seconds(3902) == 7 * 3600 + 60 * (401 // 80)
