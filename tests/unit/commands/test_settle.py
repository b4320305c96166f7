"""Settle: the compaction bound, from explicit inputs."""

from __future__ import annotations

from bot.commands.grammar import Blocking, Command
from bot.commands.pipeline import settled_through
from bot.commands.records import Decision, Verdict
from bot.commands.replay import Handled, Line
from tests.unit.commands.values import comment

BLOCK = Command("block", 1, "/perf block x y", Blocking(target="x", condition="y"))
HELP = Command("help", 1, "/perf help")


def handled(
    cid: int, command: Command | None, verdict: Verdict = "accepted", decision: Decision = "accepted"
) -> Handled:
    line = Line(1, "", command, verdict, decision, "")
    return Handled(comment(cid, "alice", ""), True, (line,))


def test_the_bound_stops_before_the_first_pending_change() -> None:
    done = [handled(101, HELP), handled(102, BLOCK, decision="replayed"), handled(103, HELP)]
    assert settled_through(100, done, frozenset(), set(), {}) == 101


def test_merged_dropped_lapsed_and_refused_changes_are_settled() -> None:
    done = [
        handled(101, BLOCK, decision="merged"),
        handled(102, BLOCK, decision="dropped"),
        handled(103, BLOCK, decision="lapsed"),
        handled(104, BLOCK, verdict="refused", decision="refused"),
        handled(105, None, verdict="refused", decision="refused"),
    ]
    assert settled_through(100, done, frozenset(), {(101, 1)}, {(102, 1): 110}) == 105


def test_the_ledger_and_the_drops_are_what_settle_an_accepted_change() -> None:
    done = [handled(101, BLOCK), handled(102, BLOCK)]
    assert settled_through(100, done, frozenset(), set(), {}) == 100
    assert settled_through(100, done, frozenset(), {(101, 1)}, {}) == 101
    assert settled_through(100, done, frozenset(), {(101, 1)}, {(102, 1): 103}) == 102


def test_a_waiting_comment_stops_the_bound_before_any_later_comment() -> None:
    done = [handled(101, HELP), handled(103, HELP)]
    assert settled_through(100, done, frozenset({102}), set(), {}) == 101
    assert settled_through(100, done, frozenset({100}), set(), {}) == 100


def test_the_bound_never_goes_below_the_floor_and_follows_comment_ids() -> None:
    assert settled_through(120, [], frozenset(), set(), {}) == 120
    assert settled_through(100, [handled(103, HELP), handled(101, HELP)], frozenset(), set(), {}) == 103
