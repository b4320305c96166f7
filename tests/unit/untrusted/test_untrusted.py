"""Neutralising outside text for each sink: one inert line, code spans, table cells, the Actions log."""

from __future__ import annotations

import pytest

from bot.untrusted import code_span, log_safe, neutral, table_code

ZW = "\u200b"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", "plain text"),
        ("one\ntwo\r\nthree\rfour", "one two  three four"),
        ("tab\tkept", "tab\tkept"),
        ("nul\x00bell\x07vt\x0bff\x0cesc\x1bdel\x7fls\u2028ps\u2029end", "nul bell vt ff esc del ls ps end"),
        ("ping @alice and @bob", f"ping @{ZW}alice and @{ZW}bob"),
        (f"already @{ZW}alice", f"already @{ZW}alice"),
        ("<!-- perfbot:x y -->", f"<!{ZW}-- perfbot:x y --{ZW}>"),
    ],
)
def test_neutral_makes_one_inert_line(text: str, expected: str) -> None:
    assert neutral(text) == expected
    assert neutral(expected) == expected


def test_neutral_cuts_over_long_text_to_the_limit_with_an_ellipsis() -> None:
    assert neutral("abcdef", 4) == "abc…"
    assert len(neutral("x" * 500, 300)) == 300
    assert neutral("abcd", 4) == "abcd"  # at the limit: whole
    assert neutral("x" * 5000) == "x" * 5000  # no limit: whole


def test_neutral_cuts_before_it_neutralises_so_a_mention_stays_broken() -> None:
    assert neutral("ab@cd", 4) == f"ab@{ZW}…"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("a``b`c", "```a``b`c```"),
        ("`x", "`` `x ``"),
        ("x`", "`` x` ``"),
        ("", "`  `"),
        (" padded ", "` padded `"),
        ("two\nlines", "`two lines`"),
    ],
)
def test_code_span_fences_and_pads_whatever_it_quotes(text: str, expected: str) -> None:
    assert code_span(text) == expected


def test_code_span_cuts_at_its_limit() -> None:
    assert code_span("x" * 400) == "`" + "x" * 299 + "…`"
    assert code_span("x" * 300) == "`" + "x" * 300 + "`"
    assert code_span("abcdef", 3) == "`ab…`"
    assert code_span("@user", 60) == f"`@{ZW}user`"


def test_table_code_escapes_every_pipe() -> None:
    assert table_code("a|b||c") == "`a\\|b\\|\\|c`"
    assert table_code("x" * 301) == "`" + "x" * 299 + "…`"
    assert table_code("abcd|ef", 5) == "`abcd…`"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("::error::x", f":{ZW}:error::x"),
        ("  ::warning::y", f"  :{ZW}:warning::y"),
        ("ok\n::set-output::z\nok :: too", f"ok\n:{ZW}:set-output::z\nok :: too"),
        ("a\r\n::b\u2028::c", f"a\r\n:{ZW}:b\u2028:{ZW}:c"),
        (":: \n::", f":{ZW}: \n:{ZW}:"),
        (": :x", ": :x"),
    ],
)
def test_inert_log_breaks_every_line_that_starts_a_workflow_command(text: str, expected: str) -> None:
    assert log_safe(text) == expected
