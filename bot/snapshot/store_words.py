"""YAML syntax errors in plain words: the parser's problem said as a person would fix it.

ruamel's parser names its problems in its own terms ("expected <block end>, but found '<block
mapping start>'"); `store.parse_tree` keeps the parser's place (file:line:col) and says the
problem with `plain`. A problem this table does not know keeps the parser's words, after a
plain first clause. Pure: strings in, a sentence out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from bot.untrusted import echo

# The named groups of the problem's match and of its context's.
Groups = dict[str, Any]


class Plain(NamedTuple):
    """A problem in plain words; `at_start` says the place to name is where the construct began
    (the parser's context mark: an opening quote or bracket), not where the parser gave up."""

    message: str
    at_start: bool = False


def _found(found: str) -> str:
    """What the parser found, as a person sees it in the file."""
    words = {
        "<block mapping start>": "a new key",
        "<block sequence start>": "a list item",
        "?": "a key",
        "-": "a list item",
        "<block end>": "the end of the block",
        "<stream end>": "the end of the file",
        "<document start>": "a new document",
        "<scalar>": "a value",
    }
    return words.get(found, echo(found))


def _indent(match: Groups) -> Plain:
    found = _found(match["found"])
    return Plain(
        f"{found} here does not line up with the lines above it: check this line's indentation (the "
        "keys of one mapping start in one column, as do the items of one list)"
    )


def _after_document(match: Groups) -> Plain:
    return Plain(
        f"{_found(match['found'])} after the file's top-level value ended: the top of the file is one "
        "mapping (key: value lines), so check this line's indentation and the lines above it"
    )


def _cannot_start(match: Groups) -> Plain:
    char = match["char"]
    if char == "\\t":
        return Plain("a tab character where YAML takes only spaces: replace it with spaces")
    return Plain(f"a value cannot start with {echo(char)}: put the value in quotes")


def _flow(match: Groups) -> Plain:
    opener, closer = ("[", "]") if match["kind"] == "sequence" else ("{", "}")
    return Plain(
        f"the {echo(opener)} opened here is not closed where it should be: a {echo(',')} or "
        f"{echo(closer)} is missing before {_found(match['found'])}",
        at_start=True,
    )


def _duplicate(match: Groups) -> Plain:
    return Plain(f"duplicate key {echo(match['key'])}: a key appears once in a mapping; keep one")


def _escape(match: Groups) -> Plain:
    escape = "\\" + match["char"]
    return Plain(
        f"{echo(escape)} is not an escape YAML knows in a double-quoted value: write the "
        "backslash twice, or use single quotes"
    )


# (the problem's pattern, the context's pattern or None for any, its words)
_Rule = tuple[re.Pattern[str], re.Pattern[str] | None, Callable[[Groups], Plain]]
_RULES: tuple[_Rule, ...] = (
    (re.compile(r"expected <block end>, but found '(?P<found>[^']*)'"), None, _indent),
    # ruamel writes what it found here as a tuple: "but found ('<scalar>',)".
    (re.compile(r"expected '?<document start>'?, but found \(?'(?P<found>[^']*)'"), None, _after_document),
    (
        re.compile(r"mapping values are not allowed here"),
        None,
        lambda _: Plain(
            "a ': ' inside a value starts a mapping where none may start: put the value in quotes, "
            "or check this line's indentation"
        ),
    ),
    (re.compile(r"found character '(?P<char>.*)' that cannot start any token"), None, _cannot_start),
    (
        re.compile(r"found unexpected end of stream"),
        re.compile(r"quoted scalar"),
        lambda _: Plain("the quoted value that starts here is never closed: its closing quote is missing", True),
    ),
    (
        re.compile(r"could not find expected ':'"),
        None,
        lambda _: Plain("a key without its ':' (or a value that runs onto the next line): add the ':'", True),
    ),
    (
        re.compile(r"expected ',' or '[\]}]', but got '(?P<found>[^']*)'"),
        re.compile(r"flow (?P<kind>sequence|mapping)"),
        _flow,
    ),
    (re.compile(r'found duplicate key "(?P<key>.*)" with value'), None, _duplicate),
    (re.compile(r"found unknown escape character '(?P<char>.*)'"), None, _escape),
    (
        re.compile(r"expected the node content, but found '(?P<char>[^']*)'"),
        None,
        lambda m: Plain(f"a value cannot start with {echo(m['char'])}: put the value in quotes"),
    ),
    (
        re.compile(r"expected a single document in the stream"),
        None,
        lambda _: Plain("a second YAML document ('---') starts here: the file holds one"),
    ),
    (
        re.compile(r"expected chomping or indentation indicators"),
        None,
        lambda _: Plain("a '|' or '>' is followed by something other than '-', '+', a digit or the line's end"),
    ),
)


def plain(context: str | None, problem: str | None) -> Plain:
    """The parser's `problem` (with its `context`, "while parsing a …") in plain words."""
    problem, context = (problem or "").replace("\n", " "), (context or "").replace("\n", " ")
    for pattern, wants, words in _RULES:
        found = pattern.search(f"{context} {problem}")
        within = wants.search(context) if wants is not None else None
        if found is None or (wants is not None and within is None):
            continue
        groups = {**found.groupdict(), **(within.groupdict() if within is not None else {})}
        return words(groups)
    said = " ".join(x for x in (context, problem) if x)
    return Plain(f"this is not valid YAML here (the parser says: {said})" if said else "this is not valid YAML")
