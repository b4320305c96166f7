"""The Actions expression evaluator the workflow tests rely on: syntax, precedence, GitHub's coercions."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.expression_syntax import ExpressionError, tokenize
from tests.support.expressions import as_number, as_string, condition, evaluate

CONTEXTS: dict[str, Any] = {
    "github": {
        "event_name": "issue_comment",
        "event": {"comment": {"body": "Please /PERF claim m1", "user": {"login": "alice", "type": "User"}}},
    },
    "inputs": {"dry-run": True},
    "labels": ["perf", "bug"],
}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("true", True),
        ("null", None),
        ("'It''s'", "It's"),
        ("1.5", 1.5),
        ("-2", -2.0),
        ("github.event_name", "issue_comment"),
        ("GitHub.Event_Name", "issue_comment"),
        ("github['event_name']", "issue_comment"),
        ("github.event.comment.user.login", "alice"),
        ("github.event.missing.deeper", None),
        ("github.event_name.length", None),
        ("labels[1]", "bug"),
        ("labels[5]", None),
        ("inputs.dry-run", True),
        ("${{ github.event_name }}", "issue_comment"),
    ],
)
def test_values(source: str, expected: Any) -> None:
    assert evaluate(source, CONTEXTS) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # String comparison and the string functions ignore case.
        ("github.event_name == 'ISSUE_COMMENT'", True),
        ("contains(github.event.comment.body, '/perf')", True),
        ("contains(github.event.comment.body, '/perfx')", False),
        ("startsWith(github.event.comment.body, 'please')", True),
        ("endsWith(github.event.comment.body, 'M1')", True),
        ("contains(labels, 'PERF')", True),
        ("contains(labels, 'perf bug')", False),
        ("contains('abc', '')", True),
        ("contains('true', true)", True),
        ("contains(github.event.missing, '/perf')", False),
        # Between kinds, `==` compares numbers.
        ("false == ''", True),
        ("false == ' 0.0 '", True),
        ("true == ' 1 '", True),
        ("true == 2", False),
        ("null == 0", True),
        ("null == false", True),
        ("'abc' == 0", False),
        ("github.event == github.event", True),
        ("github.event == github.event.comment", False),
        ("labels == 0", False),
        # Operators return operands; precedence is ! over == over && over ||.
        ("!github.event.missing", True),
        ("!'0'", False),
        ("!0", True),
        ("2 == 2 == 1", True),
        ("2 == (2 == 1)", False),
        ("1 == 1 && 2", 2.0),
        ("'a' == ('a' && 'b')", False),
        ("false && 0 || null", None),
        ("false && (0 || null)", False),
        ("1 || 2 && 3", 1.0),
        ("(1 || 2) && 3", 3.0),
        ("!true == false", True),
        ("!(true == false)", True),
        ("github.event_name != 'issue_comment' || contains(github.event.comment.body, '/perf')", True),
    ],
)
def test_operators_and_functions(source: str, expected: Any) -> None:
    assert evaluate(source, CONTEXTS) == expected


@pytest.mark.parametrize(
    "source",
    [
        "",
        "'unterminated",
        '"double quoted"',
        "1 2",
        "(true",
        "true)",
        "github.",
        "github.(x)",
        "github['event_name'",
        "1 = 2",
        "1 & 2",
        "a | b",
        "secrets.TOKEN",
        "format('{0}', 1)",
        "false && nothing()",
        "contains('a')",
        "contains('a', 'b', 'c')",
        "!",
    ],
)
def test_rejected(source: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate(source, CONTEXTS)


def test_tokens_keep_positions() -> None:
    tokens = tokenize("a.b == 'x y'")
    assert [(t.kind, t.text, t.position) for t in tokens] == [
        ("name", "a", 1),
        ("operator", ".", 2),
        ("name", "b", 3),
        ("operator", "==", 5),
        ("string", "'x y'", 8),
    ]


def test_coercions() -> None:
    assert as_number("0x10") != as_number("0x10")  # NaN: not a JSON number
    assert as_number("  ") == 0.0
    assert math.isnan(as_number([]))
    values: tuple[Any, ...] = (None, True, 2.0, 0.5, [], {})
    assert [as_string(v) for v in values] == ["", "true", "2", "0.5", "Array", "Object"]


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_boolean_algebra_matches_python(a: bool, b: bool, c: bool, d: bool) -> None:
    names = {"v": {"a": a, "b": b, "c": c, "d": d}}
    source = "!v.a && v.b || v.c == v.d && !(v.a || v.d)"
    expected = ((not a) and b) or ((c == d) and not (a or d))
    assert condition(source, names) == expected
