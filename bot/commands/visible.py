"""Which lines of a comment GitHub shows as paragraph text: the only lines that can be commands.

A comment is read as GitHub reads it, CommonMark plus GFM's tables and strikethrough, and a line
counts only when it *starts* as plain text of a paragraph that GitHub renders as `<p>`:

- not in a code block, fence, HTML block, block quote, list item, heading or table (header row
  or any row, as GFM finds tables, which is more often than markdown-it-py does). A tight list
  item is no `<p>` at all, and whether a list is tight is where parsers disagree most, so no
  list item counts;
- not inside an inline span that continues from an earlier line: a code span, image alt text,
  a link, emphasis, strikethrough, an HTML comment or tag;
- not after raw HTML that hides what follows it (`raw_html`): an element such as `<details>`,
  `<code>` or `<script>` not closed yet, an HTML comment not closed yet, an unterminated tag,
  or a line holding only a tag, which may open an HTML block up to the next blank line;
- not right after a block quote or list item (no blank line between): parsers disagree on
  where its lazy continuation ends.

How: each candidate line (one whose text starts with the prefix) gets a private-use sentinel
just before the prefix, the marked comment is parsed once, and a line counts when its sentinel
comes out in a top-level text token of a shown paragraph, directly followed by the prefix. The
sentinel is a letter-like character placed after the line's indentation and before `/`, so it
changes no block and no delimiter run: the marked comment parses like the comment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from bot.commands.raw_html import RawHtml, after_lone_tags

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _markdown() -> MarkdownIt:
    """The CommonMark reader, built on the first comment that may hold a command: most runs read none,
    and importing markdown-it compiles dozens of regular expressions."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


# Sentinels are private-use characters: U+E000, the line's index as hex digits U+E010-U+E01F,
# then U+E001. Any such character already in the comment is replaced (by another private-use
# character, so that it still parses as a letter) before sentinels go in, so none can be forged.
_OPEN, _CLOSE, _DIGIT0 = 0xE000, 0xE001, 0xE010
_PRIVATE = re.compile("[\ue000-\ue01f]")
_SENTINEL = re.compile("\ue000([\ue010-\ue01f]+)\ue001")
# A GFM table's delimiter row: cells of dashes, each optionally colon-aligned, between pipes.
_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


def starts_command(line: str, prefix: str) -> bool:
    """Whether a stripped line starts with the prefix as a word (`/perf`, `/perf help`, not `/perfect`)."""
    return line == prefix or line.startswith((prefix + " ", prefix + "\t"))


def paragraph_lines(body: str, prefix: str) -> list[tuple[int, str]]:
    """(line number from 1, stripped text) of each line GitHub shows as paragraph text starting with `prefix`."""
    if prefix not in body:
        return []
    # Normalised as markdown-it normalises its input (NUL reads as U+FFFD), so its tokens match these lines.
    lines = body.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd").split("\n")
    maybe_hidden = after_lone_tags(lines) | _maybe_table(lines)
    candidates = [
        number
        for number, line in enumerate(lines)
        if number not in maybe_hidden and starts_command(line.strip(), prefix)
    ]
    if not candidates:
        return []
    marked = _with_sentinels(lines, candidates, prefix)
    tokens = _markdown().parse(marked)
    shown = _shown_sentinels(tokens, prefix)
    maybe_lazy = _after_containers(tokens, lines)
    return [
        (number + 1, lines[number].strip())
        for index, number in enumerate(candidates)
        if index in shown and number not in maybe_lazy
    ]


def _sentinel(index: int) -> str:
    return chr(_OPEN) + "".join(chr(_DIGIT0 + int(d, 16)) for d in f"{index:x}") + chr(_CLOSE)


def _with_sentinels(lines: Sequence[str], candidates: Sequence[int], prefix: str) -> str:
    out = [_PRIVATE.sub("\uf8ff", line) for line in lines]
    for index, number in enumerate(candidates):
        line = out[number]
        at = line.index(prefix)  # the first non-blank text of a candidate line is the prefix
        out[number] = line[:at] + _sentinel(index) + line[at:]
    return "\n".join(out)


def _shown_sentinels(tokens: Sequence[Token], prefix: str) -> set[int]:
    """Indices of the candidates whose sentinel starts top-level text of a top-level paragraph."""
    shown: set[int] = set()
    raw = RawHtml()
    nested = 0  # block quotes and list items around the current token
    for index, token in enumerate(tokens):
        if token.type in ("blockquote_open", "list_item_open"):
            nested += 1
        elif token.type in ("blockquote_close", "list_item_close"):
            nested -= 1
        elif token.type == "html_block":
            raw.feed(token.content)
        elif token.type == "inline" and token.children is not None:
            parent = tokens[index - 1] if index else None
            paragraph = parent is not None and parent.type == "paragraph_open" and not parent.hidden
            shown |= _plain_sentinels(token.children, prefix, raw, paragraph and not nested)
    return shown


def _maybe_table(lines: Sequence[str]) -> set[int]:
    """Lines a GFM table may hold: before a delimiter row (the header), and after it to a blank line.

    markdown-it-py's tables are stricter than cmark-gfm's (`a` over `-|` is a table on GitHub),
    so any line that looks like a delimiter row with a pipe counts, whatever the cell counts.
    """
    hidden: set[int] = set()
    for number, line in enumerate(lines):
        if "|" in line and _DELIMITER_ROW.fullmatch(line):
            hidden.add(number - 1)
            after = number + 1
            while after < len(lines) and lines[after].strip(" \t"):
                hidden.add(after)
                after += 1
    return hidden


def _after_containers(tokens: Sequence[Token], lines: Sequence[str]) -> set[int]:
    """Lines after a block quote or list item, up to the next blank line: perhaps its lazy continuation.

    Parsers disagree on where such a container ends (cmark-gfm continues `> a` lazily past an
    indented `<pre>` line that markdown-it-py reads as code), so none of those lines counts.
    """
    hidden: set[int] = set()
    for token in tokens:
        if token.type in ("blockquote_open", "list_item_open") and token.map is not None:
            number = token.map[1]
            if not lines[number - 1].strip(" \t"):
                continue  # the container ends at a blank line: nothing after it continues it
            while number < len(lines) and lines[number].strip(" \t") and number not in hidden:
                hidden.add(number)
                number += 1
    return hidden


def _plain_sentinels(children: Sequence[Token], prefix: str, raw: RawHtml, counts: bool) -> set[int]:
    """Sentinels in top-level text that raw HTML does not hide; inline HTML is fed to `raw` either way."""
    found: set[int] = set()
    for child in children:
        if child.type == "html_inline":
            raw.feed(child.content)
        elif counts and child.type == "text" and child.level == 0 and not raw.hiding:
            for match in _SENTINEL.finditer(child.content):
                if child.content.startswith(prefix, match.end()):
                    found.add(int("".join(f"{ord(c) - _DIGIT0:x}" for c in match.group(1)), 16))
    return found
