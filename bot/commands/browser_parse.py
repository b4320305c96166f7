"""Where, in cmark-gfm's HTML, a line of top-level paragraph text starts, as a browser builds the page.

A line starts right after a paragraph's `<p data-sourcepos="…">` (the paragraph cmark-gfm wrote,
raw HTML cannot forge the attribute: `reading` spells it otherwise in a comment) or after a
`<br />` and its line break inside it. It is a line of top-level paragraph text when the browser
would put its text straight into that paragraph, and the paragraph straight into the page:

- no element is open around the paragraph (a quote, a list, a table, a footnote, `<details>`,
  any raw HTML element) and none is open inside it at the line (`<span>`, `<b>`, `<del>`, a link);
- no comment, tag or raw-text element (`<noscript>`…) swallows it, as HTML's tokenizer reads
  them: a comment ends at `-->` or `--!>`, `<!…>` and `<?…>` at the first `>`, a tag at the
  first `>` outside its quoted attribute values, and one left open swallows everything after;
- the browser's repairs are followed where they hide text: a formatting element (`<b>`, `<a>`…)
  still open when its paragraph ends is reopened in the next text; a block element (`<div>`…)
  opened inside a paragraph ends it; an end tag closes what is open inside its element.

Where the browser's repairs are harder than that (an end tag across a block element, the
adoption of a formatting element by a block, foreign content's breakouts), the element is kept
open: text is taken as hidden, never as shown. One pass, left to right, no backtracking.
Runs of markup that change nothing once they end (a list of items holding text, headings, a
quote's paragraphs, links, emphasis, paragraphs with no marked line, comments, void elements,
cmark-gfm's own markup) are passed over in one regex match (`_passing`) instead of a Python step
per tag: the same line starts, found faster. What is left is read a step at a time, at most
`STEPS` of them: a comment that needs more (raw HTML that is one long repair for the browser,
thousands of stray tags) is not read past that point, and `line_starts` says so (`UNREAD`), so
that no comment costs more than `STEPS` Python steps and none is silently misread.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterator
from functools import cache

# How `Page` names a paragraph cmark-gfm wrote (no tag name holds a space), beside raw HTML's `p`.
PARAGRAPH = "p (cmark-gfm's)"
# HTML's formatting elements (reopened by the browser), void elements (never open), elements that
# close an open paragraph, the boundaries of a paragraph's "button scope", and special elements
# (an end tag for another element does not close past one).
FORMATTING = frozenset(
    {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"}
)
VOID = frozenset(
    {
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input", "keygen", "link",
        "meta", "param", "source", "track", "wbr",
    }
)  # fmt: skip
CLOSES_PARAGRAPH = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "dd", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
        "hr", "li", "listing", "main", "menu", "nav", "ol", "p", "plaintext", "pre", "search", "section", "summary",
        "table", "ul", "xmp",
    }
)  # fmt: skip
SCOPE = frozenset({"applet", "button", "caption", "html", "marquee", "object", "table", "td", "template", "th"})
SPECIAL = CLOSES_PARAGRAPH | SCOPE | {PARAGRAPH} | frozenset(
    {
        "area", "base", "basefont", "bgsound", "body", "br", "col", "colgroup", "embed", "frame", "frameset", "head",
        "iframe", "img", "input", "keygen", "link", "meta", "noembed", "noframes", "noscript", "param", "script",
        "select", "source", "style", "tbody", "textarea", "tfoot", "thead", "title", "tr", "track", "wbr",
    }
)  # fmt: skip
# Start tags the browser drops in the body, and those it drops outside a table; elements that end
# the formatting elements opened inside them (a "marker" in HTML's list of them).
DROPPED = frozenset({"body", "frame", "frameset", "head", "html"})
TABLE_PARTS = frozenset({"caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"})
MARKERS = frozenset({"applet", "caption", "marquee", "object", "td", "template", "th"})
# Elements whose content HTML reads as text up to their end tag, and those after which nothing is read.
RAW_TEXT = frozenset({"iframe", "noembed", "noframes", "noscript", "style", "textarea", "title", "xmp"})
ENDLESS = frozenset({"plaintext", "script"})
FOREIGN = frozenset({"svg", "math"})

# The first character of the mark `reading` puts at each candidate line.
MARKED = "\ue000"
_PARAGRAPH = re.compile(r'<p data-sourcepos="[0-9]+:[0-9]+-[0-9]+:[0-9]+">')
# A start or end tag with no attribute, in lower case, as cmark-gfm writes its own: read at once.
_PLAIN_TAG = re.compile(r"<(/?)([a-z][a-z0-9]*)>")
_BREAK = "<br />\n"
# What reading may pass over at once: text, and a `<br />` and its line break before a line that
# starts without a mark (`\ue000`, what `reading` puts at a candidate line).
_NEXT = re.compile("<(?!br />\n(?!\ue000))")
# When nothing waits to reopen and no `<select>` is open, also whole elements that change nothing
# on the page once they end (`_passing`): one regex match over a list, a heading, a quote, code,
# links and emphasis, however many, instead of a step per tag.
# Each name of an alternation is tried in turn at each tag: cmark-gfm's own come first.
INLINE: tuple[str, ...] = (
    "em", "strong", "code", "del", "b", "i", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike",
    "sub", "sup", "tt", "u", "var",
)  # fmt: skip
BLOCKS: tuple[str, ...] = (
    "li", "ul", "ol", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "div", "dd", "dl", "dt",
)  # fmt: skip
ROWS: tuple[str, ...] = ("caption", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr")
PASSED_DEPTH = 3  # elements nested in one passed over, itself included
_NAME = re.compile(r"[^\t\n\f\r />]*")
_GROUPS = itertools.count()  # names of the groups of `_passing`'s patterns
# One step through a tag's attributes, as HTML's tokenizer reads them: spaces (and a `/` not
# before `>`), then the tag's end, or a name (which may start with `=`) and perhaps `=` and a
# value: quoted, a quote never closed (group 3), or unquoted.
_ATTRIBUTE = re.compile(
    r"([\t\n\f\r /]*)(?:(>)|[^\t\n\f\r />][^\t\n\f\r /=>]*"
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"[^"]*"|'[^']*'|(["'])|[^\t\n\f\r >]*))?)?"""
)
_COMMENT_END = re.compile(r"--!?>")
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # HTML lowers ASCII letters only


def _matched(pattern: re.Pattern[str], html: str, at: int) -> re.Match[str]:
    """`pattern`'s match at `at`: each pattern given here also matches the empty string."""
    return next(pattern.finditer(html, at))


def tag_end(html: str, at: int) -> tuple[int, bool]:
    """Past the `>` that ends a tag whose attributes start at `at` (-1 if none does), and whether
    the tag closed itself (`/>`)."""
    while True:
        step = _matched(_ATTRIBUTE, html, at)
        if step.group(2):
            return step.end(), step.group(1).endswith("/")
        if step.group(3) or step.end() == at:
            return -1, False  # a quote never closed, or the text's end
        at = step.end()


# The most elements a page may hold open, and formatting elements to reopen, for perfbot to read
# on: a deeper page is not read past that point (nothing after it is shown), so that no step of
# the reading costs more than a walk of so many elements. The adoption agency's own bound.
DEEPEST = 64
ADOPTIONS = 8
# The most markup read a step at a time before the last candidate line (about 2 ms of Python);
# `UNREAD` is yielded where reading stopped at this bound or at `DEEPEST`.
STEPS = 1024
UNREAD = -1


class Page:
    """The browser's open elements while reading, and the formatting elements it will reopen."""

    def __init__(self) -> None:
        self.open: list[str] = []
        self.reopen: list[str] = []  # formatting elements closed by another's end, still active

    @property
    def lost(self) -> bool:
        """Nested deeper than perfbot reads (`DEEPEST`)."""
        return len(self.open) > DEEPEST or len(self.reopen) > DEEPEST

    @property
    def at_top(self) -> bool:
        """Whether text here goes straight into a paragraph cmark-gfm wrote, straight in the page."""
        return self.open == [PARAGRAPH] and not self.reopen

    @property
    def foreign(self) -> bool:
        return "svg" in self.open or "math" in self.open

    def next_markup(self, html: str, at: int) -> int:
        """The next `<` from `at` whose reading can change what shows (-1 if none); text passed
        over is put in."""
        if not self.reopen and "select" not in self.open and len(self.open) + PASSED_DEPTH <= DEEPEST:
            paragraph = "p" in self.open or PARAGRAPH in self.open
            at = _matched(_passing(paragraph, "a" in self.open, "table" in self.open), html, at).end()
            return at if at < len(html) else -1
        found = _NEXT.search(html, at)
        if found is None:
            return -1
        if found.start() > at:
            self.text()
        return found.start()

    def text(self) -> None:
        """Text is put in: the formatting elements to reopen are opened around it (not inside a
        table cell or another marker, where the browser reopens only those closed inside it:
        those stay to reopen, hidden)."""
        if self.reopen and MARKERS.isdisjoint(self.open):
            self.open += self.reopen
            self.reopen = []

    def start(self, name: str, closed: bool) -> None:
        if name in DROPPED or "select" in self.open or (name in TABLE_PARTS and "table" not in self.open):
            return  # inside a `<select>`, the browser drops every tag but the select's end
        if name == "a" and ("a" in self.open or "a" in self.reopen):
            self._end_link()
        if name in CLOSES_PARAGRAPH or name == PARAGRAPH:
            self._close(("p", PARAGRAPH), SCOPE)
        else:
            self.text()
        if name not in VOID and not (closed and (name in FOREIGN or self.foreign)):
            self.open.append(name)

    def end(self, name: str) -> None:
        """An end tag: a formatting or block element closes across special elements (not out of
        a scope's boundary), any other element only up to the nearest special element."""
        if "select" in self.open and name != "select":
            return
        if name == "form" and name in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(name)]  # alone: what it holds stays open
            return
        names = ("p", PARAGRAPH) if name == "p" else (name,)
        if not self._close(names, _barrier(name)) and name in self.reopen:
            self.reopen.remove(name)

    def _end_link(self) -> None:
        """A link opened in a link: the browser ends the open one first, wherever it is."""
        self.end("a")
        if "a" in self.reopen:
            self.reopen.remove("a")
        if "a" in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index("a")]

    def _close(self, names: tuple[str, ...], barrier: frozenset[str]) -> bool:
        """Closes the innermost open element of `names`, unless a `barrier` element is open inside it."""
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index] in names:
                if index == len(self.open) - 1:
                    self.open.pop()  # the innermost element: nothing inside it to close or reopen
                elif names[0] in FORMATTING:
                    self._adopt(index)
                else:
                    self._pop_to(index)
                return True
            if self.open[index] in barrier:
                break
        return False

    def _adopt(self, index: int) -> None:
        """Closes the formatting element at `index` as the browser's adoption agency does, in short:
        the first special element open inside it is moved out of it with what it holds (its content
        wrapped in a copy of the element), and the elements between them that are not formatting
        are left; then the element, now inside that one, closes as usual."""
        name = self.open[index]
        for _ in range(ADOPTIONS):
            block = next((i for i in range(index + 1, len(self.open)) if self.open[i] in SPECIAL), 0)
            if not block:
                self._pop_to(index)
                return
            kept = [element for element in self.open[index + 1 : block] if element in FORMATTING]
            self.open = [*self.open[:index], *kept, self.open[block], name, *self.open[block + 1 :]]
            index += len(kept) + 1
        # Past the browser's bound the element stays open: its text is taken as hidden.

    def _pop_to(self, index: int) -> None:
        """Closes `open[index]` and what is open inside it; formatting elements inside stay active,
        but for those inside a marker (a table cell)."""
        closed = self.open[index:]
        del self.open[index:]
        markers = [at for at, name in enumerate(closed) if name in MARKERS]
        inside = closed[1 : markers[-1]] if markers else closed[1:]
        self.reopen = [name for name in inside if name in FORMATTING] + self.reopen


@cache
def _passing(paragraph: bool, link: bool, table: bool) -> re.Pattern[str]:
    """What `Page` may pass over at once, nothing waiting to reopen and no `<select>` open: text,
    unmarked breaks, void elements, and whole elements whose start and end, in `Page`, undo each
    other. With a paragraph open, those are inline elements, and table parts in a table (a block
    element would close it; a table part outside a table is dropped, its end tag too); outside one,
    blocks and rules too; a link where no link is open (one in a link ends the other). Only tags
    in lower case with no attribute or double-quoted values are taken (as cmark-gfm writes its
    own), and only end tags written `</name>`: anything else is read a step at a time."""
    top = [_UNMARKED_BREAK, *_elements(PASSED_DEPTH, paragraph, link, inner=False, rows=table), _VOIDS, _COMMENTS]
    if not paragraph:  # the most frequent first: each alternative is tried in turn at each tag
        top = [_unmarked_paragraph(link, table), *top, _RULE]
    return re.compile(_any_of(top))


def _unmarked_paragraph(link: bool, table: bool) -> str:
    """A paragraph cmark-gfm wrote, outside any other, none of whose lines starts with a mark:
    its lines start no line `line_starts` reports, and its start and end undo each other."""
    held = [_UNMARKED_BREAK, _VOIDS, _COMMENTS, *_elements(PASSED_DEPTH - 1, True, link, inner=True, rows=table)]
    return f'<p data-sourcepos="[^"]*">(?!\ue000){_any_of(held)}</p>'


def _any_of(markup: list[str]) -> str:
    """Any number of runs of text and of `markup` (patterns that each start with `<` but not
    `</`), taken as many as match and never given back: atomic groups, so a match that fails is
    never tried again cut otherwise (possessive repeats of groups that capture are wrong in
    Python 3.11's `re`). At an end tag the run stops at once, no pattern of `markup` tried."""
    return f"(?>(?:{_TEXT}|(?!</)(?:{'|'.join(markup)}))*)"


_TEXT = "(?>[^<]+)"
_UNMARKED_BREAK = "<br />\n(?!\ue000)"  # cmark-gfm's break before a line that starts without a mark
_ATTRIBUTES = r'(?>(?: [a-z][a-z-]*="[^"]*")*)'
# Void elements but `<hr>` (which ends a paragraph), never just before a marked line's start.
_VOID_NAMES = "|".join(sorted(VOID - {"hr"}, key=len, reverse=True))
_VOIDS = f"<(?:{_VOID_NAMES}){_ATTRIBUTES}(?: ?/)?>(?!\n\ue000)"
# A comment (ended as `_comment_end` ends it) and a bogus comment (`<?…>`, `<!…>` but `<![`).
_COMMENTS = "<!--(?:-?>|(?s:.*?)--!?>)|<(?:[?]|!(?!--|\\[))[^>]*>"
_BREAKS = f"<br{_ATTRIBUTES}(?: /)?>\n?"  # a break inside an element passed over starts no line at the top
_RULE = f"<hr{_ATTRIBUTES}(?: /)?>"


def _elements(depth: int, paragraph: bool, link: bool, inner: bool, rows: bool = True) -> list[str]:
    """Patterns of the elements `_passing` takes, each with what it holds, `depth` levels deep.
    A paragraph is never passed over at the top (its lines may start lines), only inside another;
    table parts at the top only inside a table (outside one the browser drops their tags, and
    what they hold is where they are)."""
    names = (() if paragraph else BLOCKS) + INLINE + (ROWS if rows else ())
    found = [_element("|".join(names), depth, paragraph, link)]
    if not link:
        found.append(_element("a", depth, paragraph, True))
    if inner and not paragraph:
        found.insert(0, _element("p", depth, True, link))  # what a quote or a loose item holds most
    return found


def _element(names: str, depth: int, paragraph: bool, link: bool) -> str:
    """A start tag of one of `names`, what it holds, and its end tag."""
    held = [_BREAKS, _VOIDS, *(() if paragraph else (_RULE,))]
    if depth > 1:
        held += _elements(depth - 1, paragraph, link, inner=True)
    if "|" not in names:  # one name: its end tag is known, and a group would slow every step of the match
        return f"<{names}{_ATTRIBUTES}>{_any_of(held)}</{names}>"
    group = f"e{next(_GROUPS)}"
    return f"<(?P<{group}>{names}){_ATTRIBUTES}>{_any_of(held)}</(?P={group})>"


def _barrier(name: str) -> frozenset[str]:
    """What an end tag does not close across: a scope's boundary for a formatting or block
    element (a list too for a list item), else any special element."""
    if name == "li":
        return SCOPE | {"ol", "ul"}
    return SCOPE if name in FORMATTING or name in CLOSES_PARAGRAPH else SPECIAL


def line_starts(html: str, until: int) -> Iterator[int]:
    """Each index of `html`, up to `until`, where a line of top-level paragraph text starts with
    a mark (`MARKED`), then `UNREAD` if reading stopped at one of its bounds before `until`."""
    page, at = Page(), 0
    for _ in range(STEPS):
        if at >= until or (lt := page.next_markup(html, at)) < 0:
            return
        if html.startswith("<p ", lt) and (paragraph := _PARAGRAPH.match(html, lt)) is not None:
            page.start(PARAGRAPH, False)
            at = paragraph.end()
            if page.at_top and html.startswith(MARKED, at):
                yield at
            continue
        if html.startswith(_BREAK, lt):
            page.start("br", True)
            at = lt + len(_BREAK) - 1
            if page.at_top and html.startswith(MARKED, at + 1):
                yield at + 1
            continue
        plain = _PLAIN_TAG.match(html, lt)
        if plain is not None and plain.group(2) not in RAW_TEXT and plain.group(2) not in ENDLESS:
            if plain.group(1):
                page.end(plain.group(2))
            else:
                page.start(plain.group(2), False)
            at = plain.end()
        else:
            at = _markup(html, lt, page)
        if at < 0:
            return  # a comment, tag or raw text that never ends: nothing after is shown
        if page.lost:
            break
    if at < until:
        yield UNREAD


def _markup(html: str, lt: int, page: Page) -> int:
    """Reads the markup at `html[lt]` (a `<`) into `page`; where reading goes on, or -1."""
    after = html[lt + 1 : lt + 2]
    if after.isascii() and after.isalpha():
        return _start_tag(html, lt, page)
    if after == "/":
        return _end_tag(html, lt, page)
    if html.startswith("<!--", lt):
        return _comment_end(html, lt + 4)
    if html.startswith("<![CDATA[", lt) and page.foreign:
        end = html.find("]]>", lt)
        return -1 if end < 0 else end + 3
    if after in ("!", "?"):
        return _bogus_comment(html, lt)
    page.text()
    return lt + 1  # a `<` that starts no markup is text


def _comment_end(html: str, at: int) -> int:
    """Past the end of a comment whose text starts at `at`: `<!-->` and `<!--->` end at once."""
    if html.startswith((">", "->"), at):
        return html.index(">", at) + 1
    end = _COMMENT_END.search(html, at)
    return -1 if end is None else end.end()


def _bogus_comment(html: str, at: int) -> int:
    end = html.find(">", at)
    return -1 if end < 0 else end + 1


def _start_tag(html: str, lt: int, page: Page) -> int:
    name_end = _matched(_NAME, html, lt + 1).end()
    name = html[lt + 1 : name_end].translate(_LOWER)
    end, closed = tag_end(html, name_end)
    if end < 0 or name in ENDLESS:
        return -1
    page.start(name, closed)
    if name in RAW_TEXT and not page.foreign:
        close = re.compile(f"</{name}[\t\n\f\r />]", re.IGNORECASE).search(html, end)
        return -1 if close is None else _end_tag(html, close.start(), page)
    return end


def _end_tag(html: str, lt: int, page: Page) -> int:
    after = html[lt + 2 : lt + 3]
    if after == ">":
        return lt + 3  # `</>` is dropped
    if not after:
        page.text()
        return lt + 2
    if not (after.isascii() and after.isalpha()):
        return _bogus_comment(html, lt)
    name_end = _matched(_NAME, html, lt + 2).end()
    end, _ = tag_end(html, name_end)
    if end >= 0:
        page.end(html[lt + 2 : name_end].translate(_LOWER))
    return end
