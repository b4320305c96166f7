"""The syntax of the GitHub Actions expression subset our workflows' `if:` use: tokens, tree, parser.

A recursive-descent parser with GitHub's precedence: `.` and `[]`, then `!`, then `==`/`!=`
left to right, then `&&`, then `||`. Functions: `contains`, `startsWith`, `endsWith`. An
unknown context or function is an error, as GitHub reports it when parsing.
"""

from __future__ import annotations

import re
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
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
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
