"""Only a line GitHub shows as paragraph text is a command: checked against cmark-gfm's HTML.

Every case is run twice: through perfbot's reader (markdown-it-py) and through cmark-gfm, the
parser GitHub renders comments with, so a case that perfbot refuses is one GitHub hides too,
and the property says the other half: a line perfbot accepts is a visible line of a `<p>`.
"""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands.reading import command_lines
from tests.property_budget import examples

P = "/perf"
# GitHub renders a comment's line breaks as breaks, so each source line of a paragraph is a line of the page.
GITHUB = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS
# Elements whose text a reader does not see as paragraph text (hidden, code, or dropped by GitHub).
UNSEEN = frozenset(
    {"code", "pre", "script", "style", "textarea", "title", "template", "noscript", "iframe", "object", "details"}
)
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class _ParagraphLines(HTMLParser):
    """The visible lines of every `<p>`: text split at `<br>`, with `\\0` where something unseen sits."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.lines: list[str] = []
        self.current: list[str] | None = None

    def _in_paragraph(self) -> bool:
        return "p" in self.stack

    def _unseen(self) -> bool:
        return any(tag in UNSEEN for tag in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self._flush()
            self.current = []
        elif tag in ("br", "img") and self.current is not None:
            if tag == "br" and not self._unseen():
                self._flush()
                self.current = []
            else:
                self.current.append("\0")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag) :]
        if tag == "p":
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.current is not None and self._in_paragraph():
            self.current.append("\0" if self._unseen() else data)

    def _flush(self) -> None:
        if self.current is not None:
            self.lines.append("".join(self.current).strip(" \n\t"))
        self.current = None


def visible_paragraph_lines(body: str) -> list[str]:
    html = str(cmarkgfm.github_flavored_markdown_to_html(body, options=GITHUB))
    if html.rfind("<!--") > html.rfind("-->"):
        html += "-->"  # a browser ends an unterminated comment at the end; HTMLParser would show it as text
    reader = _ParagraphLines()
    reader.feed(html)
    reader.close()
    reader._flush()
    return reader.lines


def github_shows(body: str, text: str) -> bool:
    """Whether some line of a `<p>` in GitHub's rendering starts with `text` as visible text."""
    return any(line.startswith(text) for line in visible_paragraph_lines(body))


HIDDEN = [
    pytest.param("![alt\n/perf help\nmore](x.png)", id="image alt text"),
    pytest.param("![alt\n/perf help\nmore][x]\n\n[x]: /x.png", id="reference image alt text"),
    pytest.param("`x\n/perf help\n`", id="multi-line inline code span"),
    pytest.param("``\n/perf help\n``", id="code span opened on the line before"),
    pytest.param("/perf help | x\n---|---", id="GFM table header row"),
    pytest.param("| /perf help |\n|---|", id="table header row with pipes"),
    pytest.param("a | b\n-|-\n/perf help", id="table body row without a pipe"),
    pytest.param("a | b\n-|-\n/perf help | x", id="table body row"),
    pytest.param("/perf help\n--- |", id="one-column table header row"),
    pytest.param("/perf help\n-|", id="one-column table header row, short delimiter"),
    pytest.param("/perf help\n===", id="setext heading"),
    pytest.param("/perf help\n---", id="setext heading with dashes"),
    pytest.param("- a\n  /perf help", id="tight list item"),
    pytest.param("x <code>\n/perf help\n</code>", id="inline HTML code"),
    pytest.param("x <details>\n/perf help\n</details>", id="inline details"),
    pytest.param("<details>\n\n/perf help\n\n</details>", id="paragraph inside details"),
    pytest.param('see <img alt="a\n/perf help\nb" src="x">', id="HTML image alt text"),
    pytest.param("LGTM <!--\n/perf help\n-->", id="inline HTML comment"),
    pytest.param("[x]: /url\n'title\n/perf help'", id="link reference title"),
    pytest.param("> <!--\n/perf help", id="HTML comment cut short by a quote's end"),
    pytest.param("- <!--\n\n/perf help\n\nmore", id="HTML comment cut short by a list item's end"),
    pytest.param("<!-- TODO\n\n/perf help", id="unterminated HTML comment block"),
    pytest.param("> a\n</del>\n> \n/perf help", id="a lone tag after a quote starts an HTML block"),
    pytest.param("- a\n\n  b\n</b>\n/perf help", id="a lone tag after a list item starts an HTML block"),
    pytest.param("> > quote\n    <pre>\n/perf help", id="lazy quote continuation past an indented line"),
    pytest.param("<!x <code>\n/perf help", id="lowercase <! is text on GitHub, so its <code> opens"),
    pytest.param("a <!x <code>\n/perf help", id="lowercase <! inline, its <code> opens"),
    pytest.param("a <!X<code>\n/perf help", id="<! and a capital without a space is text, its <code> opens"),
    pytest.param("a <!A-b <code>\n/perf help", id="<! and capitals then a dash is text, its <code> opens"),
    pytest.param("a <!ABC x> <code>\n/perf help", id="a declaration ends at its >, then <code> opens"),
]


@pytest.mark.parametrize("body", HIDDEN)
def test_text_github_does_not_show_as_a_paragraph_line_is_not_a_command(body: str) -> None:
    assert not github_shows(body, "/perf help")  # the case is hidden on GitHub ...
    assert command_lines(body, P) == []  # ... and perfbot agrees


# GitHub shows these lines, but inside a span opened on an earlier line: the line does not start
# as plain text, so perfbot does not take it as a command (and its author sees no reply to it).
CAUTIOUS = [
    pytest.param("[a\n/perf help\n](http://x)", id="link text"),
    pytest.param("*a\n/perf help\nb*", id="emphasis opened on the line before"),
    pytest.param("x <del>\n/perf help\n</del>", id="inline HTML strikethrough"),
    # A loose list item is a `<p>`, but parsers disagree on looseness (a lazy `</b>` ends a list in
    # cmark-gfm, not in markdown-it-py), so no list item counts.
    pytest.param("- a\n\n  /perf help", id="loose list item"),
    # GitHub's sanitiser may drop the attribute, and its tag filter shows `<script>` as text.
    pytest.param("x <span hidden>\n/perf help\n</span>", id="inline element with a hidden attribute"),
    pytest.param("x <SCRIPT type=x>\n/perf help\n</SCRIPT>", id="inline script in capitals"),
]


@pytest.mark.parametrize("body", CAUTIOUS)
def test_a_line_inside_a_span_from_an_earlier_line_is_not_a_command(body: str) -> None:
    assert github_shows(body, "/perf help")
    assert command_lines(body, P) == []


def test_a_line_after_an_unterminated_tag_is_not_a_command() -> None:
    """A browser reads what follows `<div title='` as the attribute's value, up to the next `'`.

    (Python's HTMLParser, this test's reader of cmark-gfm's HTML, shows it as text instead.)
    """
    body = "> <div title='\n/perf help\n\nmore text\n/perf claim x"
    assert "<div title='\n</blockquote>" in str(cmarkgfm.github_flavored_markdown_to_html(body, options=GITHUB))
    assert command_lines(body, P) == []


SHOWN = [
    pytest.param("/perf help", id="alone"),
    pytest.param("Thanks!\n/perf help\nmore words", id="inside a paragraph"),
    pytest.param("**Note**\n/perf help", id="after a closed emphasis"),
    pytest.param("a | b\n-|-\n\n/perf help", id="after a table and a blank line"),
    pytest.param("<details>x</details>\n\n/perf help", id="after a closed details block"),
    pytest.param("Vec<T> is fine\n/perf help", id="after an unknown inline tag"),
    pytest.param("  /perf help `code` *em*", id="indented, with inline markup after the prefix"),
    pytest.param("<!X <code>\n/perf help", id="after a declaration, which holds the <code> it ends at"),
]


@pytest.mark.parametrize("body", SHOWN)
def test_a_visible_paragraph_line_is_a_command(body: str) -> None:
    assert github_shows(body, "/perf help")
    assert [text.split(" ", 2)[:2] for _, text in command_lines(body, P)] == [["/perf", "help"]]


def test_forged_sentinels_in_a_comment_reveal_nothing() -> None:
    hidden_then_forged = "`x\n/perf help\n`\n\n\ue000\ue010\ue001/perf claim y"
    assert command_lines(hidden_then_forged, P) == []


FRAGMENTS = (
    "", "text", "```", "~~~", "    code", "> quote", ">", "- item", "* item", "1. item", "---", "===", "|",
    "a | b", "-|-", "|---|---|", "| a |", ":-:|", "`", "``", "![alt", "](x.png)", "[link", "](http://x)", "[x]: /u",
    "'title", "<!--", "-->", "<details>", "</details>", "<code>", "</code>", "<div>", "</div>", '<img alt="',
    '">', "*", "**", "_", "~~", "~", "\\", "# heading", "<script>", "</script>", "&nbsp;", "<br>", "- [ ] task",
    "<del>", "</del>", "<a href=x>", "</a>", "<pre>", "</pre>", "<p>", "<textarea>", "x *y", "z*",
    "<div title='", "'", "<span hidden>", "</span>", "<?php", "<![CDATA[", "]]>", "<!X", "<b>", "</b>",
    "1) item", "+ item", "2. item", "> > quote", "--- |", "-|", "<details><summary>s</summary>", "$x", "$",
)  # fmt: skip
TAILS = ("", " `", " *", " _", " |", " | x", "`", "](y)", " <!--", " -->", "  ", "\\", " <code>", "~~")
INDENTS = ("", " ", "   ", "    ", "\t", "> ", "- ", "  ", "1. ")
COMMAND = "\0command\0"


@st.composite
def comments(draw: st.DrawFn) -> str:
    """A comment of hostile fragments and command lines; the k-th command line is `/perf claim cK`."""
    pieces = st.one_of(
        st.sampled_from(FRAGMENTS),
        st.just(COMMAND),
        st.text(alphabet="`*_~|-:<>![]()#\\ \t=x/", max_size=8),
    )
    lines = draw(st.lists(st.tuples(st.sampled_from(INDENTS), pieces, st.sampled_from(TAILS)), max_size=14))
    out: list[str] = []
    count = 0
    for indent, piece, tail in lines:
        if piece == COMMAND:
            count += 1
            piece = f"/perf claim c{count:03d}"
        out.append(indent + piece + tail)
    return "\n".join(out)


@settings(max_examples=examples(600), deadline=None)
@given(comments())
def test_a_line_accepted_as_a_command_is_a_visible_line_of_a_paragraph(body: str) -> None:
    for _, text in command_lines(body, P):
        if text.startswith("/perf claim c"):
            assert github_shows(body, text[: len("/perf claim c000")]), text
