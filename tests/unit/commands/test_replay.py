"""Decide and replay: the fold's working state and each line's outcome, on in-memory values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import pytest

from bot.commands.effects import Explainer
from bot.commands.reading import Parsed
from bot.commands.records import Key, Record
from bot.commands.replay import Context, Handled, Line, Working, fold, permission_lost
from bot.commands.selection import Fresh, Recalled, Work
from bot.config import BotConfig
from bot.github.actions import AssignAction
from bot.github.observed import Permission
from bot.issue_refs import IssueKey
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from tests.unit.commands.values import CUDA, M1, comment, fresh, recalled

COMPLETE = f"/perf complete {M1} result: done"


@dataclass(frozen=True)
class Seen:
    """What the fold reads besides the config: the ledger, drops, notices, reactions, comments."""

    ledger: frozenset[Key] = frozenset()
    dropped: Mapping[Key, int] = field(default_factory=dict)
    lapsed_said: frozenset[str] = frozenset()
    finished: frozenset[int] = frozenset()
    present: frozenset[int] = frozenset()


class Folder(Protocol):
    def __call__(
        self, *queue: Work, seen: Seen = ..., accepted: frozenset[Key] = ...
    ) -> tuple[Working, list[Handled]]: ...


@pytest.fixture
def run(seed: Snapshot, config: BotConfig, renderer: Renderer) -> Folder:
    def fold_queue(
        *queue: Work, seen: Seen = Seen(), accepted: frozenset[Key] = frozenset()
    ) -> tuple[Working, list[Handled]]:
        """Fold `queue` from the seed, with issues 9497 and 8325 observed unassigned."""
        permissions: dict[str, Permission] = {"alice": "write", "root": "admin"}
        context = Context(
            config, renderer, permissions, seen.ledger, seen.dropped, seen.lapsed_said, seen.finished, seen.present
        )
        return fold(Working(seed, {9497: (), 8325: ()}, accepted), queue, context)

    return fold_queue


def outcomes(handled: list[Handled]) -> list[tuple[int, int, str, str]]:
    return [(h.comment.id, line.line, line.verdict, line.decision) for h in handled for line in h.lines]


def state_of(snapshot: Snapshot, packet_id: str) -> str:
    packet = snapshot.packet(packet_id)
    assert packet is not None
    return packet.state


def test_a_writers_command_changes_the_working_snapshot_and_is_recorded(seed: Snapshot, run: Folder) -> None:
    state, handled = run(fresh(101, "alice", COMPLETE))
    assert outcomes(handled) == [(101, 1, "accepted", "accepted")]
    assert state_of(state.snapshot, M1) == "complete"
    assert [e.key for e in state.snapshot.ledger] == [(101, 1)]
    assert [(c.id, effect) for c, effect in state.applied] == [(101, f"completed `{M1}`")]
    assert state.accepted == {(101, 1)}


def test_a_readers_command_is_refused_and_changes_nothing(seed: Snapshot, run: Folder) -> None:
    state, handled = run(fresh(101, "mallory", f"{COMPLETE}\n/perf help"))
    assert outcomes(handled) == [(101, 1, "refused", "refused"), (101, 2, "accepted", "accepted")]
    assert handled[0].lines[0].reason == "`complete` needs write permission; mallory has none"
    assert state.snapshot == seed


def test_merged_and_dropped_commands_are_answered_but_not_applied(seed: Snapshot, run: Folder) -> None:
    queue = (fresh(101, "alice", COMPLETE), fresh(102, "alice", f"/perf block {CUDA} x"))
    state, handled = run(*queue, seen=Seen(ledger=frozenset({(101, 1)}), dropped={(102, 1): 103}))
    assert outcomes(handled) == [(101, 1, "accepted", "merged"), (102, 1, "accepted", "dropped")]
    assert handled[1].lines[0].reason == f"`{CUDA}` blocked: `x`"  # a later drop does not change its words
    assert state.snapshot == seed


def test_a_claim_assigns_once_and_the_working_assignees_follow(seed: Snapshot, run: Folder) -> None:
    queue = (fresh(101, "alice", f"/perf claim {CUDA}"), fresh(102, "alice", f"/perf claim {CUDA}"))
    state, handled = run(*queue)
    assert [line.assignment for h in handled for line in h.lines] == [
        AssignAction(issue=9497, login="alice", add=True),
        None,
    ]
    assert state.assignees[9497] == ("alice",)
    assert handled[1].lines[0].reason == f"alice is already assigned to #9497 (`{CUDA}`)"


def test_a_recorded_change_is_replayed_while_its_author_keeps_the_permission(seed: Snapshot, run: Folder) -> None:
    state, handled = run(recalled(101, "alice", COMPLETE))
    assert outcomes(handled) == [(101, 1, "accepted", "replayed")]
    assert state_of(state.snapshot, M1) == "complete"


def test_a_recorded_change_lapses_once_its_author_no_longer_has_the_permission(seed: Snapshot, run: Folder) -> None:
    state, handled = run(recalled(101, "mallory", COMPLETE))  # mallory has no permission (now)
    (line,) = handled[0].lines
    assert (line.decision, line.notice, line.unpermitted) == ("lapsed", True, True)
    assert line.reason == "mallory now has none permission, and `complete` needs write"
    assert state.snapshot == seed


def test_only_a_write_or_maintain_command_is_checked_again() -> None:
    (drop,) = fresh(105, "mallory", "/perf drop all").parsed.commands
    (done,) = fresh(101, "mallory", COMPLETE).parsed.commands
    (block,) = fresh(102, "mallory", f"/perf block {CUDA} waiting").parsed.commands
    assert permission_lost(drop, comment(105, "mallory", "x"), "write") == (
        "mallory now has write permission, and `drop` needs maintain"
    )
    assert permission_lost(drop, comment(105, "mallory", "x"), "admin") is None
    assert permission_lost(done, comment(101, "mallory", COMPLETE), "write") is None
    assert permission_lost(done, comment(101, "mallory", COMPLETE), "triage") is not None
    assert permission_lost(block, comment(102, "mallory", "x"), "read") is None  # an assignee's verb


@pytest.mark.parametrize(
    ("seen", "decision", "reason"),
    [
        (Seen(ledger=frozenset({(101, 1)})), "merged", "in the default branch's ledger"),
        (Seen(dropped={(101, 1): 105}), "dropped", "dropped by comment 105"),
        (Seen(lapsed_said=frozenset({"101:1"})), "lapsed", "no longer applied (reported)"),
    ],
)
def test_a_settled_record_is_not_replayed(seed: Snapshot, run: Folder, seen: Seen, decision: str, reason: str) -> None:
    state, handled = run(recalled(101, "alice", COMPLETE), seen=seen)
    (line,) = handled[0].lines
    assert (line.decision, line.reason, line.notice) == (decision, reason, False)
    assert state.snapshot == seed


def test_a_record_that_no_longer_applies_lapses_with_a_notice(seed: Snapshot, run: Folder) -> None:
    state, handled = run(recalled(101, "alice", "/perf block no.such-packet x"))
    (line,) = handled[0].lines
    assert (line.decision, line.notice) == ("lapsed", True)
    assert line.reason.startswith("unknown packet `no.such-packet`")
    assert state.snapshot == seed


def test_a_refused_record_stays_refused(seed: Snapshot, run: Folder) -> None:
    _, handled = run(recalled(101, "alice", COMPLETE, verdict="refused"))
    assert outcomes(handled) == [(101, 1, "refused", "refused")]


@pytest.mark.parametrize(
    ("present", "finished", "assigned"),
    [({101}, set(), True), ({101}, {101}, False)],
)
def test_a_replayed_claim_finishes_its_assignment_only_when_unfinished(
    seed: Snapshot, run: Folder, present: set[int], finished: set[int], assigned: bool
) -> None:
    state, handled = run(
        recalled(101, "alice", f"/perf claim {CUDA}"),
        seen=Seen(present=frozenset(present), finished=frozenset(finished)),
    )
    (line,) = handled[0].lines
    assert (line.decision, line.reason, line.notice) == ("answered", "answered earlier", False)
    assert (line.assignment is not None) == assigned
    assert state.assignees[9497] == (("alice",) if assigned else ())


def test_a_deleted_claims_assignment_is_not_made_but_the_reply_is_corrected_once(seed: Snapshot, run: Folder) -> None:
    claim = recalled(101, "alice", f"/perf claim {CUDA}")
    state, handled = run(claim)
    (line,) = handled[0].lines
    assert (line.decision, line.notice, line.assignment) == ("lapsed", True, None)
    assert line.reason == "its comment was deleted, so perfbot does not act on it; alice is not assigned to #9497"
    assert state.assignees[9497] == ()
    _, handled = run(claim, seen=Seen(lapsed_said=frozenset({"101:1"})))
    assert [(x.decision, x.notice) for x in handled[0].lines] == [("answered", False)]


def test_a_replayed_claim_of_a_packet_that_is_gone_corrects_the_reply(seed: Snapshot, run: Folder) -> None:
    _, handled = run(recalled(101, "alice", "/perf claim no.such-packet"), seen=Seen(present=frozenset({101})))
    (line,) = handled[0].lines
    assert (line.decision, line.notice, line.assignment) == ("lapsed", True, None)
    assert line.reason.startswith("unknown packet `no.such-packet`")


def test_a_drop_says_which_accepted_commands_it_removed(seed: Snapshot, run: Folder) -> None:
    queue = (
        recalled(101, "alice", f"/perf block {CUDA} x"),
        fresh(102, "alice", f"/perf block {M1} y"),
        fresh(103, "root", "/perf drop all"),
    )
    drops = {(101, 1): 103, (102, 1): 103}
    state, handled = run(*queue, accepted=frozenset({(101, 1)}), seen=Seen(dropped=drops))
    assert handled[2].lines[0].reason == "dropped pending commands: comment 101 line 1, comment 102 line 1"
    assert state.snapshot == seed
    # Only commands known to be accepted are named: a record's verdict, or this run's decision.
    _, handled = run(*queue, seen=Seen(dropped=drops))
    assert handled[2].lines[0].reason == "dropped pending commands: comment 102 line 1"


def test_a_decided_comment_is_handled_line_by_line_with_its_errors(seed: Snapshot, run: Folder) -> None:
    body = f"/perf unblock {M1}\n/perf nope\n{COMPLETE}"
    work = fresh(101, "alice", body)
    state, (done,) = run(work)
    unblock, complete = work.parsed.commands
    assert done == Handled(
        work.comment,
        True,
        (
            Line(1, unblock.text, unblock, "refused", "refused", f"`{M1}` has no blocking condition"),
            Line(3, complete.text, complete, "accepted", "accepted", f"completed `{M1}`"),
        ),
        work.parsed.errors,
        "",
    )
    assert [(c.id, effect) for c, effect in state.applied] == [(101, f"completed `{M1}`")]


def test_a_comment_refused_whole_keeps_why(run: Folder) -> None:
    work = Fresh(comment(101, "alice", "x"), Parsed(too_long=True), "this comment is too long")
    _, (done,) = run(work)
    assert done == Handled(work.comment, True, (), (), "this comment is too long")


def test_a_merged_command_is_answered_as_merged(run: Folder) -> None:
    work = fresh(101, "alice", COMPLETE)
    _, (done,) = run(work, seen=Seen(ledger=frozenset({(101, 1)})))
    (command,) = work.parsed.commands
    assert done.lines == (Line(1, COMPLETE, command, "accepted", "merged", "applied and merged earlier"),)


def test_a_replayed_comment_is_handled_from_its_records(seed: Snapshot, run: Folder) -> None:
    work = recalled(101, "alice", COMPLETE)
    state, (done,) = run(work)
    ((record, command),) = work.lines
    assert done == Handled(
        work.comment, False, (Line(1, COMPLETE, command, "accepted", "replayed", f"completed `{M1}`"),)
    )
    assert [(c.id, effect) for c, effect in state.applied] == [(101, f"completed `{M1}`")]
    assert record.text == COMPLETE


def test_a_record_whose_command_cannot_be_read_again_stays_refused(run: Folder) -> None:
    c = comment(101, "alice", "")
    record = Record(c, 2, "accepted", "/perf garbled")
    _, (done,) = run(Recalled(c, ((record, None),)))
    assert done.lines == (Line(2, "/perf garbled", None, "accepted", "refused", "refused earlier"),)


def test_an_unclaim_leaves_the_other_assignees(config: BotConfig, renderer: Renderer, seed: Snapshot) -> None:
    context = Context(config, renderer, {"alice": "write"}, frozenset(), {}, frozenset(), frozenset(), frozenset())
    start = Working(seed, {9497: ("bob", "alice", "carol")}, frozenset())
    state, _ = fold(start, (fresh(101, "alice", f"/perf unclaim {CUDA}"),), context)
    assert state.assignees[9497] == ("bob", "carol")


def test_an_assignee_without_write_permission_may_block_their_packet(
    config: BotConfig, renderer: Renderer, seed: Snapshot
) -> None:
    context = Context(config, renderer, {}, frozenset(), {}, frozenset(), frozenset(), frozenset())
    _, (done,) = fold(
        Working(seed, {9497: ("carol",)}, frozenset()), (fresh(101, "carol", f"/perf block {CUDA} x"),), context
    )
    assert [(line.verdict, line.decision) for line in done.lines] == [("accepted", "accepted")]


def fold_from(
    config: BotConfig,
    renderer: Renderer,
    seed: Snapshot,
    assignees: Mapping[IssueKey, tuple[str, ...]],
    *queue: Work,
    seen: Seen = Seen(),
    explain: Explainer | None = None,
) -> tuple[Working, list[Handled]]:
    """Fold `queue` from the seed with the given assignees, alice a writer, and an explainer."""
    context = Context(
        config,
        renderer,
        {"alice": "write"},
        seen.ledger,
        seen.dropped,
        seen.lapsed_said,
        seen.finished,
        seen.present,
        explain,
    )
    return fold(Working(seed, assignees, frozenset()), queue, context)


def test_a_finished_answer_is_replayed_whole_from_its_record(run: Folder) -> None:
    work = recalled(101, "alice", f"/perf claim {CUDA}")
    ((record, command),) = work.lines
    _, handled = run(work, seen=Seen(present=frozenset({101}), finished=frozenset({101})))
    assert handled[0].lines == (Line(1, record.text, command, "accepted", "answered", "answered earlier"),)


def test_a_replayed_answer_without_an_assignment_is_answered_earlier(run: Folder) -> None:
    work = recalled(101, "alice", "/perf help")
    ((_, command),) = work.lines
    state, handled = run(work)
    assert handled[0].lines == (Line(1, "/perf help", command, "accepted", "answered", "answered earlier"),)
    assert state.assignees == {9497: (), 8325: ()}


@pytest.mark.parametrize(
    ("verb", "decision", "reason", "notice"),
    [
        pytest.param("claim", "answered", "answered earlier", False, id="a claim whose assignment holds anyway"),
        pytest.param(
            "unclaim",
            "lapsed",
            "its comment was deleted, so perfbot does not act on it; alice is still assigned to #9497",
            True,
            id="an unclaim, corrected: who is still assigned",
        ),
    ],
)
def test_a_deleted_command_is_settled_by_the_assignment_that_holds(
    config: BotConfig, renderer: Renderer, seed: Snapshot, verb: str, decision: str, reason: str, notice: bool
) -> None:
    work = recalled(101, "alice", f"/perf {verb} {CUDA}")
    ((record, command),) = work.lines
    state, handled = fold_from(config, renderer, seed, {9497: ("alice",)}, work)
    assert handled[0].lines == (Line(1, record.text, command, "accepted", decision, reason, None, notice),)  # type: ignore[arg-type]
    assert state.assignees[9497] == ("alice",)


def test_a_why_is_answered_by_the_runs_explainer(config: BotConfig, renderer: Renderer, seed: Snapshot) -> None:
    work = fresh(101, "alice", f"/perf why {CUDA}")
    (command,) = work.parsed.commands

    def explain(snapshot: Snapshot, packet: str, assignees: Mapping[IssueKey, tuple[str, ...]]) -> str:
        return f"{packet}: {snapshot is seed}, {dict(assignees)}"

    _, handled = fold_from(config, renderer, seed, {9497: ("bob",)}, work, explain=explain)
    reason = f"{CUDA}: True, {{9497: ('bob',)}}"
    assert handled[0].lines == (Line(1, command.text, command, "accepted", "accepted", reason),)
