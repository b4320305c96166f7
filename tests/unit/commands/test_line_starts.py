"""Where a line of top-level paragraph text starts in cmark-gfm's HTML: the tokenizer and the tree's repairs.

The HTML here is written by hand, as cmark-gfm would write it around raw HTML; `\\ue000` marks a
line that starts with a candidate (the mark `visible` puts there). `test_visible` holds the whole
reading against html5lib's page of cmark-gfm's real output.
"""

from __future__ import annotations

import pytest

from bot.commands.browser_parse import DEEPEST, PARAGRAPH, STEPS, UNREAD, Page, line_starts, tag_end

M = "\ue000"


def p(body: str) -> str:
    return f'<p data-sourcepos="1:1-9:9">{body}</p>\n'


def starts(html: str) -> list[str]:
    """The text of each line start found, up to its next tag."""
    return [html[at:].split("<", 1)[0] for at in line_starts(html, len(html))]


def test_a_paragraphs_first_line_and_each_line_after_a_break_start_lines() -> None:
    assert starts(p(f"{M}a<br />\n{M}b<br />\nc<br />\n{M}d")) == [f"{M}a", f"{M}b", f"{M}d"]
    assert starts(p("a") + p(f"{M}b")) == [f"{M}b"]


def test_a_line_that_starts_without_a_mark_is_not_reported() -> None:
    assert starts(p("a<br />\nb") + p(f"c<br />\n{M}d")) == [f"{M}d"]


def test_only_lines_before_the_bound_are_read() -> None:
    html = p(f"{M}a") + p(f"{M}b")
    assert [html[at:].split("<", 1)[0] for at in line_starts(html, html.index("</p>"))] == [f"{M}a"]


@pytest.mark.parametrize(
    ("tag", "end", "closed"),
    [
        ("<a>", 3, False),
        ("<a b=c>", 7, False),
        ('<a b="x>y">', 11, False),
        ("<a b='x>y'>", 11, False),
        ("<a b=x/>", 8, False),  # an unquoted value takes the slash
        ("<a b />", 7, True),
        ("<a/>", 4, True),
        ('<a ="x>', 7, False),  # a name may start with `=`: no value, so the quote is the name's
        ("<a b = 'c' d>", 13, False),
        ('<a b="c', -1, False),
        ("<a b", -1, False),
        ("<a b=>", 6, False),
    ],
)
def test_a_tag_ends_where_htmls_tokenizer_ends_it(tag: str, end: int, closed: bool) -> None:
    assert tag_end(tag, 2) == (end, closed)


HIDDEN = [
    pytest.param(p(f"x <span><br />\n{M}a</span>"), id="inside an open inline element"),
    pytest.param(p("x <!-- y <br />\n") + p(f"{M}a"), id="inside an unterminated comment"),
    pytest.param(p("x <!-- --!> <b><br />\n") + p(f"{M}a"), id="a comment ended by --!>, then formatting"),
    pytest.param(p('x <a title="<br />\n') + p(f"{M}a"), id="inside an unterminated tag"),
    pytest.param(p("x <noscript><br />\n</p>") + p(f"{M}a"), id="inside raw text"),
    pytest.param(p("x <noscript>") + p(f"{M}a"), id="inside raw text that never ends"),
    pytest.param(p("x &lt;<plaintext><br />\n") + p(f"{M}a"), id="after plaintext"),
    pytest.param(p("x <script>") + p(f"{M}a"), id="after a script"),
    pytest.param("<div>\n" + p(f"{M}a"), id="in a raw block element"),
    pytest.param("<b>\n" + p(f"{M}a"), id="in a formatting element opened before"),
    pytest.param(p("<b>x") + p(f"{M}a"), id="a formatting element reopened"),
    pytest.param(p("x <div></div><br />\n" + f"{M}a"), id="a block element ended the paragraph"),
    pytest.param("<svg><![CDATA[ > </svg> ]]>" + p(f"{M}a"), id="CDATA in foreign content"),
    pytest.param("<select>" + p(f"{M}a"), id="in a select, which drops the paragraph"),
    pytest.param("<form><span></form>" + p(f"{M}a"), id="a form's end leaves what it holds open"),
    pytest.param("<ul><li><ul></li>" + p(f"{M}a") + "</ul>", id="a list item's end stops at a list"),
    pytest.param("<span><div></span>" + p(f"{M}a"), id="an end tag does not close across a special element"),
    pytest.param("<table><td><b></td></table><span>" + p(f"{M}a"), id="after a table, then a span"),
    pytest.param("<td><span></td>" + p(f"{M}a"), id="a cell outside a table is dropped, its end too"),
    pytest.param("<button><p></button>" + p(f"{M}a"), id="a paragraph in a button"),
    pytest.param("<div>" * (DEEPEST + 1) + "</div>" * (DEEPEST + 1) + p(f"{M}a"), id="deeper than perfbot reads"),
]


@pytest.mark.parametrize("html", HIDDEN)
def test_a_line_the_browser_puts_elsewhere_is_not_a_line_start(html: str) -> None:
    assert f"{M}a" not in starts(html)


SHOWN = [
    pytest.param(p("x <span></span><br />\n" + f"{M}a"), id="after a closed inline element"),
    pytest.param(p("x <!-- y --><br />\n" + f"{M}a"), id="after a comment"),
    pytest.param(p("x <!--><br />\n" + f"{M}a"), id="after <!-->, which ends at once"),
    pytest.param(p("x <!---><br />\n" + f"{M}a"), id="after <!--->, which ends at once"),
    pytest.param(p("x <!-- a --!><br />\n" + f"{M}a"), id="after a comment ended by --!>"),
    pytest.param(p("x <?php a ><br />\n" + f"{M}a"), id="after a processing instruction, a bogus comment"),
    pytest.param(p("x <![CDATA[ a ><br />\n" + f"{M}a"), id="after CDATA outside foreign content"),
    pytest.param(p("x <!X y><br />\n" + f"{M}a"), id="after a declaration"),
    pytest.param(p("x </ y><br />\n" + f"{M}a"), id="after </ and a space, a bogus comment"),
    pytest.param(p("x </><br />\n" + f"{M}a"), id="after </>, which is dropped"),
    pytest.param(p("x < y<br />\n" + f"{M}a"), id="after a < that starts no markup"),
    pytest.param(p("x <noscript></p></noscript><br />\n" + f"{M}a"), id="after raw text and its end"),
    pytest.param(p("x <NoScript></p></noscript ><br />\n" + f"{M}a"), id="raw text's end in any case"),
    pytest.param(p("x <SPAN></span><br />\n" + f"{M}a"), id="after an element named in capitals"),
    pytest.param(p("<b>x") + p(f"</b>y<br />\n{M}a"), id="after the end of a reopened formatting element"),
    pytest.param(p("<b>x") + p(f"y</b><br />\n{M}a"), id="after the adoption of a formatting element"),
    pytest.param("<svg/>" + p(f"{M}a"), id="after a self-closed foreign element"),
    pytest.param("<table><tr><td><b>x</td></tr></table>" + p(f"{M}a"), id="after a cell's formatting"),
    pytest.param("<select><p></select>" + p(f"{M}a"), id="after a select, which dropped its content"),
    pytest.param("<template><b></template>" + p(f"{M}a"), id="after formatting inside a template"),
    pytest.param(p("x <span>") + p(f"{M}a"), id="after an inline element its paragraph's end closed"),
    pytest.param(p(f"<a>x<a>y</a><br />\n{M}a"), id="after a link that ended the one before"),
    pytest.param("<p>x\n" + p(f"{M}a"), id="after a raw paragraph, closed by the next"),
    pytest.param("<div>" * DEEPEST + "</div>" * DEEPEST + p(f"{M}a"), id="as deep as perfbot reads"),
    pytest.param("<body><html><head><frameset>" + p(f"{M}a"), id="after tags the body drops"),
]


@pytest.mark.parametrize("html", SHOWN)
def test_a_line_the_browser_puts_in_a_top_level_paragraph_is_a_line_start(html: str) -> None:
    assert f"{M}a" in starts(html)


def test_raw_html_imitating_a_paragraph_starts_no_line() -> None:
    assert starts(f'<p data-sourcepos="1:1">{M}a</p><p>{M}b</p><P data-sourcepos="1:1-1:1">{M}c</P>') == []


def test_what_waits_to_be_reopened_is_opened_by_the_next_text() -> None:
    page = Page()
    page.start("b", False)
    page.start(PARAGRAPH, False)  # the paragraph closes nothing: `b` is not a paragraph
    page.end("p")
    assert (page.open, page.reopen) == (["b"], [])
    page.start("div", False)
    page.start("i", False)
    page.end("div")
    assert (page.open, page.reopen) == (["b"], ["i"])
    page.text()
    assert (page.open, page.reopen) == (["b", "i"], [])


def test_reading_that_ends_with_its_last_step_is_whole_and_one_step_more_is_unread() -> None:
    for steps, found in ((STEPS, []), (STEPS + 1, [UNREAD])):
        html = "</x>" * steps  # a stray end tag is read a step at a time
        assert list(line_starts(html, len(html))) == found
