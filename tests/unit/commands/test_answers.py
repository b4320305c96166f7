"""The commands that answer without changing the snapshot: claim, unclaim and drop."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.commands import effects
from bot.commands.effects import Answered, Refused, Situation
from bot.commands.grammar import Command, Drop, Targeted
from bot.commands.records import Key
from bot.config import BotConfig
from bot.github.actions import AssignAction
from bot.github.observed import Comment
from bot.render import Renderer
from tests.unit.snapshot.values import valid

COMMENT = Comment(id=301, issue=12, user="alice", created_at=dt.datetime(2026, 8, 27, tzinfo=dt.UTC), body="")


@pytest.fixture
def situation(config: BotConfig, renderer: Renderer) -> Situation:
    return Situation(valid(), config, renderer, assignees={12: ("bob",)}, dropped={}, accepted=frozenset())


def test_claim_and_unclaim_answer_and_ask_for_the_assignment(situation: Situation) -> None:
    claim = Command("claim", 1, "t", Targeted(target="w2"))
    assert effects.claim(situation, claim, COMMENT) == Answered(
        "alice will be assigned to #12 (`w2`)", AssignAction(issue=12, login="alice", add=True)
    )
    unclaim = Command("unclaim", 1, "t", Targeted(target="w2"))
    assert effects.unclaim(situation, unclaim, COMMENT) == Answered(
        "alice is not assigned to #12 (`w2`)", AssignAction(issue=12, login="alice", add=False)
    )


def test_claim_needs_a_known_packet_whose_issue_was_observed(situation: Situation) -> None:
    unknown = effects.claim(situation, Command("claim", 1, "t", Targeted(target="w9")), COMMENT)
    assert unknown == Refused("unknown packet `w9`; did you mean `w3`, `w2`, `w1`?")
    unobserved = effects.unclaim(situation, Command("unclaim", 1, "t", Targeted(target="w3")), COMMENT)
    assert unobserved == Refused("issue #13 was not observed")


def with_drops(situation: Situation, dropped: dict[Key, int], accepted: set[Key]) -> Situation:
    return Situation(situation.snapshot, situation.config, situation.renderer, {}, dropped, frozenset(accepted))


def test_drop_lists_the_accepted_commands_this_comment_dropped_in_order(situation: Situation) -> None:
    drop = Command("drop", 1, "t", Drop(drop_all=True))
    dropped = {(205, 1): 301, (201, 2): 301, (201, 1): 301, (202, 1): 999, (203, 1): 301}
    accepted = {(201, 1), (201, 2), (202, 1), (205, 1)}
    answer = effects.drop(with_drops(situation, dropped, accepted), drop, COMMENT)
    assert answer == Answered("dropped pending commands: comment 201 line 1, comment 201 line 2, comment 205 line 1")


def test_drop_with_nothing_pending(situation: Situation) -> None:
    drop = Command("drop", 1, "t", Drop(drop_all=True))
    assert effects.drop(with_drops(situation, {(202, 1): 999}, {(202, 1)}), drop, COMMENT) == Answered(
        "no pending commands to drop"
    )


def test_an_assignment_effect_built_at_test_time(situation: Situation) -> None:
    # claim and unclaim are built when the module is imported; building one here puts its code under test.
    assign, release = effects._assignment(True), effects._assignment(False)
    command = Command("claim", 1, "t", Targeted(target="w2"))
    assert assign(situation, command, COMMENT) == Answered(
        "alice will be assigned to #12 (`w2`)", AssignAction(issue=12, login="alice", add=True)
    )
    assert release(situation, command, COMMENT) == Answered(
        "alice is not assigned to #12 (`w2`)", AssignAction(issue=12, login="alice", add=False)
    )
    assert assign(situation, Command("claim", 1, "t", Targeted(target="w3")), COMMENT) == Refused(
        "issue #13 was not observed"
    )
    assert release(situation, Command("claim", 1, "t", Targeted(target="w9")), COMMENT) == Refused(
        "unknown packet `w9`; did you mean `w3`, `w2`, `w1`?"
    )
