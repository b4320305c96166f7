"""Outbox: the order of reactions, replies and side effects, and the plan's report lines."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from bot.commands.grammar import Blocking, Command, Targeted
from bot.commands.outbox import Voice, actions, finished, pull_records, quiet, reports
from bot.commands.reading import ParseError
from bot.commands.records import recorded_decisions
from bot.commands.replay import Handled, Line
from bot.github.actions import AssignAction, CommentAction, ReactAction
from bot.github.observed import Comment
from bot.render import Renderer
from tests.unit.commands.values import comment

ASKED = comment(101, "alice", "/perf claim profile.real-cuda\n/perf nonsense")
CLAIM = Command("claim", 1, "/perf claim profile.real-cuda", Targeted(target="profile.real-cuda"))
BLOCK = Command("block", 2, "/perf block x @everyone", Blocking(target="x", condition="@everyone"))


@pytest.fixture
def voice(renderer: Renderer) -> Voice:
    return Voice(renderer, "/perf", reacted=frozenset(), present=frozenset({101}))


def kinds(planned: Sequence[object]) -> list[str]:
    out: list[str] = []
    for action in planned:
        if isinstance(action, ReactAction):
            out.append(action.content)
        elif isinstance(action, CommentAction):
            out.append(action.topic)
        else:
            assert isinstance(action, AssignAction)
            out.append(f"assign {action.login}")
    return out


def answered() -> Handled:
    claim = Line(
        1, CLAIM.text, CLAIM, "accepted", "accepted", "done", AssignAction(issue=9497, login="alice", add=True)
    )
    return Handled(ASKED, True, (claim,), errors=(ParseError(2, "/perf nonsense", "unknown command"),))


def test_a_new_comment_gets_the_reply_then_side_effects_then_the_verdicts(voice: Voice) -> None:
    assert kinds(actions(answered(), voice)) == ["command-reply", "assign alice", "rocket", "confused"]


def test_with_replies_all_a_new_comment_gets_eyes_first(voice: Voice) -> None:
    loud = voice._replace(replies="all")
    assert kinds(actions(answered(), loud)) == ["eyes", "command-reply", "assign alice", "rocket", "confused"]


def test_reactions_already_made_are_not_made_again(renderer: Renderer) -> None:
    voice = Voice(renderer, "/perf", reacted=frozenset({(101, "eyes"), (101, "rocket")}), present=frozenset({101}))
    assert kinds(actions(answered(), voice)) == ["command-reply", "assign alice", "confused"]


def test_the_reply_records_every_line_so_a_later_run_can_replay_it(voice: Voice) -> None:
    reply = next(a for a in actions(answered(), voice) if isinstance(a, CommentAction))
    bot_reply = Comment(id=900, issue=reply.issue, user="perfbot[bot]", created_at=ASKED.created_at, body=reply.body)
    records = recorded_decisions([bot_reply])[101]
    assert [(r.line, r.verdict, r.text) for r in records] == [(1, "accepted", CLAIM.text), (2, "refused", "")]
    assert "not understood (line 2): unknown command." in reply.body


def test_a_replayed_comment_gets_its_missing_reactions_and_lapsed_notices(voice: Voice) -> None:
    lapsed = Line(2, BLOCK.text, BLOCK, "accepted", "lapsed", "unknown packet `x`", notice=True)
    claim = Line(
        1,
        CLAIM.text,
        CLAIM,
        "accepted",
        "answered",
        "answered earlier",
        AssignAction(issue=9497, login="alice", add=True),
    )
    done = Handled(ASKED, False, (claim, lapsed))
    planned = actions(done, voice)
    assert kinds(planned) == ["assign alice", "command-lapsed", "rocket"]
    assert kinds(actions(done, voice._replace(replies="all"))) == ["eyes", "assign alice", "command-lapsed", "rocket"]
    notice = planned[1]
    assert isinstance(notice, CommentAction)
    assert notice.body.startswith("<!-- perfbot:lapsed 101:2 -->\n@alice: `/perf block x @\u200beveryone`")


def test_a_deleted_comment_gets_no_reactions(voice: Voice) -> None:
    gone = Handled(
        comment(102, "alice", ""), False, (Line(1, "/perf help", None, "refused", "refused", "refused earlier"),)
    )
    assert actions(gone, voice) == []


def test_reports_list_commands_then_malformed_lines_then_a_whole_refusal() -> None:
    done = Handled(ASKED, True, answered().lines, answered().errors, whole="this comment has more than 20 commands")
    lines = [(r["line"], r["decision"], r["reason"]) for r in reports(done)]
    assert lines == [
        (1, "accepted", "done"),
        (2, "refused", "unknown command"),
        (0, "refused", "this comment has more than 20 commands"),
    ]
    assert reports(done)[0]["parsed"] == {"verb": "claim", "target": "profile.real-cuda"}
    assert reports(done)[1]["parsed"] is None


def test_a_comment_is_finished_once_the_bot_gave_its_verdict() -> None:
    assert finished({(101, "eyes"), (102, "rocket"), (103, "confused"), (104, "eyes")}) == {102, 103}


def test_only_a_refusal_an_error_or_a_whole_refusal_confuses(voice: Voice) -> None:
    claim = answered().lines[0]
    assert kinds(actions(Handled(ASKED, True, (claim,)), voice)) == ["command-reply", "assign alice", "rocket"]
    refused = Line(1, CLAIM.text, CLAIM, "refused", "refused", "not yours")
    assert kinds(actions(Handled(ASKED, True, (refused,)), voice)) == ["command-reply", "confused"]
    whole = Handled(ASKED, True, (), whole="this comment is longer than 10 characters")
    assert kinds(actions(whole, voice)) == ["command-reply", "confused"]


def test_a_replayed_refusal_gets_its_confused_reaction(voice: Voice) -> None:
    refused = Line(1, "/perf help", None, "refused", "refused", "refused earlier")
    assert kinds(actions(Handled(ASKED, False, (refused,)), voice)) == ["confused"]


def test_the_reply_names_the_author_the_prefix_and_a_whole_refusal(renderer: Renderer) -> None:
    voice = Voice(renderer, "!bot", reacted=frozenset(), present=frozenset({101}))
    done = Handled(ASKED, True, (), answered().errors, whole="this comment has more than 20 commands")
    reply = next(a for a in actions(done, voice) if isinstance(a, CommentAction))
    assert "\n@alice:\n" in reply.body
    assert "Say `!bot help` for the grammar." in reply.body
    assert "😕 this comment has more than 20 commands, so none of its commands were read." in reply.body


def test_a_report_line_in_full() -> None:
    long_text = "/perf block x " + "y" * 400
    command = Command("block", 1, long_text, Blocking(target="x", condition="y" * 400))
    done = Handled(ASKED, True, (Line(1, long_text, command, "accepted", "accepted", "ok"),), whole="too long")
    first, whole = reports(done)
    assert first == {
        "comment_id": 101,
        "issue": 8325,
        "author": "alice",
        "line": 1,
        "text": long_text[:300],
        "parsed": command.parsed(),
        "decision": "accepted",
        "reason": "ok",
    }
    assert (whole["line"], whole["text"], whole["parsed"], whole["reason"]) == (0, "", None, "too long")


def test_an_answer_gets_its_reply_and_no_rocket_and_names_no_one(voice: Voice) -> None:
    why = Command("why", 1, "/perf why profile.real-cuda", Targeted(target="profile.real-cuda"))
    asked = comment(101, "alice", why.text)
    done = Handled(asked, True, (Line(1, why.text, why, "accepted", "accepted", "it is ready"),))
    planned = actions(done, voice)
    assert kinds(planned) == ["command-reply"]
    reply = next(a for a in planned if isinstance(a, CommentAction))
    assert "@alice" not in reply.body
    # Replayed later, it is not given the 🚀 it never needed.
    assert kinds(actions(done._replace(fresh=False), voice)) == []
    assert not quiet(done, voice)


def test_an_accepted_change_is_pending_in_the_pr_and_a_refusal_names_its_author(renderer: Renderer) -> None:
    voice = Voice(renderer, "/perf", reacted=frozenset(), present=frozenset({101}), pull=77)
    asked = comment(101, "alice", "/perf block x @everyone")
    accepted = Handled(asked, True, (Line(2, BLOCK.text, BLOCK, "accepted", "accepted", "`x` blocked"),))
    reply = next(a for a in actions(accepted, voice) if isinstance(a, CommentAction))
    assert "pending in #77 until it merges: `x` blocked" in reply.body
    assert "applied:" not in reply.body
    assert "@alice" not in reply.body
    refused = Handled(asked, True, (Line(2, BLOCK.text, BLOCK, "refused", "refused", "not yours"),))
    reply = next(a for a in actions(refused, voice) if isinstance(a, CommentAction))
    assert "\n@alice:\n" in reply.body
    assert "not applied: not yours" in reply.body


def _accepted(*commands: Command) -> Handled:
    asked = comment(101, "alice", "\n".join(c.text for c in commands))
    return Handled(asked, True, tuple(Line(c.line, c.text, c, "accepted", "accepted", "ok") for c in commands))


COMPLETE = Command("complete", 1, "/perf complete x 2x #5", Targeted(target="x"))
DROP = Command("drop", 1, "/perf drop all", Targeted(target="all"))


def test_a_comment_whose_commands_were_all_accepted_is_answered_with_a_rocket_alone(voice: Voice) -> None:
    done = _accepted(COMPLETE)
    assert quiet(done, voice)
    assert kinds(actions(done, voice, quiet=True)) == ["rocket"]
    claim = answered().lines[0]
    assert kinds(actions(Handled(ASKED, True, (claim,)), voice, quiet=True)) == ["assign alice", "rocket"]


def test_only_a_comment_with_nothing_to_read_is_quiet(voice: Voice) -> None:
    assert not quiet(answered(), voice)  # a malformed line
    assert not quiet(_accepted(DROP), voice)  # a drop names what it dropped
    assert not quiet(Handled(ASKED, True, ()), voice)
    assert not quiet(Handled(ASKED, True, (), whole="too long"), voice)
    refused = Line(1, CLAIM.text, CLAIM, "refused", "refused", "not yours")
    assert not quiet(Handled(ASKED, True, (answered().lines[0], refused)), voice)
    assert not quiet(_accepted(COMPLETE), voice._replace(replies="all"))


def test_a_change_is_quiet_only_when_the_pr_can_carry_its_record(voice: Voice) -> None:
    cannot = voice._replace(carrier=False)
    assert not quiet(_accepted(COMPLETE), cannot)
    # A claim changes no snapshot: it needs no record in the PR.
    assert quiet(Handled(ASKED, True, (answered().lines[0],)), cannot)


def test_a_quiet_answer_records_its_changes_of_the_snapshot_for_the_pr(voice: Voice) -> None:
    claim = answered().lines[0]
    done = _accepted(COMPLETE)._replace(lines=(*_accepted(COMPLETE).lines, dataclasses.replace(claim, line=2)))
    # Every accepted line of a comment that changes the snapshot (replay finishes its claim)...
    assert [(r.comment.id, r.line, r.verdict, r.text) for r in pull_records(done)] == [
        (101, 1, "accepted", COMPLETE.text),
        (101, 2, "accepted", CLAIM.text),
    ]
    # ... but such a comment is replied to (its assignment could change who may use its change);
    # a comment of claims alone needs no record and stays quiet.
    assert not quiet(done, voice)
    claims = Handled(ASKED, True, (claim,))
    assert pull_records(claims) == []
    assert quiet(claims, voice)


def test_with_replies_all_a_replayed_comment_gets_eyes_only_while_unanswered(voice: Voice) -> None:
    loud = voice._replace(replies="all")
    claim = answered().lines[0]
    done = Handled(ASKED, False, (dataclasses.replace(claim, assignment=None),))
    assert kinds(actions(done, loud)) == ["eyes", "rocket"]
    for verdict in ("rocket", "confused"):
        answered_already = loud._replace(reacted=frozenset({(101, verdict)}))
        assert "eyes" not in kinds(actions(done, answered_already))
