"""Reading a comment: which lines are commands, the limits, and each line's command or error."""

from __future__ import annotations

import pytest

from bot.commands.browser_parse import STEPS
from bot.commands.grammar import Blocking
from bot.commands.reading import Parsed, ParseError, command_lines, has_raw_command_line, parse
from bot.commands.registry import VERBS

P = "/perf"


def read(body: str, max_comment: int = 1000, max_argument: int = 100, prefix: str = P) -> Parsed:
    return parse(body, prefix, max_comment, max_argument)


def test_nothing_is_empty_and_anything_read_is_not() -> None:
    assert Parsed().empty
    assert not Parsed(too_long=True).empty
    assert not Parsed(too_intricate=True).empty
    assert not read("/perf help").empty
    assert not read("/perf nope").empty
    assert read("no command").empty


def test_commands_and_errors_keep_their_lines() -> None:
    parsed = read("hi\n\n/perf help\n/perf nope\n/PERF claim m1")
    assert [(c.verb, c.line, c.text) for c in parsed.commands] == [("help", 3, "/perf help")]
    assert parsed.errors == (ParseError(4, "/perf nope", f"unknown command `nope`; known: {', '.join(VERBS)}"),)
    assert not parsed.too_long


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ("/perf help", [(1, "/perf help")]),
        ("  /perf\thelp  ", [(1, "/perf\thelp")]),
        ("/perf", [(1, "/perf")]),
        ("/perfect help\nsay /perf help", []),
        ("one\r\n/perf help\rtwo\r/perf claim m1", [(2, "/perf help"), (4, "/perf claim m1")]),
        ("> /perf help\n\n/perf claim m1", [(3, "/perf claim m1")]),
        ("> > /perf a\n>\n> /perf b\n\n/perf c", [(5, "/perf c")]),
        ("```\n/perf help\n```\n/perf claim m1", [(4, "/perf claim m1")]),
        ("no prefix here", []),
    ],
)
def test_command_lines(body: str, lines: list[tuple[int, str]]) -> None:
    assert command_lines(body, P) == lines


def test_the_line_that_opens_a_multi_line_inline_comment_is_still_a_command() -> None:
    assert command_lines("/perf claim m1 <!--\n/perf help\n-->", P) == [(1, "/perf claim m1 <!--")]


def test_each_multi_line_inline_span_hides_its_own_lines() -> None:
    span = "<!--\n/perf help\n-->"
    body = f"a {span} b {span}\n/perf claim m1"
    assert command_lines(body, P) == [(6, "/perf claim m1")]
    later = f"first paragraph\n\nx {span}\n/perf unclaim m1"
    assert command_lines(later, P) == [(6, "/perf unclaim m1")]


def test_a_one_line_inline_comment_hides_nothing_after_it() -> None:
    assert command_lines("a <!-- x -->\n/perf help", P) == [(2, "/perf help")]


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("  /perf\n", True),
        ("x\n/perf\thelp", True),
        ("x\n /perf help", True),
        ("/perfect", False),
        ("say /perf help", False),
        ("", False),
    ],
)
def test_has_raw_command_line(body: str, found: bool) -> None:
    assert has_raw_command_line(body, P) is found


def test_a_comment_over_the_limit_is_not_read() -> None:
    body = "/perf help\n" + "x" * 20
    assert read(body, max_comment=len(body) - 1) == Parsed(too_long=True)
    assert read("x" * 40, max_comment=39) == Parsed(too_long=False)
    at_limit = read(body, max_comment=len(body))
    assert (len(at_limit.commands), at_limit.too_long) == (1, False)


def test_a_comment_with_more_html_than_perfbot_reads_before_a_command_is_not_read() -> None:
    tags = "x" + "</b>" * (STEPS + 1) + "\n\n"
    assert read("/perf help\n\n" + tags + "/perf help", max_comment=10_000) == Parsed(too_intricate=True)
    assert read("/perf help\n\n" + tags, max_comment=10_000).commands[0].line == 1


def test_arguments_at_the_limit_are_read_and_longer_ones_are_refused() -> None:
    at = read("/perf block m1 " + "y" * 7, max_argument=10)
    assert [c.args for c in at.commands] == [Blocking("m1", "y" * 7)]
    over = read("/perf block m1 " + "y" * 8, max_argument=10)
    assert over.commands == ()
    assert [e.message for e in over.errors] == ["arguments are 11 characters long; the limit is 10"]


def test_the_verb_is_read_case_insensitively_after_any_space() -> None:
    assert [c.verb for c in read("/perf   HeLp").commands] == ["help"]


def test_an_empty_or_unknown_verb() -> None:
    assert [e.message for e in read("/perf").errors] == ["no command given"]
    long_word = "w" * 50
    (error,) = read(f"/perf {long_word}").errors
    assert error.message.startswith("unknown command `" + "w" * 39 + "…`; known: complete, claim")


def test_an_argument_error_names_the_usage_with_the_prefix() -> None:
    (error,) = read("!bot complete m1", prefix="!bot").errors
    assert error == ParseError(
        1, "!bot complete m1", "expected `result: <text>`; usage: `!bot complete <packet> result: <text> [receipt: #N]`"
    )


def test_a_multi_line_span_at_the_start_of_a_paragraph_hides_its_lines() -> None:
    assert command_lines('<span title="a\n/perf help\nb">x</span>\n/perf claim m1', P) == [(4, "/perf claim m1")]


def test_a_nul_inside_a_span_does_not_uncover_the_lines_it_hides() -> None:
    body = 'x <span title="\x00\n/perf a">x</span> <span title="b\n/perf help\nc">y</span>\n/perf claim m1'
    assert command_lines(body, P) == [(5, "/perf claim m1")]


def test_a_nul_in_a_command_line_reads_as_a_replacement_character() -> None:
    assert command_lines("/perf block m1 a\x00b", P) == [(1, "/perf block m1 a\ufffdb")]
