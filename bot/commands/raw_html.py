"""What the raw HTML in a comment hides from the text after it, as a browser reads GitHub's output.

GitHub passes a comment's raw HTML through (then sanitises it), so raw HTML can hide the
Markdown that follows it, across paragraphs:

- an element whose content is not shown as paragraph text (`HIDING`: `<details>`, `<code>`,
  `<script>`…) or that carries a `hidden` attribute, until its closing tag;
- an HTML comment, until `-->` in later raw HTML (rendered text escapes `>`, so only raw HTML
  can close it), e.g. a `<!--` in a block quote, which the quote's end cuts short in Markdown
  but not in the HTML;
- a tag, declaration or processing instruction left unterminated (`<div title='`): a browser
  reads what follows as its inside, so everything after it is taken as hidden.

`RawHtml` is fed each raw HTML chunk in document order and says whether text there is hidden.
Each chunk is scanned once, left to right (no backtracking).

`after_lone_tags` covers where parsers disagree: a line holding only a tag starts an HTML block
that runs to the next blank line, except as a paragraph's continuation. cmark-gfm (GitHub) starts
one where markdown-it-py sees a lazy continuation (`> a` then `</b>`), so the lines after any such
line, to the next blank one, are taken as raw HTML.
"""

from __future__ import annotations

import re

# Raw HTML elements whose content GitHub hides (collapsed, dropped) or shows as something other
# than paragraph text (code, links, struck text, form fields, embedded objects).
HIDING = frozenset(
    {
        "a", "code", "del", "details", "iframe", "kbd", "math", "noembed", "noframes", "noscript", "object",
        "plaintext", "pre", "s", "samp", "script", "select", "strike", "style", "svg", "table", "template",
        "textarea", "title", "tt", "xmp",
    }
)  # fmt: skip
_TAG_START = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
# A line that holds only a tag (loosely: `<` and a name first, `>` last), indented 0-3 spaces.
# cmark-gfm (CommonMark 0.29) reads a declaration only as `<!`, uppercase letters and a white space;
# any other `<!` is text there (markdown-it-py 0.31 takes any letter), so in `<!x <code>` and in
# `<!X<code>` GitHub hides the `<code>` rather than reading it as part of a declaration.
_DECLARATION = re.compile(r"<![A-Z]+\s")
_LONE_TAG = re.compile(r" {0,3}</?[A-Za-z][^\n]*>[ \t]*")
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)hidden(?:\s|=|/|$)", re.IGNORECASE)


class RawHtml:
    """The state raw HTML leaves a browser in: open hiding elements, an open comment, or lost."""

    def __init__(self) -> None:
        self.open_elements: list[str] = []
        self.in_comment = False
        # An unterminated tag or declaration: nothing after it can be trusted to show.
        self.lost = False

    @property
    def hiding(self) -> bool:
        return self.lost or self.in_comment or bool(self.open_elements)

    def feed(self, html: str) -> None:
        at = 0
        while at < len(html) and not self.lost:
            if self.in_comment:
                end = html.find("-->", at)
                if end < 0:
                    return
                self.in_comment, at = False, end + 3
            elif (start := html.find("<", at)) < 0:
                return
            elif html.startswith("<!--", start):
                self.in_comment, at = True, start + 4
            elif (tag := _TAG_START.match(html, start)) is not None:
                at = self._tag(html, tag)
            elif html.startswith(("<![CDATA[", "<?"), start) or _DECLARATION.match(html, start):
                at = self._past(html, html.find(">", start))  # CDATA, an instruction or a declaration
            elif html.startswith("<!", start):
                at = start + 2  # any other `<!` is text to GitHub's CommonMark
            else:
                at = start + 1

    def _tag(self, html: str, tag: re.Match[str]) -> int:
        end = _tag_end(html, tag.end())
        if end < 0:
            self.lost = True
            return len(html)
        closing, name, attributes = tag.group(1), tag.group(2).lower(), html[tag.end() : end]
        if closing:
            if name in self.open_elements:
                del self.open_elements[len(self.open_elements) - 1 - self.open_elements[::-1].index(name) :]
        elif not attributes.endswith("/") and (name in HIDING or _HIDDEN_ATTRIBUTE.search(attributes)):
            self.open_elements.append(name)
        return end + 1

    def _past(self, html: str, end: int) -> int:
        if end < 0:
            self.lost = True
            return len(html)
        return end + 1


def _tag_end(html: str, at: int) -> int:
    """The index of the `>` that ends a tag whose attributes start at `at` (quotes honoured), or -1."""
    while at < len(html):
        char = html[at]
        if char == ">":
            return at
        if char in "\"'":
            close = html.find(char, at + 1)
            if close < 0:
                return -1
            at = close
        at += 1
    return -1


def after_lone_tags(lines: list[str]) -> set[int]:
    """Indices of the lines that follow a lone-tag line, up to the next blank line (see the module)."""
    hidden: set[int] = set()
    inside = False
    for number, line in enumerate(lines):
        if not line.strip(" \t"):
            inside = False
        elif inside:
            hidden.add(number)
        elif _LONE_TAG.fullmatch(line):
            inside = True
    return hidden
