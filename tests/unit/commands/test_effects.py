"""What each snapshot-changing command does to a small snapshot, or why it is refused."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from bot.commands import effects
from bot.commands.effects import Answered, Applied, Effect, Outcome, Refused, Situation, enact, suggest
from bot.commands.grammar import (
    Args,
    Blocking,
    Command,
    Completion,
    Evidence,
    ExitMet,
    Review,
    StateChange,
    Targeted,
)
from bot.config import BotConfig
from bot.github.observed import Comment
from bot.render import Renderer
from bot.snapshot.model import Snapshot, WorkPacket
from tests.unit.snapshot.values import DATA, edited, replaced, valid

AT = dt.datetime(2026, 8, 27, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))  # 2026-08-28 in UTC
COMMENT = Comment(id=301, issue=12, user="alice", created_at=AT, body="")


@pytest.fixture
def situation(config: BotConfig, renderer: Renderer) -> Situation:
    return Situation(valid(), config, renderer, assignees={}, dropped={}, accepted=frozenset())


# The arguments each verb's effect takes, built from a test's keywords (the others empty).
SHAPES: dict[str, Callable[..., Args]] = {
    "complete": partial(Completion, result=""),
    "state": partial(StateChange, state=""),
    "block": partial(Blocking, condition=""),
    "unblock": Targeted,
    "review": Review,
    "evidence": partial(Evidence, evidence_class="", summary="", ref=""),
    "exit": partial(ExitMet, ref=""),
    "claim": Targeted,
}


def run(
    effect: Effect, situation: Situation, verb: str, target: str, snapshot: Snapshot | None = None, **args: Any
) -> Outcome:
    if snapshot is not None:
        situation = situation._replace(snapshot=snapshot)
    return enact(effect, situation, Command(verb, 2, "text", SHAPES[verb](target, **args)), COMMENT)


def applied(outcome: Outcome) -> Applied:
    assert isinstance(outcome, Applied), outcome
    return outcome


def packet(snapshot: Snapshot, ident: str) -> WorkPacket:
    found = snapshot.packet(ident)
    assert found is not None
    return found


def test_suggest_names_close_ids() -> None:
    assert suggest("metal-x", ["metal-y", "cuda"]) == "; did you mean `metal-y`?"
    assert suggest("w9", ["w1", "w2", "w3", "w4"]) == "; did you mean `w4`, `w3`, `w2`?"  # three at most
    assert suggest("w9", ["w1", "w2", "w3"]) == "; did you mean `w3`, `w2`, `w1`?"
    # Ids that share only a prefix with the closest are not offered with it (issue #45).
    seed = ["mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill", "mac.m3-q8-gdn-handoff"]
    assert suggest("mac.m1-streamd", seed) == "; did you mean `mac.m1-streamed-q4k-no-copy`?"
    assert suggest("mac.m3-q8-gdn", seed) == "; did you mean `mac.m3-q8-gdn-handoff`?"
    assert suggest("zzz", ["w1"]) == ""


def test_an_unknown_packet_or_constraint_is_refused_with_suggestions(situation: Situation) -> None:
    assert run(effects.block, situation, "block", "w9", condition="x") == Refused(
        "unknown packet `w9`; did you mean `w3`, `w2`, `w1`?"
    )
    assert run(effects.review, situation, "review", "c9") == Refused(
        "unknown constraint `c9`; did you mean `c2`, `c1`?"
    )


def test_an_id_that_only_looks_like_a_known_one_is_refused_naming_it(situation: Situation) -> None:
    meant = "ids are matched exactly as written, and this one only looks like `{0}` (some of its characters are "
    meant += "look-alikes, or normalise to others); did you mean `{0}`?"
    assert run(effects.block, situation, "block", "ｗ２", condition="x") == Refused(
        "unknown packet `ｗ２`: " + meant.format("w2")
    )
    assert run(effects.review, situation, "review", "с1") == Refused("unknown constraint `с1`: " + meant.format("c1"))
    assert run(effects.block, situation, "block", "w`2", condition="x") == Refused(
        "unknown packet ``w`2``; did you mean `w2`?"
    )


def test_an_applied_command_adds_its_ledger_entry(situation: Situation) -> None:
    outcome = applied(run(effects.block, situation, "block", "w2", condition="window"))
    assert outcome.effect == "`w2` blocked: `window`"
    entry = outcome.snapshot.ledger[-1]
    assert (entry.comment_id, entry.line, entry.issue, entry.author, entry.at, entry.effect) == (
        301,
        2,
        12,
        "alice",
        "2026-08-28T04:30:00Z",
        "`w2` blocked: `window`",
    )
    assert outcome.snapshot.ledger[:-1] == valid().ledger
    assert packet(outcome.snapshot, "w2").blocked_by_condition == "window"


def test_a_change_that_would_break_the_snapshot_is_refused_naming_three_problems(situation: Situation) -> None:
    def breaks(situation: Situation, command: Command, comment: Comment) -> Outcome:
        packets = tuple(p.model_copy(update={"lane": " ", "owner": ""}) for p in situation.snapshot.work_packets)
        return Applied(situation.snapshot.model_copy(update={"work_packets": packets}), "broke it")

    assert run(breaks, situation, "block", "w1") == Refused(
        "the snapshot would be invalid: "
        'invalid work packet "w1": owner is blank; invalid work packet "w1": lane is blank; '
        'invalid work packet "w2": owner is blank'
    )


def test_answers_and_refusals_pass_through(situation: Situation) -> None:
    answered = Answered("hello")
    assert run(lambda s, c, m: answered, situation, "claim", "") is answered
    refused = Refused("no")
    assert run(lambda s, c, m: refused, situation, "claim", "") is refused


def test_complete_sets_the_result_and_satisfies_the_dependents(situation: Situation) -> None:
    outcome = applied(run(effects.complete, situation, "complete", "w2", result="fast", receipt=55))
    assert outcome.effect == "completed `w2` (receipt #55)"
    done = packet(outcome.snapshot, "w2")
    assert (done.state, done.result, done.related_issues, done.owner, done.next_action) == (
        "complete",
        "fast",
        (21, 22, 55),
        "accepted receipt #55",
        "",
    )
    dependent = packet(outcome.snapshot, "w3")
    assert (dependent.hard_dependency_ids, dependent.satisfied_dependency_ids) == ((), ("w2",))
    assert packet(outcome.snapshot, "w1") == packet(valid(), "w1")


@pytest.mark.parametrize(("receipt", "related"), [(12, (21, 22)), (22, (21, 22))])
def test_a_receipt_already_related_or_the_packets_own_issue_is_not_added_again(
    situation: Situation, receipt: int, related: tuple[int, ...]
) -> None:
    outcome = applied(run(effects.complete, situation, "complete", "w2", result="r", receipt=receipt))
    assert packet(outcome.snapshot, "w2").related_issues == related


def test_complete_without_a_receipt_keeps_the_owner(situation: Situation) -> None:
    outcome = applied(run(effects.complete, situation, "complete", "w2", result="r"))
    assert outcome.effect == "completed `w2`"
    assert (packet(outcome.snapshot, "w2").owner, packet(outcome.snapshot, "w2").related_issues) == (
        "unassigned",
        (21, 22),
    )


def test_complete_leaves_other_dependencies_open(situation: Situation) -> None:
    packets = [*DATA["work_packets"], {**DATA["work_packets"][1], "id": "w4", "issue": 14, "program_order": 3}]
    snapshot = replaced(work_packets=[*packets[:2], {**packets[2], "hard_dependency_ids": ["w2", "w4"]}, packets[3]])
    outcome = applied(run(effects.complete, situation, "complete", "w2", snapshot, result="r"))
    assert packet(outcome.snapshot, "w3").hard_dependency_ids == ("w4",)
    assert packet(outcome.snapshot, "w4").satisfied_dependency_ids == ("w1",)


def test_a_complete_packet_is_final(situation: Situation) -> None:
    assert run(effects.complete, situation, "complete", "w1", result="r") == Refused("`w1` is already complete")
    assert run(effects.state, situation, "state", "w1", state="ready") == Refused(
        "`w1` is complete; its state is final"
    )
    assert run(effects.block, situation, "block", "w1", condition="x") == Refused(
        "`w1` is complete; nothing can block it"
    )


def test_state_records_a_persons_decision(situation: Situation) -> None:
    held = applied(run(effects.state, situation, "state", "w2", state="capacity-hold", reason="no node"))
    assert held.effect == "`w2`: `ready` → `capacity-hold` (reason: `no node`)"
    assert packet(held.snapshot, "w2").state == "capacity-hold"
    lifted = applied(
        run(effects.state, situation, "state", "w2", edited("work_packets", 1, state="capacity-hold"), state="ready")
    )
    assert lifted.effect == "`w2`: `capacity-hold` → `ready`"
    assert packet(lifted.snapshot, "w2").state == "ready"


def test_state_refuses_no_change_and_derived_to_derived(situation: Situation) -> None:
    assert run(effects.state, situation, "state", "w2", state="ready") == Refused("`w2` is already `ready`")
    assert run(effects.state, situation, "state", "w2", state="running") == Refused(
        "`running` is derived from evidence (dependencies, leases, assignment); a person decides only "
        "`capacity-hold` and `waiting-evidence`, and can lift them with `ready`"
    )


def test_unblock_clears_a_condition(situation: Situation) -> None:
    assert run(effects.unblock, situation, "unblock", "w2") == Refused("`w2` has no blocking condition")
    blocked = edited("work_packets", 1, blocked_by_condition="window")
    outcome = applied(run(effects.unblock, situation, "unblock", "w2", blocked))
    assert outcome.effect == "`w2` unblocked"
    assert packet(outcome.snapshot, "w2").blocked_by_condition == ""


def test_review_re_observes_on_the_comments_utc_date(situation: Situation) -> None:
    outcome = applied(run(effects.review, situation, "review", "c2", note="checked"))
    assert outcome.effect == "`c2` re-observed 2026-08-28; review by 2026-09-04 (note: `checked`)"
    constraint = outcome.snapshot.constraint("c2")
    assert constraint is not None
    assert (constraint.observed_at, constraint.review_by) == (dt.date(2026, 8, 28), dt.date(2026, 9, 4))
    assert outcome.snapshot.constraint("c1") == valid().constraint("c1")


def test_review_takes_a_later_date_and_refuses_one_not_after_the_comment(situation: Situation) -> None:
    later = applied(run(effects.review, situation, "review", "c2", by=dt.date(2026, 8, 29)))
    assert later.effect == "`c2` re-observed 2026-08-28; review by 2026-08-29"
    assert run(effects.review, situation, "review", "c2", by=dt.date(2026, 8, 28)) == Refused(
        "review date 2026-08-28 is not after the comment's date 2026-08-28"
    )


def test_review_at_the_end_of_time_is_refused(situation: Situation) -> None:
    end = COMMENT.model_copy(update={"created_at": dt.datetime(9999, 12, 31, tzinfo=dt.UTC)})
    outcome = enact(effects.review, situation, Command("review", 1, "t", Review(target="c2")), end)
    assert outcome == Refused("no review date can follow 9999-12-31")


def test_evidence_is_appended(situation: Situation) -> None:
    outcome = applied(
        run(effects.evidence, situation, "evidence", "c2", evidence_class="bench", summary="5/5", ref="docs/x")
    )
    assert outcome.effect == "evidence [bench] added to `c2`"
    constraint = outcome.snapshot.constraint("c2")
    assert constraint is not None
    assert [(e.class_, e.summary, e.ref) for e in constraint.evidence] == [
        ("issue", "seen", "#1"),
        ("bench", "5/5", "docs/x"),
    ]


def test_exit_retires_an_unreferenced_constraint(situation: Situation) -> None:
    outcome = applied(run(effects.exit_met, situation, "exit", "c2", ref="#9"))
    assert outcome.effect == "retired `c2` (exit met: `#9`)"
    assert [c.id for c in outcome.snapshot.constraints] == ["c1"]
    retired = outcome.snapshot.retired_constraints[-1]
    assert (retired.id, retired.name, retired.retired_on, retired.ref) == ("c2", "c2 name", dt.date(2026, 8, 28), "#9")
    assert outcome.snapshot.retired_constraints[:-1] == valid().retired_constraints


def test_exit_is_refused_while_anything_names_the_constraint(situation: Situation) -> None:
    assert run(effects.exit_met, situation, "exit", "c1", ref="#9") == Refused(
        "`c1` is still referenced by program `p1`, packet `w1`, packet `w2`, packet `w3`, route `org/repo`"
    )
    extra = [{**DATA["work_packets"][1], "id": f"x{n}", "issue": 50 + n, "program_order": 10 + n} for n in range(2)]
    snapshot = replaced(work_packets=[*DATA["work_packets"], *extra])
    assert run(effects.exit_met, situation, "exit", "c1", snapshot, ref="#9") == Refused(
        "`c1` is still referenced by program `p1`, packet `w1`, packet `w2`, packet `w3`, packet `x0` and 2 more"
    )
    six = replaced(work_packets=[*DATA["work_packets"], *extra[:1]])
    assert run(effects.exit_met, situation, "exit", "c1", six, ref="#9") == Refused(
        "`c1` is still referenced by program `p1`, packet `w1`, packet `w2`, packet `w3`, packet `x0` and 1 more"
    )


@pytest.fixture
def far_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's clock in UTC+14, where noon UTC is already the next day."""
    monkeypatch.setenv("TZ", "KIR-14")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_east")
def test_dates_are_the_comments_utc_date_whatever_the_machines_time_zone(situation: Situation) -> None:
    noon = COMMENT.model_copy(update={"created_at": dt.datetime(2026, 8, 28, 12, tzinfo=dt.UTC)})
    reviewed = enact(effects.review, situation, Command("review", 1, "t", Review(target="c2")), noon)
    assert isinstance(reviewed, Applied)
    assert reviewed.effect == "`c2` re-observed 2026-08-28; review by 2026-09-04"
    retired = enact(effects.exit_met, situation, Command("exit", 1, "t", ExitMet(target="c2", ref="#9")), noon)
    assert isinstance(retired, Applied)
    assert retired.snapshot.retired_constraints[-1].retired_on == dt.date(2026, 8, 28)


def test_an_effect_on_a_packet_or_a_constraint_gets_it_or_a_refusal(situation: Situation) -> None:
    on_packet = effects._on_packet(
        Targeted, lambda s, a, p: Answered(f"{type(a).__name__} {p.id} #{p.issue} of {len(s.snapshot.work_packets)}")
    )
    assert on_packet(situation, Command("claim", 1, "t", Targeted(target="w2")), COMMENT) == Answered(
        "Targeted w2 #12 of 3"
    )
    assert on_packet(situation, Command("claim", 1, "t", Targeted(target="w9")), COMMENT) == Refused(
        "unknown packet `w9`; did you mean `w3`, `w2`, `w1`?"
    )
    on_constraint = effects._on_constraint(
        Review, lambda s, a, m, x: Answered(f"{a.note} {x.id} by {m.user} of {len(s.snapshot.constraints)}")
    )
    assert on_constraint(situation, Command("review", 1, "t", Review("c2", note="n")), COMMENT) == Answered(
        "n c2 by alice of 2"
    )
    with pytest.raises(TypeError, match=r"^`exit` was read as ExitMet, not Review$"):
        on_constraint(situation, Command("exit", 1, "t", ExitMet("c2", "r")), COMMENT)
    assert on_constraint(situation, Command("review", 1, "t", Review(target="zz")), COMMENT) == Refused(
        "unknown constraint `zz`"
    )
