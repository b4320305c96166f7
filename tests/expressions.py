"""A small evaluator for the GitHub Actions expression subset our workflows' `if:` use.

It tokenises and parses (recursive descent, GitHub's precedence: `.` and `[]`, then `!`, then
`==`/`!=` left to right, then `&&`, then `||`) and evaluates with GitHub's rules as documented:
string comparison ignores case, `==` between kinds compares numbers (null 0, booleans 1/0,
strings parsed, objects and arrays NaN), `&&`/`||` return an operand, property names ignore
case, a property of anything but an object is null. Functions: `contains`, `startsWith`,
`endsWith`. An unknown context or function is an error, as GitHub reports it when parsing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<string>'(?:[^']|'')*')
  | (?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<operator>==|!=|&&|\|\||[!().,\[\]])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    """,
    re.VERBOSE,
)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_KEYWORDS: dict[str, Any] = {"true": True, "false": False, "null": None}
_FUNCTION_ARITY = {"contains": 2, "startswith": 2, "endswith": 2}


class ExpressionError(ValueError):
    """The expression is not in the subset, or not well formed; names the position (1-based)."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    position: int


def tokenize(source: str) -> list[Token]:
    tokens: list[Token] = []
    at = 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise ExpressionError(f"unexpected symbol at position {at + 1}: {source[at : at + 10]!r}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(Token(kind, match.group(), at + 1))
        at = match.end()
    return tokens


# The syntax tree: a literal value, a context name, a property or index, a call, or an operator.
@dataclass(frozen=True)
class Literal:
    value: Any


@dataclass(frozen=True)
class Context:
    name: str


@dataclass(frozen=True)
class Index:
    target: Node
    key: Node


@dataclass(frozen=True)
class Call:
    name: str
    arguments: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    operand: Node


@dataclass(frozen=True)
class Binary:
    operator: str
    left: Node
    right: Node


Node = Literal | Context | Index | Call | Not | Binary


class Parser:
    def __init__(self, source: str, contexts: frozenset[str]) -> None:
        self.tokens = tokenize(source)
        self.at = 0
        self.contexts = contexts

    def parse(self) -> Node:
        if not self.tokens:
            raise ExpressionError("empty expression")
        node = self._or()
        if self.at < len(self.tokens):
            token = self.tokens[self.at]
            raise ExpressionError(f"unexpected symbol {token.text!r} at position {token.position}")
        return node

    def _peek(self) -> Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self, *texts: str) -> Token | None:
        token = self._peek()
        if token is not None and token.kind == "operator" and token.text in texts:
            self.at += 1
            return token
        return None

    def _expect(self, text: str) -> None:
        if self._take(text) is None:
            token = self._peek()
            where = f"{token.text!r} at position {token.position}" if token else "the end"
            raise ExpressionError(f"expected {text!r}, found {where}")

    def _or(self) -> Node:
        node = self._and()
        while self._take("||"):
            node = Binary("||", node, self._and())
        return node

    def _and(self) -> Node:
        node = self._equality()
        while self._take("&&"):
            node = Binary("&&", node, self._equality())
        return node

    def _equality(self) -> Node:
        node = self._unary()
        while (token := self._take("==", "!=")) is not None:
            node = Binary(token.text, node, self._unary())
        return node

    def _unary(self) -> Node:
        if self._take("!"):
            return Not(self._unary())
        return self._postfix(self._primary())

    def _postfix(self, node: Node) -> Node:
        while True:
            if self._take("."):
                token = self._peek()
                if token is None or token.kind != "name":
                    raise ExpressionError(f"expected a property name after '.' (token {self.at + 1})")
                self.at += 1
                node = Index(node, Literal(token.text))
            elif self._take("["):
                key = self._or()
                self._expect("]")
                node = Index(node, key)
            else:
                return node

    def _primary(self) -> Node:
        token = self._peek()
        if token is None:
            raise ExpressionError("unexpected end of expression")
        self.at += 1
        if token.kind == "string":
            return Literal(token.text[1:-1].replace("''", "'"))
        if token.kind == "number":
            return Literal(float(token.text))
        if token.kind == "operator" and token.text == "(":
            node = self._or()
            self._expect(")")
            return node
        if token.kind == "name":
            return self._name(token)
        raise ExpressionError(f"unexpected symbol {token.text!r} at position {token.position}")

    def _name(self, token: Token) -> Node:
        lowered = token.text.lower()
        if self._take("("):
            if lowered not in _FUNCTION_ARITY:
                raise ExpressionError(f"unrecognized function {token.text!r} at position {token.position}")
            arguments: list[Node] = []
            if self._take(")") is None:
                arguments.append(self._or())
                while self._take(","):
                    arguments.append(self._or())
                self._expect(")")
            if len(arguments) != _FUNCTION_ARITY[lowered]:
                raise ExpressionError(f"{token.text} takes {_FUNCTION_ARITY[lowered]} arguments")
            return Call(lowered, tuple(arguments))
        if token.text in _KEYWORDS:
            return Literal(_KEYWORDS[token.text])
        if lowered not in self.contexts:
            raise ExpressionError(f"unrecognized named-value {token.text!r} at position {token.position}")
        return Context(lowered)


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
        return float(text) if _NUMBER.fullmatch(text) else math.nan
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
