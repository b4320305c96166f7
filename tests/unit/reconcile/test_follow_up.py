"""When a run asks for a follow-up, and what the dispatch carries (`bot/reconcile/executor.py`)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

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


def test_nothing_left_asks_for_no_follow_up() -> None:
    assert not chain.wanted(report(50, 0), None)
    assert not chain.wanted(report(50, 0), FollowUp(10))


@pytest.mark.parametrize(
    ("why", "fields"),
    [
        ("a write failed", {"error": GitHubError("boom")}),
        ("another run wrote", {"superseded": CommentAction(issue=1, topic="packet-ready", body="x")}),
    ],
)
def test_a_failed_or_overtaken_run_asks_for_none(why: str, fields: dict[str, object]) -> None:
    assert not chain.wanted(report(3, 10, **fields), None), why


def test_no_progress_asks_for_none_so_refusals_never_loop() -> None:
    assert not chain.wanted(report(0, 10), None)


def test_a_follow_up_asks_for_the_next_only_when_it_left_fewer_writes_than_it_was_started_for() -> None:
    assert chain.wanted(report(50, 100), None)
    assert chain.wanted(report(50, 100), FollowUp(150))
    assert not chain.wanted(report(50, 150), FollowUp(150))
    assert not chain.wanted(report(50, 200), FollowUp(150))


def test_the_payload_carries_the_count_and_the_pace_rounded_up_and_reads_back() -> None:
    carried = chain.payload(report(50, 7), ([T0, T0 + dt.timedelta(seconds=1)], T0))
    assert carried == {
        "writes_left": "7",
        "sent": f"{int(T0.timestamp()) + 1},{int(T0.timestamp()) + 2}",
        "next_at": "2026-08-27T17:00:01Z",
    }
    event = {"action": "perfbot-follow-up", "client_payload": carried}
    found = follow_up("repository_dispatch", json.dumps(event), "event.json")
    assert found is not None
    assert found.writes_left == 7
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
