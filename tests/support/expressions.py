"""A small evaluator for the GitHub Actions expression subset our workflows' `if:` use.

It evaluates the tree `tests.support.expression_syntax` parses with GitHub's rules as documented:
string comparison ignores case, `==` between kinds compares numbers (null 0, booleans 1/0,
strings parsed, objects and arrays NaN), `&&`/`||` return an operand, property names ignore
case, a property of anything but an object is null.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tests.support.expression_syntax import NUMBER, Call, Context, Index, Literal, Node, Not, Parser


def truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def as_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        return float(text) if NUMBER.fullmatch(text) else math.nan
    return math.nan


def as_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return str(int(number)) if number.is_integer() else repr(number)
    if isinstance(value, str):
        return value
    return "Array" if isinstance(value, list) else "Object"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def loosely_equal(left: Any, right: Any) -> bool:
    kind = _kind(left)
    if kind != _kind(right):
        return as_number(left) == as_number(right)
    if kind == "str":
        return bool(left.upper() == right.upper())
    if kind in ("null", "boolean", "number"):
        return bool(left == right)
    return left is right  # objects and arrays: the same one only


def _property(target: Any, key: Any) -> Any:
    if isinstance(target, Mapping):
        name = as_string(key)
        if name in target:
            return target[name]
        folded = name.casefold()
        return next((v for k, v in target.items() if str(k).casefold() == folded), None)
    if isinstance(target, list) and _kind(key) == "number" and float(key).is_integer():
        index = int(key)
        return target[index] if 0 <= index < len(target) else None
    return None


def _call(name: str, arguments: list[Any]) -> bool:
    subject, item = arguments
    if name == "contains":
        if isinstance(subject, list):
            return any(loosely_equal(element, item) for element in subject)
        return as_string(item).upper() in as_string(subject).upper()
    if name == "startswith":
        return as_string(subject).upper().startswith(as_string(item).upper())
    return as_string(subject).upper().endswith(as_string(item).upper())


def evaluate_node(node: Node, contexts: Mapping[str, Any]) -> Any:
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Context):
        return contexts[node.name]
    if isinstance(node, Index):
        return _property(evaluate_node(node.target, contexts), evaluate_node(node.key, contexts))
    if isinstance(node, Call):
        return _call(node.name, [evaluate_node(a, contexts) for a in node.arguments])
    if isinstance(node, Not):
        return not truthy(evaluate_node(node.operand, contexts))
    left = evaluate_node(node.left, contexts)
    if node.operator == "&&":
        return evaluate_node(node.right, contexts) if truthy(left) else left
    if node.operator == "||":
        return left if truthy(left) else evaluate_node(node.right, contexts)
    equal = loosely_equal(left, evaluate_node(node.right, contexts))
    return equal if node.operator == "==" else not equal


def strip_braces(source: str) -> str:
    """An `if:` may be written bare or as one `${{ … }}`."""
    text = source.strip()
    if text.startswith("${{") and text.endswith("}}"):
        return text[3:-2]
    return text


def evaluate(source: str, contexts: Mapping[str, Any]) -> Any:
    """The value of `source` with these contexts (`github`, `inputs`, …; names ignore case)."""
    named = {name.lower(): value for name, value in contexts.items()}
    return evaluate_node(Parser(strip_braces(source), frozenset(named)).parse(), named)


def condition(source: str, contexts: Mapping[str, Any]) -> bool:
    """Whether an `if:` with this expression lets its job or step run."""
    return truthy(evaluate(source, contexts))
