"""YAML syntax errors in plain words (issue #25, words): each problem the parser names is said as a
person fixes it, at the parser's file:line:col (or where the unclosed quote or bracket opened)."""

from __future__ import annotations

import pytest

from bot.errors import InputError
from bot.snapshot.store import parse_tree
from bot.snapshot.store_words import plain

# The parser's own terms: none of them reaches a person.
JARGON = ("<block", "while parsing", "while scanning", "expected", "but found", "token", "stream", "scalar")


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("a:\n  b: 1\n c: 2\n", "3:2", "a new key here does not line up with the lines above it"),
        ("a:\n  - x\n  y: 2\n", "3:3", "a key here does not line up with the lines above it"),
        ("- a\nb: 1\n", "2:1", "a key here does not line up with the lines above it: check this line's indentation"),
        ("a: b: c\n", "1:5", "a ': ' inside a value starts a mapping where none may start: put the value in quotes"),
        ("a:\n\tb: 1\n", "2:1", "a tab character where YAML takes only spaces: replace it with spaces$"),
        ("a: 'abc\nb: 2\n", "1:4", "the quoted value that starts here is never closed"),
        ('a: "abc\n', "1:4", "the quoted value that starts here is never closed: its closing quote is missing$"),
        ("a: [1, 2\nb: 3\n", "1:4", "the '[' opened here is not closed where it should be: a ',' or ']' is missing"),
        (
            "a: {x: 1\n",
            "1:4",
            "the '{' opened here is not closed where it should be: a ',' or '}' is missing before the end of the file$",
        ),
        ("a: 1\na: 2\n", "2:1", "duplicate key 'a': a key appears once in a mapping; keep one"),
        ("a: %x\n", "1:4", "a value cannot start with '%': put the value in quotes"),
        ("a: ]\n", "1:4", "a value cannot start with ']': put the value in quotes"),
        ("a: 1\n---\nb: 2\n", "2:1", "a second YAML document ('---') starts here: the file holds one"),
        (
            'a: "\\q"\n',
            "1:6",
            "'\\q' is not an escape YAML knows in a double-quoted value: write the backslash twice, or use single quotes$",
        ),
        ("a: |x\n  b\n", "1:5", "a '|' or '>' is followed by something other than"),
        ("'a'\nb: 1\n", "2:1", "a new key after the file's top-level value ended: the top of the file is one mapping"),
        ('"a" x\n', "1:5", "a value after the file's top-level value ended"),
        (
            "a: {x: 1]\n",
            "1:4",
            "the '{' opened here is not closed where it should be: a ',' or '}' is missing before ']'$",
        ),
    ],
)
def test_a_syntax_error_is_said_in_plain_words_at_its_place(text: str, place: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_tree(text, "f.yaml")
    said = str(caught.value)
    # The words start the message; a `$` at their end says they are all of it.
    assert said.startswith(f"f.yaml:{place}: {words.removesuffix('$')}"), said
    if words.endswith("$"):
        assert said == f"f.yaml:{place}: {words[:-1]}"
    assert not [term for term in JARGON if term in said], said


def test_perfbot_own_refusals_keep_their_words() -> None:
    with pytest.raises(InputError, match=r"^f\.yaml:1:4: anchors and aliases are not allowed; write the value out$"):
        parse_tree("a: &x 1\nb: *x\n", "f.yaml")


def test_a_problem_the_table_does_not_know_keeps_the_parsers_words_after_a_plain_clause() -> None:
    said = plain("while parsing something new", "found a thing")
    assert said.message == "this is not valid YAML here (the parser says: while parsing something new found a thing)"
    assert plain(None, None).message == "this is not valid YAML"


def test_a_rule_with_a_context_applies_only_within_it() -> None:
    assert "never closed" in plain("while scanning a quoted scalar", "found unexpected end of stream").message
    assert plain("while scanning a quoted scalar", "found unexpected end of stream").at_start
    assert "never closed" not in plain("while scanning a block scalar", "found unexpected end of stream").message


@pytest.mark.parametrize(
    ("found", "words"),
    [
        ("<block mapping start>", "a new key"),
        ("<block sequence start>", "a list item"),
        ("?", "a key"),
        ("-", "a list item"),
        ("<block end>", "the end of the block"),
        ("<document start>", "a new document"),
        ("<scalar>", "a value"),
        ("!x", "'!x'"),  # anything else is shown as it was found, quoted
    ],
)
def test_what_the_parser_found_is_named_as_a_person_sees_it(found: str, words: str) -> None:
    said = plain("while parsing a block mapping", f"expected <block end>, but found '{found}'")
    assert said.message == (
        f"{words} here does not line up with the lines above it: check this line's indentation "
        "(the keys of one mapping start in one column, as do the items of one list)"
    )
    assert not said.at_start


def test_line_breaks_in_the_parsers_words_are_read_as_spaces() -> None:
    assert "never closed" in plain("while scanning a quoted scalar", "found unexpected\nend of stream").message
    assert "never closed" in plain("while scanning a quoted\nscalar", "found unexpected end of stream").message
    unknown = plain("while doing\nsomething", "went\nwrong").message
    assert unknown == "this is not valid YAML here (the parser says: while doing something went wrong)"
