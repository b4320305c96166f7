"""The command grammar: typed arguments, ignored regions, limits, and a parser that never raises."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands.grammar import Review
from bot.commands.reading import Parsed, command_lines, parse, to_html, usage
from bot.commands.registry import SPECS, VerbSpec
from tests.support.property_budget import examples

P = "/perf"


def run(body: str, max_comment: int = 65536, max_argument: int = 2000) -> Parsed:
    return parse(body, P, max_comment, max_argument)


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        (
            "/perf complete mac.m1 result: Exact campaign accepted receipt: #9482",
            {"verb": "complete", "target": "mac.m1", "result": "Exact campaign accepted", "receipt": 9482},
        ),
        ('/perf complete m1 result: "quoted: text"', {"verb": "complete", "target": "m1", "result": "quoted: text"}),
        ("/perf claim cuda.q8_1-numerical-gate", {"verb": "claim", "target": "cuda.q8_1-numerical-gate"}),
        ("/perf unclaim m1", {"verb": "unclaim", "target": "m1"}),
        (
            "/perf state m5 capacity-hold reason: no 64 GiB node",
            {"verb": "state", "target": "m5", "state": "capacity-hold", "reason": "no 64 GiB node"},
        ),
        ("/perf state m5 waiting-evidence", {"verb": "state", "target": "m5", "state": "waiting-evidence"}),
        (
            "/perf block m10 exclusive quiescent M3 Pro campaign window",
            {"verb": "block", "target": "m10", "condition": "exclusive quiescent M3 Pro campaign window"},
        ),
        ("/perf unblock m10", {"verb": "unblock", "target": "m10"}),
        ("/perf review metal-resident-decode", {"verb": "review", "target": "metal-resident-decode"}),
        (
            "/perf review c by 2026-09-10 note: re-measured on trunk",
            {"verb": "review", "target": "c", "by": "2026-09-10", "note": "re-measured on trunk"},
        ),
        (
            "/perf evidence c accepted Five runs (5/5) exact (docs/x.json)",
            {
                "verb": "evidence",
                "target": "c",
                "evidence_class": "accepted",
                "summary": "Five runs (5/5) exact",
                "ref": "docs/x.json",
            },
        ),
        ("/perf exit laptop-placement met: #9600", {"verb": "exit", "target": "laptop-placement", "ref": "#9600"}),
        ("/perf help", {"verb": "help"}),
        ("/perf HELP", {"verb": "help"}),
        ("/perf drop all", {"verb": "drop", "drop_all": True}),
        ("/perf drop 101, 102", {"verb": "drop", "drop_ids": (101, 102)}),
        ("   /perf help   ", {"verb": "help"}),
    ],
)
def test_each_command_parses_to_its_typed_form(line: str, parsed: dict[str, object]) -> None:
    result = run(f"Some words first.\n{line}\nand after")
    assert result.errors == ()
    (command,) = result.commands
    assert command.parsed() == parsed
    assert command.line == 2


MALFORMED = [
    ("/perf", "no command given"),
    ("/perf frobnicate x", "unknown command `frobnicate`"),
    ("/perf complete m1", "expected `result: <text>`; usage: `/perf complete <packet> result: <text> [receipt: #N]`"),
    ("/perf complete m1 result: x receipt: 9482", "receipt must be an issue reference like #123"),
    ("/perf complete m1 result:   ", "result is empty"),
    ("/perf state m5 paused", "unknown state `paused`"),
    ("/perf state m5 complete", "use `complete <packet> result: <text>`"),
    ("/perf state m5 ready because", "expected `reason: <text>` after the state"),
    ("/perf review c by tomorrow", "`tomorrow` is not a date (YYYY-MM-DD)"),
    ("/perf review c by 2026-02-30", "`2026-02-30` is not a date (YYYY-MM-DD)"),
    ("/perf evidence c accepted no reference", "expected the reference in parentheses"),
    ("/perf evidence c accepted bad)", "unbalanced parentheses"),
    ("/perf exit c", "expected `met: <ref>`"),
    ("/perf claim", "expected a packet id"),
    ("/perf claim m1 please", "unexpected text after the packet id"),
    ("/perf drop some", "expected `all` or comment ids"),
    ("/perf block m1", "condition is empty"),
]


@pytest.mark.parametrize(("line", "message"), MALFORMED)
def test_malformed_lines_become_errors_naming_the_problem(line: str, message: str) -> None:
    result = run(line)
    assert result.commands == ()
    (error,) = result.errors
    assert message in error.message
    assert (error.line, error.text) == (1, line.strip())


@pytest.mark.parametrize("line", [line for line, _ in MALFORMED])
def test_an_error_shows_on_github_as_written(line: str) -> None:
    """A reply quotes the message as Markdown: a placeholder written bare (`<packet>`) would be read
    as an HTML tag and vanish, so every `<` of a message is inside a code span."""
    (error,) = run(line).errors
    assert shown(error.message) == re.sub(r"`([^`]+)`", r"\1", error.message)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.verb)
def test_every_usage_shows_on_github_as_written(spec: VerbSpec) -> None:
    forms = [f"{P} {form}" for form in spec.grammar.forms]
    assert shown(usage(P, spec.grammar)) == " or ".join(forms)


def shown(markdown: str) -> str:
    """What GitHub shows of `markdown` as one paragraph of text and code spans (no other tag)."""
    rendered = to_html(markdown)
    assert set(re.findall(r"</?([a-z]+)", rendered)) <= {"p", "code"}, rendered
    return html.unescape(re.sub(r"<[^>]*>", "", rendered)).strip()


def test_fences_quotes_and_lookalikes_are_not_commands() -> None:
    body = "\n".join(
        [
            "```",
            "/perf help",
            "```",
            "~~~~sh",
            "/perf help",
            "~~~",
            "/perf help",
            "```",
            "/perf help",
            "~~~~",  # only a run as long closes
            "> /perf help",
            "   > quoted /perf help",
            "/perf help lazily continues the quote",
            "",
            "<!--",
            "/perf help inside an HTML comment",
            "-->",
            "",
            "    /perf help in an indented code block",
            "",
            "- ```",
            "  /perf help in a fence in a list item",
            "  ```",
            "",
            "/perfect help",
            "text /perf help",
            "/perf claim m1",
        ]
    )
    assert [text for _, text in command_lines(body, P) or [(0, "unread")]] == ["/perf claim m1"]


def test_inline_html_spanning_lines_hides_them() -> None:
    body = "LGTM, thanks <!--\n/perf complete m1 result: x\n--> and\n/perf help"
    assert command_lines(body, P) == [(4, "/perf help")]
    assert command_lines('see <img alt="a\n/perf help\nb" src="x">\n/perf claim m1', P) == [(4, "/perf claim m1")]


def test_unclosed_fence_hides_the_rest() -> None:
    assert command_lines("```\n/perf help\n", P) == []


def test_several_commands_in_one_comment_keep_their_lines() -> None:
    result = run("/perf help\n\n/perf claim a\n/perf nope\n/perf unclaim b")
    assert [(c.verb, c.line) for c in result.commands] == [("help", 1), ("claim", 3), ("unclaim", 5)]
    assert [e.line for e in result.errors] == [4]


def test_limits() -> None:
    huge = "/perf help\n" + "x" * 1_000_000
    assert run(huge).too_long
    assert run("x" * 1_000_000).empty  # no command at all: nothing to answer
    long_argument = run("/perf block m1 " + "y" * 2001)
    assert "limit is 2000" in long_argument.errors[0].message


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=3000))
def test_parser_is_total_on_arbitrary_text(body: str) -> None:
    result = run(body)
    assert isinstance(result, Parsed)


fragments = st.sampled_from(
    [
        "/perf ",
        "/perf help",
        "```",
        "~~~",
        "````",
        "> ",
        "\n",
        "complete ",
        "result: ",
        "receipt: #",
        "#",
        "review ",
        "by ",
        "2026-09-01",
        "(",
        ")",
        "note:",
        '"',
        "drop ",
        "all",
        "state ",
        "ready",
        "\r\n",
        "\t",
        "é",
        "\x00",
    ]
)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.one_of(fragments, st.text(max_size=8)), max_size=60).map("".join))
def test_parser_is_total_on_command_shaped_text(body: str) -> None:
    result = run(body, max_comment=400, max_argument=40)
    for command in result.commands:
        assert command.line >= 1
        assert command.text.startswith(P)
    for error in result.errors:
        assert error.message


def test_dates_are_typed() -> None:
    (command,) = run("/perf review c by 2026-09-10").commands
    assert command.of(Review).by == dt.date(2026, 9, 10)


def test_lines_split_only_where_markdown_breaks_them() -> None:
    assert command_lines("say\u2028/perf help", P) == []
    assert command_lines("one\r\n/perf help\rtwo", P) == [(2, "/perf help")]


@pytest.mark.parametrize("digits", ["²", "١٢", "１２"])
def test_non_ascii_digits_are_malformed_not_a_crash(digits: str) -> None:
    for line in (
        f"/perf drop {digits}",
        f"/perf complete m1 result: x receipt: #{digits}",
        f"/perf review c by {digits}",
    ):
        result = run(line)
        assert result.commands == ()
        assert len(result.errors) == 1


verbs = st.sampled_from(
    ["complete", "claim", "unclaim", "state", "block", "unblock", "review", "evidence", "exit", "help", "drop"]
)
argument_bits = st.sampled_from(
    [
        "m1",
        "all",
        "#",
        "#12",
        "²",
        "١٢",
        "result:",
        "receipt:",
        "reason:",
        "by",
        "2026-09-01",
        "note:",
        "met:",
        "(",
        ")",
        "ready",
        "complete",
        '"',
        "12",
        ",",
        " ",
        "x",
    ]
)


@settings(max_examples=examples(500), deadline=None)
@given(verbs, st.lists(st.one_of(argument_bits, st.text(max_size=4)), max_size=12))
def test_every_verb_with_any_arguments_parses_or_errors(verb: str, bits: list[str]) -> None:
    line = f"/perf {verb} " + " ".join(bits)
    result = run(line)
    assert len(result.commands) + len(result.errors) == (1 if command_lines(line, P) else 0)
