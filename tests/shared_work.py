"""Work the suite does once per process instead of once per test: reading a YAML file's text into
its validated model and its round-trip tree, writing a changed snapshot back into that text,
compiling a template, and building the command line's parser.

Hundreds of tests run `perfbot reconcile` in-process on the same few snapshots and templates; each
run parsed the snapshot with ruamel's pure-Python round-trip loader, emitted the proposed snapshot
with its pure-Python emitter, and compiled every template anew. Each result is keyed by everything
it is computed from, and sharing it hides no behaviour:

- a `Loaded` model is frozen, and is a function of the text and the model class; the file name
  (each test's sandbox has its own) only names the file in errors, and a text is parsed under the
  name it is first read by, so a refused text's error names the right file (errors are not kept);
- a round-trip tree is only read once parsed (`store_rewrite.save_text` writes into a copy; the
  store's unit tests check that the source tree is never touched), so each distinct text is
  parsed once;
- `save_text` is a function of the source text (its tree is parsed from it), the new model
  (frozen, so hashable) and its options, and returns an immutable string (a `Loaded` built by
  hand from a tree without its text is not shared);
- a compiled template is an immutable code object, built from the template's text, its names and
  the environment's syntax settings, and bound to each environment when a template is loaded;
- the command line's parser (`bot.cli.arguments.parser`, 3 ms to build, once per `main` call) takes
  no argument and is only read by `parse_args`, which builds a new namespace each time (argparse
  copies the defaults it appends to): one parser serves every in-process `main`.

Errors are never stored: a text that fails to parse or compile fails again each time.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Hashable
from typing import Any

import pytest
from jinja2 import Environment

from bot.cli import arguments
from bot.snapshot import store, store_rewrite
from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded


def share_parsed_trees_and_compiled_templates(patch: pytest.MonkeyPatch) -> None:
    """For one test: `patch` puts the shared versions in place, wherever a module of `bot` bound
    the original (`from bot.snapshot.store import parse_model` too), and takes them away after it."""
    for name in _bot_modules():
        module = sys.modules.get(name)
        if module is not None:
            for attribute, original, shared in _bindings(name, module):
                if getattr(module, attribute, None) is original:
                    patch.setattr(module, attribute, shared)
    patch.setattr(Environment, "compile", _COMPILE)


def _bot_modules() -> list[str]:
    """The names of `bot`'s imported modules, found again only when the number of modules changed
    (the scan of some thousand names before each test cost about a millisecond). A `bot` module
    imported as another is removed, at the same count, would only go unshared: nothing is hidden."""
    if _BOT_MODULES[0] != len(sys.modules):
        found = [name for name in list(sys.modules) if name == "bot" or name.startswith("bot.")]
        _BOT_MODULES[:] = [len(sys.modules), found]
    names: list[str] = _BOT_MODULES[1]
    return names


def _bindings(name: str, module: Any) -> list[tuple[str, Any, Any]]:
    """Where `module` binds an original of `_SHARED`: its namespace is read once (thousands of names
    in all), not before every test; a module imported anew is read anew."""
    known = _BINDINGS.get(name)
    if known is None or known[0] is not module:
        found = [
            (attribute, value, _SHARED[id(value)][1])
            for attribute, value in list(vars(module).items())
            if id(value) in _SHARED and _SHARED[id(value)][0] is value
        ]
        known = _BINDINGS[name] = (module, found)
    return known[1]


def _saved_once(save_text: Callable[..., str]) -> Callable[..., str]:
    saved: dict[Hashable, str] = {}

    def save_text_once(loaded: Loaded[Snapshot], *args: Any, **options: Any) -> str:
        if not loaded.text:  # a tree given without its text: the tree is the source, not a key
            return save_text(loaded, *args, **options)
        key = (loaded.text, args, tuple(sorted(options.items())))
        try:
            text = saved.get(key)
        except TypeError:  # a value that cannot be a key: nothing to share
            return save_text(loaded, *args, **options)
        if text is None:
            if len(saved) >= 256:
                saved.clear()
            text = saved[key] = save_text(loaded, *args, **options)
        return text

    return save_text_once


def _syntax(env: Environment) -> tuple[Any, ...]:
    """What the code jinja generates depends on, besides the template's text and names."""
    return (
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.optimized,
        env.autoescape,
        env.finalize,
        env.is_async,
        tuple(sorted(env.extensions)),
        frozenset(env.filters),
        frozenset(env.tests),
    )


def _compile_once(compile_: Callable[..., Any]) -> Callable[..., Any]:
    compiled: dict[tuple[Any, ...], Any] = {}

    def compile_once(
        env: Environment,
        source: Any,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        if raw or not isinstance(source, str):
            return compile_(env, source, name, filename, raw, defer_init)
        key = (source, name, filename, defer_init, _syntax(env))
        if key not in compiled:
            compiled[key] = compile_(env, source, name, filename, raw, defer_init)
        return compiled[key]

    return compile_once


def _by_text(parse: Callable[..., Any], rename: Callable[[Any, str], Any]) -> Callable[..., Any]:
    """`parse(text, file, *rest)` shared by text: what it builds does not depend on the file name,
    which only names the file in errors (`rename` puts it back in a result that carries it). A text
    is parsed under its own name, so a refused text's error names the right file; only what parsed
    is kept."""
    parsed: dict[tuple[Any, ...], Any] = {}

    def parse_by_text(text: str, file: str, *rest: Any) -> Any:
        key = (text, *rest)
        if key in parsed:
            return rename(parsed[key], file)
        result = parse(text, file, *rest)
        if len(parsed) >= 64:
            parsed.clear()
        parsed[key] = rename(result, "")
        return result

    return parse_by_text


_COMPILE = _compile_once(Environment.compile)
# How many modules were imported when `bot`'s were last listed, and their names (`_bot_modules`).
_BOT_MODULES: list[Any] = [-1, []]
# Each module of `bot` by name, with the attributes where it binds an original (see `_bindings`).
_BINDINGS: dict[str, tuple[Any, list[tuple[str, Any, Any]]]] = {}
# Each original, by id, with the shared version that stands in for it.
_SHARED: dict[int, tuple[Any, Any]] = {
    id(original): (original, shared)
    for original, shared in [
        (store.parse_tree, _by_text(store.parse_tree, lambda tree, _: tree)),
        (store.parse_model, _by_text(store.parse_model, lambda loaded, file: dataclasses.replace(loaded, file=file))),
        (store_rewrite.save_text, _saved_once(store_rewrite.save_text)),
        (arguments.parser, functools.cache(arguments.parser)),
    ]
}
