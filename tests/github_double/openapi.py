"""GitHub's published OpenAPI description of api.github.com, once `.ci/fetch-openapi` has fetched it:
its operations, found by method and path, and their schemas compiled to JSON Schema validators.

The description is OpenAPI 3.0: its Schema Objects are JSON Schema draft 4 with OpenAPI's own
keywords, of which only `nullable` changes what validates (`true` also admits null), and `$ref`s
into `#/components/schemas/`. Each schema an exchange needs is converted on first use, with the
components it reaches, into one draft 4 document whose `$ref`s resolve inside it; the validators
are kept per operation, status and header, so a schema is compiled once per process. OpenAPI's
`readOnly` (a required property a request need not send) is not modelled: no request body of the
description has one.

The file is the one with `$ref`s (13 MB, read in about 0.2 s), not the dereferenced one (73 MB,
about 2 s): a few hundred of its 1,100 operations' schemas are ever needed.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft4Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match

from bot.recent import Recent
from tests.support.paths import ROOT

ENVIRONMENT = "GITHUB_OPENAPI"
DEFAULT = ROOT / ".cache" / "openapi" / "api.github.com.json"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
COMPONENT = "#/components/schemas/"
# Subschemas by keyword: one schema, a list of them, or a map of names to them.
ONE, MANY, NAMED = ("items", "additionalProperties", "not"), ("allOf", "anyOf", "oneOf"), ("properties",)
FORMATS = FormatChecker(formats=())
SPACE = re.compile(r"\s")


def location() -> Path:
    return Path(os.environ.get(ENVIRONMENT) or DEFAULT)


@functools.cache
def load() -> Description | None:
    """The description at `location()`, or None when it is not fetched."""
    path = location()
    if not path.is_file():
        return None
    return Description(json.loads(path.read_bytes()))


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    """RFC 3339: a date, `T`, a time and an offset or `Z`."""
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value, re.IGNORECASE):
        return False
    dt.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    return True


@FORMATS.checks("date", raises=ValueError)
def _date(value: object) -> bool:
    return not isinstance(value, str) or bool(re.fullmatch(r"\d{4}-\d\d-\d\d", value) and dt.date.fromisoformat(value))


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    """Absolute, with a scheme; the description's URIs are the API's and the website's links."""
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme and (parts.netloc or parts.path)) and SPACE.search(value) is None


@dataclass(frozen=True)
class Operation:
    """One operation: its id, method (upper case), path template and OpenAPI object."""

    id: str
    method: str
    template: str
    source: str  # the template as a regular expression
    multi: bool  # a parameter may span segments (`x-multi-segment`)
    names: tuple[str, ...]  # the template's parameters, in the pattern's group order
    spec: dict[str, Any] = field(repr=False)
    parameters: tuple[dict[str, Any], ...] = field(repr=False)

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use: compiling all 1,200 at load would double the load's time."""
        return re.compile(self.source)

    @functools.cached_property
    def segments(self) -> int:
        return self.template.count("/")

    def fits(self, segments: int) -> bool:
        """Whether a path of this many segments could match (a cheap test before the pattern's)."""
        return self.segments == segments or (self.multi and self.segments < segments)

    def path_values(self, path: str) -> dict[str, str]:
        match = self.pattern.fullmatch(path)
        assert match is not None
        return dict(zip(self.names, match.groups(), strict=True))


class Description:
    """The operations of one OpenAPI document, and validators for its schemas."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.by_method: dict[str, list[Operation]] = {}
        for template, item in document["paths"].items():
            for method in METHODS:
                if method in item:
                    operation = self._operation(method.upper(), template, item)
                    self.by_method.setdefault(operation.method, []).append(operation)
        for operations in self.by_method.values():
            # A literal segment wins over a parameter (OpenAPI's rule), then the longer literal text.
            operations.sort(key=lambda o: (len(o.names), -len(re.sub(r"\{[^}]+\}", "", o.template))))
        self._converted: dict[str, Any] = {}
        self._reached: dict[str, frozenset[str]] = {}
        self._validators: dict[tuple[str, ...], Draft4Validator] = {}
        # Each request's path was matched against every template of its method: kept by path.
        self._matched: Recent[tuple[str, str], tuple[Operation | None]] = Recent(4096)

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation whose template matches `path` (as sent: percent-encoded, no query)."""
        found = self._matched.get((method, path))
        if found is None:
            segments = path.count("/")
            candidates = (o for o in self.by_method.get(method, ()) if o.fits(segments))
            found = (next((o for o in candidates if o.pattern.fullmatch(path)), None),)
            self._matched.keep((method, path), found)
        return found[0]

    def resolve(self, node: Any) -> Any:
        """`node`, or what its `$ref` (a local JSON pointer) points at, followed until it is no reference."""
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def validator(self, key: tuple[str, ...], schema: dict[str, Any]) -> Draft4Validator:
        """A validator of `schema` (an OpenAPI Schema Object), compiled once per `key`."""
        found = self._validators.get(key)
        if found is None:
            root = self._convert(schema)
            names = self._reach(root)
            document = {"allOf": [root], "components": {"schemas": {n: self._component(n) for n in names}}}
            found = self._validators[key] = Draft4Validator(document, format_checker=FORMATS)
        return found

    def _operation(self, method: str, template: str, item: dict[str, Any]) -> Operation:
        spec = item[method.lower()]
        parameters = {(p["name"], p["in"]): p for p in map(self.resolve, item.get("parameters", []))}
        parameters |= {(p["name"], p["in"]): p for p in map(self.resolve, spec.get("parameters", []))}
        multi = {name for (name, where), p in parameters.items() if where == "path" and p.get("x-multi-segment")}
        names = tuple(re.findall(r"\{([^}]+)\}", template))
        pattern = "".join(
            f"({'.+' if piece[1:-1] in multi else '[^/]+'})" if piece.startswith("{") else re.escape(piece)
            for piece in re.split(r"(\{[^}]+\})", template)
            if piece
        )
        return Operation(
            spec.get("operationId", f"{method} {template}"),
            method,
            template,
            pattern,
            bool(multi & set(names)),
            names,
            spec,
            tuple(parameters.values()),
        )

    def _component(self, name: str) -> Any:
        if name not in self._converted:
            self._converted[name] = self._convert(self.schemas[name])
        return self._converted[name]

    def _reach(self, converted: Any) -> frozenset[str]:
        """Every component `converted` refers to, directly or through other components."""
        seen: set[str] = set()
        todo = list(_refs(converted))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name not in self._reached:
                self._reached[name] = frozenset(_refs(self._component(name)))
            todo += self._reached[name] - seen
        return frozenset(seen)

    def _convert(self, schema: Any) -> Any:
        """An OpenAPI 3.0 Schema Object as JSON Schema draft 4: `nullable: true` admits null."""
        if not isinstance(schema, dict):
            return schema
        out: dict[str, Any] = {}
        for keyword, value in schema.items():
            if keyword in ONE and isinstance(value, dict):
                out[keyword] = self._convert(value)
            elif keyword in MANY:
                out[keyword] = [self._convert(v) for v in value]
            elif keyword in NAMED:
                out[keyword] = {name: self._convert(v) for name, v in value.items()}
            elif keyword not in ("nullable", "example", "examples", "description", "discriminator"):
                out[keyword] = value
        return {"anyOf": [{"type": "null"}, out]} if schema.get("nullable") is True else out


def _refs(node: Any) -> Iterator[str]:
    """The component names of the `$ref`s in `node`."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(COMPONENT):
            yield ref.removeprefix(COMPONENT)
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def first_error(validator: Draft4Validator, instance: Any) -> str | None:
    """What is wrong with `instance` (the most relevant error, where it is), or None when it is valid."""
    if next(validator.iter_errors(instance), None) is None:
        return None
    error: ValidationError | None = best_match(validator.iter_errors(instance))
    assert error is not None
    where = "/".join(str(part) for part in error.absolute_path) or "(the whole body)"
    message = error.message if len(error.message) <= 300 else error.message[:297] + "..."
    return f"{where}: {message}"
