"""The generated parts of `docs/reference.md`: CLI flags, config keys, state file fields, comment topics.

Each part sits between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->`; the prose
around them is written by hand. `perfbot reference --check` fails when a part is stale, so the
reference cannot drift from the argument parser and the models. The rows templates read are
NamedTuples (immutable, cheap to define).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from bot.errors import input_error
from bot.github.actions import TOPICS
from bot.github.observed import Observed
from bot.render import Renderer
from bot.schemas import schema

PATH = "docs/reference.md"
_BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end generated: \2 -->)", re.S)


class Flag(NamedTuple):
    names: str
    argument: str
    help: str


class CliCommand(NamedTuple):
    name: str
    help: str
    usage: str
    flags: tuple[Flag, ...]


class Key(NamedTuple):
    name: str
    type: str
    default: str
    description: str


def commands(parser: argparse.ArgumentParser) -> list[CliCommand]:
    """Every subcommand with every flag, from the parser itself."""
    found = []
    for action in parser._actions:  # argparse keeps subcommands only here
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            flags = tuple(Flag(", ".join(a.option_strings) or a.dest, _argument(a), a.help or "") for a in sub._actions)
            usage = " ".join(sub.format_usage().split())
            found.append(CliCommand(name, helps.get(name, ""), usage.removeprefix("usage: "), flags))
    return found


def _argument(action: argparse.Action) -> str:
    if action.choices is not None:
        return "|".join(str(c) for c in action.choices)
    if action.nargs == 0:
        return ""
    return str(action.metavar or action.dest.upper())


def keys(model_schema: Mapping[str, Any]) -> list[Key]:
    """Every key of a JSON Schema, dotted, with its type, default and description."""
    defs = model_schema.get("$defs", {})
    return list(_walk(model_schema, defs, ""))


def _walk(node: Mapping[str, Any], defs: Mapping[str, Any], prefix: str) -> Iterator[Key]:
    required = set(node.get("required", ()))
    for name, prop in node.get("properties", {}).items():
        target = _resolve(prop, defs)
        default = "required" if name in required else _default(prop)
        yield Key(prefix + name, _type(prop, defs), default, prop.get("description", ""))
        if "properties" in target:
            yield from _walk(target, defs, f"{prefix}{name}.")
        items = _resolve(target.get("items", {}), defs)
        if "properties" in items:
            yield from _walk(items, defs, f"{prefix}{name}[].")
        extra = _resolve(target.get("additionalProperties") or {}, defs)
        if "properties" in extra:
            yield from _walk(extra, defs, f"{prefix}{name}.*.")


def _resolve(node: Any, defs: Mapping[str, Any]) -> Mapping[str, Any]:
    if not isinstance(node, Mapping):
        return {}
    if "$ref" in node:
        resolved: Mapping[str, Any] = defs[node["$ref"].rsplit("/", 1)[1]]
        return resolved
    return node


def _default(prop: Mapping[str, Any]) -> str:
    if "default" not in prop or isinstance(prop["default"], dict):
        return ""
    value: object = prop["default"]
    return f'"{value}"' if isinstance(value, str) else json.dumps(value)


def _type(prop: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    if "anyOf" in prop:
        return " or ".join(_type(choice, defs) for choice in prop["anyOf"])
    target = _resolve(prop, defs)
    if "enum" in target:
        return "one of " + ", ".join(f"`{v}`" for v in target["enum"])
    if "const" in target:
        return f"`{target['const']}`"
    kind = str(target.get("type", "object"))
    if kind == "array":
        return "list of " + _type(target.get("items", {}), defs)
    if kind == "object" and "additionalProperties" in target and "properties" not in target:
        return "map to " + _type(target["additionalProperties"], defs)
    bounds = [f"> {target['exclusiveMinimum']}"] if "exclusiveMinimum" in target else []
    bounds += [f">= {target['minimum']}"] if "minimum" in target else []
    bounds += [f"<= {target['maximum']}"] if "maximum" in target else []
    words = {"string": "text", "integer": "integer", "boolean": "true or false", "null": "null", "object": "object"}
    text: str = words.get(kind, kind) + (f" ({target['format']})" if "format" in target else "")
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def parts(parser: argparse.ArgumentParser, renderer: Renderer) -> dict[str, str]:
    """The generated parts, by name."""
    state = Observed.model_json_schema(mode="validation")
    return {
        "cli": renderer.render("reference/cli.md.j2", commands=commands(parser)),
        "config": renderer.render("reference/keys.md.j2", keys=keys(schema("config"))),
        "state": renderer.render("reference/keys.md.j2", keys=keys(state)),
        "topics": renderer.render("reference/topics.md.j2", topics=TOPICS),
    }


def regenerate(text: str, generated: Mapping[str, str], file: str) -> str:
    """`text` with every generated part replaced; each part must appear exactly once."""
    names = [m.group(2) for m in _BLOCK.finditer(text)]
    missing = sorted(set(generated) - set(names))
    repeated = sorted({n for n in names if names.count(n) > 1})
    unknown = sorted(set(names) - set(generated))
    if missing or repeated or unknown:
        raise input_error(file, f"generated parts missing {missing}, repeated {repeated}, unknown {unknown}")
    return _BLOCK.sub(lambda m: m.group(1) + generated[m.group(2)] + m.group(4), text)
