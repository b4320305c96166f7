"""The command prefix, read from the config text without a YAML library (`bot/github/quiet.py`).

It answers only when the whole config is plain: every line is blank, a comment, or one `key:`
(a block's start) or `key: value` whose value ends on that line (plain, or quoted and closed
there; no flow collection, block scalar, anchor, alias, tag or complex key), so no line can be
part of another line's value. Then the one top-level `commands:` block must hold one `prefix:`
line whose value is a plain `/word`, at the block's only indentation. Anything else (a second
`commands` block, a value continued on the next line, a missing key whose default applies) gives
None, "unknown", and the caller does a full run, which reads the config with the real loader.
So it never names a prefix other than the one the real loader reads; a config the real loader
refuses for another reason is reported by the next full run. `prefix:` keys of other blocks
(`labels.prefix`) are other settings and do not count.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"commands:(?:[ \t]+#.*)?[ \t]*")
_PREFIX = re.compile(r"( +)prefix:[ \t]+(/[A-Za-z0-9_./-]*)[ \t]*(?:[ \t]#.*)?")
# A value that ends on its line: plain (not starting with a YAML indicator), or quoted and closed.
_VALUE = r"""(?:[^-?:,\[\]{}#&*!|>'"%@`\s][^\n]*|-[^\s\n][^\n]*|'(?:[^'\n]|'')*'|"(?:[^"\\\n]|\\.)*")"""
_COMMENT = r"(?:[ \t]+#[^\n]*)?"
_PLAIN_LINE = re.compile(
    rf"[ \t]*(?:#[^\n]*)?|( *)[A-Za-z_][A-Za-z0-9_-]*:(?:{_COMMENT}|[ \t]+{_VALUE}{_COMMENT})[ \t]*"
)
# Line breaks a YAML reader may see that `str.split("\n")` does not, and the byte-order mark.
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029", "\ufeff", "\t")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _plain(lines: list[str]) -> bool:
    """Every line blank, a comment, or a key with a value that ends on the line; no directives."""
    if any(line.startswith(("%", "---", "...")) for line in lines):
        return False  # directives and document markers: the real loader's business
    return all(_PLAIN_LINE.fullmatch(line) for line in lines)


def _block(lines: list[str]) -> list[str] | None:
    """The lines of the one top-level `commands:` block, or None."""
    starts = [n for n, line in enumerate(lines) if _BLOCK.fullmatch(line)]
    if len(starts) != 1:
        return None
    body: list[str] = []
    for line in lines[starts[0] + 1 :]:
        if line.strip() and not line.startswith((" ", "#")):
            break
        body.append(line)
    return body


def plain_prefix(config_text: str) -> str | None:
    """The configured command prefix when the config writes it plainly; else None."""
    lines = config_text.split("\n")
    if any(mark in config_text for mark in _OTHER_BREAKS) or not _plain(lines):
        return None
    body = _block(lines)
    if body is None:
        return None
    keyed = [n for n, line in enumerate(body) if line.lstrip(" ").startswith("prefix")]
    if len(keyed) != 1:
        return None
    found = _PREFIX.fullmatch(body[keyed[0]])
    children = {_indent(line) for line in body if line.strip() and not line.lstrip().startswith("#")}
    if found is None or children != {len(found.group(1))}:
        return None  # a deeper line may continue the value, or the block is not one plain mapping
    return found.group(2)
