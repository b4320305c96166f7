"""Neutralising outside text for each sink: one inert line, code spans, table cells, the Actions log."""

from __future__ import annotations

import pytest

from bot.untrusted import (
    code_span,
    dot_line,
    dot_text,
    echo,
    graph_line,
    line_start_safe,
    log_safe,
    log_safe_json,
    mermaid_text,
    neutral,
    table_code,
)

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
        ("see ##[error] here", f"see ##{ZW}[error] here"),
        ("##[group]##[endgroup]", f"##{ZW}[group]##{ZW}[endgroup]"),
        ("## [not one", "## [not one"),
    ],
)
def test_inert_log_breaks_every_line_that_starts_a_workflow_command_and_every_legacy_one(
    text: str, expected: str
) -> None:
    assert log_safe(text) == expected


def test_neutral_drops_bidirectional_controls() -> None:
    assert neutral("a\u202eb\u2066c\u200fd") == "abcd"


def test_log_safe_json_escapes_the_bracket_of_a_legacy_command() -> None:
    assert log_safe_json('{"a": "##[error]", "b": "##[x"}') == '{"a": "##\\u005berror]", "b": "##\\u005bx"}'
    assert log_safe_json('{"a": "# #["}') == '{"a": "# #["}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```python", f"`{ZW}``python"),
        ("  ~~~", f"  ~{ZW}~~"),
        ("``two", "``two"),
        ("a ```", "a ```"),
        ("```x\n```", f"`{ZW}``x ```"),
    ],
)
def test_line_start_safe_breaks_a_leading_code_fence(text: str, expected: str) -> None:
    assert line_start_safe(text) == expected


def test_graph_line_turns_controls_into_spaces_and_lone_surrogates_into_replacement_characters() -> None:
    assert graph_line("a\nb\x00c\x85d\u2028e\tf") == "a b c d e f"
    assert graph_line("x\ud800y\udfffz") == "x\ufffdy\ufffdz"
    assert graph_line("plain \u202e kept") == "plain \u202e kept"


def test_mermaid_text_keeps_safe_ascii_and_writes_everything_else_as_entities() -> None:
    assert mermaid_text("Lever a_1 (x/y), +2*3.") == "Lever a_1 (x/y), +2*3."
    assert mermaid_text('say "hi" `now` <b>&</b>') == "say #34;hi#34; #96;now#96; #60;b#62;#38;#60;/b#62;"
    assert mermaid_text("é\nz\ud800") == "#233; z#65533;"


def test_dot_line_drops_bidi_controls_and_breaks_legacy_commands() -> None:
    assert dot_line("a\u202eb\nc ##[error] \ud800") == f"ab c ##{ZW}[error] \ufffd"
    assert dot_line('keep "quotes" \\ here') == 'keep "quotes" \\ here'


def test_dot_text_escapes_backslashes_then_quotes() -> None:
    assert dot_text('a "b" \\c\\"') == 'a \\"b\\" \\\\c\\\\\\"'
    assert dot_text("##[x\u2066") == f"##{ZW}[x"


def test_echo_quotes_and_cuts_text_at_sixty_characters_by_default() -> None:
    assert echo("it's @me") == f"'it\\'s @{ZW}me'"
    assert echo("x" * 61) == "'" + "x" * 59 + "…'"
    assert echo("x" * 60) == "'" + "x" * 60 + "'"
    assert echo("abcdef", 4) == "'abc…'"
    assert echo("") == "''"


def test_echo_names_booleans_and_numbers() -> None:
    assert echo(True) == "true"
    assert echo(False) == "false"
    assert echo(5) == "5"
    assert echo(0) == "0"
    assert echo(1.5) == "1.5"
    assert echo(2**179) == str(2**179)  # 180 bits: 3 × the default limit
    assert echo(2**180) == "a very long number"
    assert echo(2**9, 3) == "a very long number"  # 10 bits: past 3 × 3
    assert echo(2**9 - 1, 3) == "511"


def test_echo_names_anything_else_by_its_type() -> None:
    assert echo({"a": 1}) == "a mapping"
    assert echo([1, 2]) == "a list"
    assert echo((1,)) == "a list"
    assert echo(None) == "a value of another type"


def test_a_reason_cell_is_one_code_span_without_our_inner_backticks() -> None:
    """The job summary's reasons (issue #45): no literal backticks, the outside text still inert."""
    from bot.untrusted import reason_cell

    assert reason_cell("unknown packet `a|b`; did you mean `ab`?") == "`unknown packet a\\|b; did you mean ab?`"
    assert reason_cell("") == "—"
    assert reason_cell("x ``a`b`` y") == "```x ``a`b`` y```"  # an outside value's longer fence is kept
