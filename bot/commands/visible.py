"""Which lines of a comment GitHub shows as paragraph text: the only lines that can be commands.

A comment is read as GitHub reads it, CommonMark plus GFM's tables and strikethrough, and a line
counts only when it *starts* as plain text of a paragraph that GitHub renders as `<p>`:

- not in a code block, fence, HTML block, block quote, heading, table (header row or any row)
  or tight list item (GitHub renders its paragraph without `<p>`);
- not inside an inline span that continues from an earlier line: a code span, image alt text,
  a link, emphasis, strikethrough, an HTML comment or tag;
- not inside a raw HTML element that hides or restyles its content (`<details>`, `<code>`,
  `<del>`, `<script>`…), whether an HTML block or an inline tag opened it.

How: each candidate line (one whose text starts with the prefix) gets a private-use sentinel
just before the prefix, the marked comment is parsed once, and a line counts when its sentinel
comes out in a top-level text token of a shown paragraph, directly followed by the prefix. The
sentinel is a letter-like character placed after the line's indentation and before `/`, so it
changes no block and no delimiter run: the marked comment parses like the comment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])

# Sentinels are private-use characters: U+E000, the line's index as hex digits U+E010-U+E01F,
# then U+E001. Any such character already in the comment is replaced (by another private-use
# character, so that it still parses as a letter) before sentinels go in, so none can be forged.
_OPEN, _CLOSE, _DIGIT0 = 0xE000, 0xE001, 0xE010
_PRIVATE = re.compile("[\ue000-\ue01f]")
_SENTINEL = re.compile("\ue000([\ue010-\ue01f]+)\ue001")

# Raw HTML elements whose content GitHub hides (collapsed, dropped) or shows as something other
# than paragraph text (code, links, struck text, form fields, embedded objects).
HIDING = frozenset(
    {
        "a", "code", "del", "details", "iframe", "kbd", "math", "noembed", "noframes", "noscript", "object",
        "plaintext", "pre", "s", "samp", "script", "select", "strike", "style", "svg", "table", "template",
        "textarea", "title", "tt", "xmp",
    }
)  # fmt: skip
# A tag: no `<` or `>` inside, so a failed match never rescans text beyond the next `<`.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)


def starts_command(line: str, prefix: str) -> bool:
    """Whether a stripped line starts with the prefix as a word (`/perf`, `/perf help`, not `/perfect`)."""
    return line == prefix or line.startswith((prefix + " ", prefix + "\t"))


def paragraph_lines(body: str, prefix: str) -> list[tuple[int, str]]:
    """(line number from 1, stripped text) of each line GitHub shows as paragraph text starting with `prefix`."""
    if prefix not in body:
        return []
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    candidates = [number for number, line in enumerate(lines) if starts_command(line.strip(), prefix)]
    if not candidates:
        return []
    marked = _with_sentinels(lines, candidates, prefix)
    shown = _shown_sentinels(_MARKDOWN.parse(marked), prefix)
    return [(number + 1, lines[number].strip()) for index, number in enumerate(candidates) if index in shown]


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
    """Indices of the candidates whose sentinel starts top-level text of a shown paragraph."""
    shown: set[int] = set()
    open_elements: list[str] = []  # hiding elements opened by raw HTML and not closed yet
    quoted = 0
    for index, token in enumerate(tokens):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        elif token.type == "html_block":
            _track_html(open_elements, token.content)
        elif token.type == "inline" and token.children is not None:
            parent = tokens[index - 1] if index else None
            paragraph = parent is not None and parent.type == "paragraph_open" and not parent.hidden
            shown |= _plain_sentinels(token.children, prefix, open_elements, paragraph and not quoted)
    return shown


def _plain_sentinels(children: Sequence[Token], prefix: str, open_elements: list[str], counts: bool) -> set[int]:
    """Sentinels in top-level text while no hiding element is open; inline HTML is tracked either way."""
    found: set[int] = set()
    for child in children:
        if child.type == "html_inline":
            _track_html(open_elements, child.content)
        elif counts and child.type == "text" and child.level == 0 and not open_elements:
            for match in _SENTINEL.finditer(child.content):
                if child.content.startswith(prefix, match.end()):
                    found.add(int("".join(f"{ord(c) - _DIGIT0:x}" for c in match.group(1)), 16))
    return found


def _track_html(open_elements: list[str], html: str) -> None:
    """Open and close hiding elements as raw HTML does (comments and other tags change nothing)."""
    for match in _TAG.finditer(_HTML_COMMENT.sub("", html)):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3).endswith("/")
        if name not in HIDING:
            continue
        if not closing:
            if not self_closing:
                open_elements.append(name)
        elif name in open_elements:
            del open_elements[len(open_elements) - 1 - open_elements[::-1].index(name) :]
