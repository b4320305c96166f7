"""The command prefix, read from the config text without a YAML library (`bot/github/quiet.py`).

It answers only when the config writes the prefix plainly: one top-level `commands:` block,
holding one `prefix:` line whose value is a plain `/word` on that line alone. Anything else
(quotes, flow style, a value continued on the next line, a second block or key, a missing key
whose default applies) gives None, "unknown", and the caller does a full run, which reads the
config with the real loader. So it never names a prefix other than the one the real loader
reads; a config the real loader refuses for another reason is reported by the next full run.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"commands:[ \t]*(?:#.*)?")
_PREFIX = re.compile(r"( +)prefix:[ \t]+(/[A-Za-z0-9_./-]*)[ \t]*(?:[ \t]#.*)?")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str]) -> list[str] | None:
    """The lines of the one top-level `commands:` block, or None."""
    starts = [n for n, line in enumerate(lines) if _BLOCK.fullmatch(line)]
    if len(starts) != 1 or any(
        line.startswith(("commands ", "commands\t", '"commands', "'commands")) for line in lines
    ):
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
    if "\t" in config_text or "\r" in config_text or any(line.startswith(("%", "---", "...")) for line in lines):
        return None  # directives and document markers: the real loader's business
    body = _block(lines)
    if body is None:
        return None
    keyed = [n for n, line in enumerate(body) if line.lstrip(" ").startswith(("prefix", "'prefix", '"prefix'))]
    anywhere = [line for line in lines if line.lstrip(" ").startswith(("prefix", "'prefix", '"prefix'))]
    if len(keyed) != 1 or len(anywhere) != 1:
        return None
    found = _PREFIX.fullmatch(body[keyed[0]])
    children = {_indent(line) for line in body if line.strip() and not line.lstrip().startswith("#")}
    if found is None or children != {len(found.group(1))}:
        return None  # a deeper line may continue the value, or the block is not one plain mapping
    return found.group(2)
