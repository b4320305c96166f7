"""Selection: which comments are read, in what order, the per-person cap and the whole refusals."""

from __future__ import annotations

from bot.commands.browser_parse import STEPS
from bot.commands.reading import Parsed, parse
from bot.commands.records import DECISION_TOPIC, Record
from bot.commands.selection import Fresh, Recalled, reread, take
from bot.config import CommandSettings
from bot.github.markers import marker
from tests.unit.commands.values import LIMITS, comment

BOT = "perfbot[bot]"


def ids(queue: tuple[Fresh | Recalled, ...]) -> list[int]:
    return [work.comment.id for work in queue]


def test_new_command_comments_in_time_order_then_id() -> None:
    comments = [
        comment(103, "a", "/perf help", minute=1),
        comment(102, "b", "/perf help", minute=2),
        comment(101, "c", "/perf help", minute=2),
        comment(104, "d", "no command here", minute=0),
    ]
    intake = take(comments, {}, 0, BOT, LIMITS)
    assert ids(intake.queue) == [103, 101, 102]
    assert all(isinstance(work, Fresh) for work in intake.queue)
    assert intake.waiting == frozenset()


def test_bots_edits_and_settled_comments_are_not_read() -> None:
    comments = [
        comment(101, BOT, "/perf help"),
        comment(102, "ci[bot]", "/perf help"),
        comment(103, "app", "/perf help", user_type="Bot"),
        comment(104, "alice", "/perf help", edited=True),
        comment(105, "alice", "/perf help"),
        comment(106, "alice", "/perf help"),
    ]
    assert ids(take(comments, {}, 105, BOT, LIMITS).queue) == [106]


def test_each_person_gets_the_cap_and_the_rest_wait() -> None:
    comments = [comment(100 + n, "mallory", "/perf help") for n in range(4)] + [
        comment(200, "alice", "/perf help", minute=59)
    ]
    intake = take(comments, {}, 0, BOT, CommandSettings(max_comments_per_user=2))
    assert ids(intake.queue) == [100, 101, 200]
    assert intake.waiting == {102, 103}


def test_answered_comments_come_back_from_their_records_not_their_text() -> None:
    original = comment(101, "alice", "/perf help", minute=5)
    record = Record(original, 1, "accepted", "/perf claim profile.real-cuda")
    edited = comment(101, "alice", "/perf drop all", minute=5, edited=True)
    intake = take(
        [edited, comment(102, "bob", "/perf help", minute=1)], {101: [record], 90: [record]}, 100, BOT, LIMITS
    )
    assert ids(intake.queue) == [102, 101]
    recalled = intake.queue[1]
    assert isinstance(recalled, Recalled)
    ((kept, command),) = recalled.lines
    assert kept == record
    assert command is not None
    assert (command.verb, command.target, command.line) == ("claim", "profile.real-cuda", 1)


def test_a_refused_record_has_no_command_to_replay() -> None:
    record = Record(comment(101, "alice", ""), 2, "refused", "")
    (recalled,) = take([], {101: [record]}, 0, BOT, LIMITS).queue
    assert isinstance(recalled, Recalled)
    assert recalled.lines == ((record, None),)


def test_too_many_commands_refuse_the_whole_comment_so_none_of_it_counts() -> None:
    body = "\n".join(["/perf drop all"] * 3)
    (work,) = take([comment(101, "root", body)], {}, 0, BOT, CommandSettings(max_commands_per_comment=2)).queue
    assert isinstance(work, Fresh)
    assert work.whole == "this comment has more than 2 commands"
    assert work.parsed.commands == ()


def test_a_comment_over_the_length_limit_is_refused_whole() -> None:
    limits = CommandSettings(max_comment_chars=20)
    (work,) = take([comment(101, "a", "/perf help " + "x" * 20)], {}, 0, BOT, limits).queue
    assert isinstance(work, Fresh)
    assert work.whole == "this comment is longer than 20 characters"


def test_comments_by_bots_or_by_the_bots_own_login_are_not_read() -> None:
    comments = [
        comment(101, "perfbot-app", "/perf help"),
        comment(102, "ci[bot]", "/perf help"),
        comment(103, "app", "/perf help", user_type="Bot"),
        comment(104, "alice", "/perf help"),
    ]
    assert ids(take(comments, {}, 0, "perfbot-app", LIMITS).queue) == [104]


def test_a_new_comment_keeps_what_was_read_from_it() -> None:
    (work,) = take([comment(101, "alice", "hi\n/perf help\n/perf nope")], {}, 0, BOT, LIMITS).queue
    assert isinstance(work, Fresh)
    assert work.whole == ""
    assert [c.line for c in work.parsed.commands] == [2]
    assert [e.line for e in work.parsed.errors] == [3]


def test_errors_count_toward_the_commands_of_a_comment() -> None:
    limits = CommandSettings(max_commands_per_comment=2)
    (over,) = take([comment(101, "a", "/perf help\n/perf x\n/perf y")], {}, 0, BOT, limits).queue
    assert isinstance(over, Fresh)
    assert (over.whole, over.parsed) == ("this comment has more than 2 commands", Parsed(too_long=True))
    (at,) = take([comment(101, "a", "/perf help\n/perf x")], {}, 0, BOT, limits).queue
    assert isinstance(at, Fresh)
    assert at.whole == ""


def test_a_comment_with_more_html_than_perfbot_reads_before_a_command_is_refused_whole() -> None:
    body = "/perf help\n\nx" + "</b>" * (STEPS + 1) + "\n\n/perf help"
    (refused,) = take([comment(101, "a", body)], {}, 0, BOT, LIMITS).queue
    assert isinstance(refused, Fresh)
    assert refused.whole.startswith("this comment holds more HTML")
    assert refused.parsed == Parsed(too_long=True)
    (read,) = take([comment(101, "a", body.removesuffix("/perf help"))], {}, 0, BOT, LIMITS).queue
    assert isinstance(read, Fresh)
    assert (read.whole, [c.line for c in read.parsed.commands]) == ("", [1])


def record_size(body: str) -> int:
    """How much of the reply the decision records of `body`'s commands take."""
    c = comment(101, "a", body)
    parsed = parse(body, LIMITS.prefix, LIMITS.max_comment_chars, LIMITS.max_argument_chars)
    return sum(len(marker(DECISION_TOPIC, Record(c, x.line, "accepted", x.text).encode())) for x in parsed.commands)


def test_commands_whose_records_take_more_than_half_a_reply_refuse_the_comment_whole() -> None:
    limits = CommandSettings(max_body_chars=2001)
    body = next(b for n in range(900) if record_size(b := "\n/perf block w1 " + "y" * n) == 1000)
    (fits,) = take([comment(101, "a", body)], {}, 0, BOT, limits).queue
    assert isinstance(fits, Fresh)
    assert fits.whole == ""
    (over,) = take([comment(101, "a", body + "y")], {}, 0, BOT, limits).queue
    assert isinstance(over, Fresh)
    assert over.whole == "this comment's commands are too long to answer and record in one reply"


def test_malformed_lines_count_with_the_commands_for_the_records_room() -> None:
    # Each malformed line is recorded as refused: twenty of them take more than half of 2,001 characters.
    body = "\n".join(f"/perf claim {'x' * 1100}{n}" for n in range(19)) + "\n/perf help"
    parsed = parse(body, LIMITS.prefix, LIMITS.max_comment_chars, LIMITS.max_argument_chars)
    assert (len(parsed.commands), len(parsed.errors)) == (1, 19)
    (over,) = take([comment(101, "a", body)], {}, 0, BOT, CommandSettings(max_body_chars=2001)).queue
    assert isinstance(over, Fresh)
    assert over.whole == "this comment's commands are too long to answer and record in one reply"
    (fits,) = take([comment(101, "a", body)], {}, 0, BOT, CommandSettings(max_body_chars=20_001)).queue
    assert isinstance(fits, Fresh)
    assert fits.whole == ""


def test_a_recalled_command_takes_the_records_line_and_the_floor_is_settled() -> None:
    records = {
        100: [Record(comment(100, "a", ""), 2, "accepted", "/perf help")],
        101: [Record(comment(101, "a", ""), 3, "accepted", "/perf help")],
    }
    (recalled,) = take([], records, 100, BOT, LIMITS).queue
    assert isinstance(recalled, Recalled)
    ((_, command),) = recalled.lines
    assert command is not None
    assert (recalled.comment.id, command.line) == (101, 3)


def test_a_comment_the_bot_finished_is_never_decided_again() -> None:
    answered = comment(101, "alice", "/perf help")
    assert [w.comment.id for w in take([answered], {}, 0, BOT, LIMITS, finished=frozenset({101})).queue] == []
    assert [w.comment.id for w in take([answered], {}, 0, BOT, LIMITS).queue] == [101]


def test_a_quiet_comment_is_read_again_for_its_commands_alone() -> None:
    said = comment(101, "alice", "thanks!\n/perf help\n/perf nonsense\n/perf why x")
    assert [(c.verb, c.line) for c in reread(said, LIMITS)] == [("help", 2), ("why", 4)]
    assert reread(comment(102, "alice", "/perf help"), LIMITS.model_copy(update={"prefix": "!bot"})) == ()
