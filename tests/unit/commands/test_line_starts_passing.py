"""Passing over whole elements at once (`line_starts._passing`) finds the line starts a step per tag finds.

`line_starts` passes over text, unmarked breaks and whole elements whose start and end undo each
other in its `Page`, in one regex match, so that a comment of 20,000 list items or headings costs
no more than one of 20,000 short lines. It is a shortcut only: every case here is read twice, as
it is and with the shortcut taken away (text and unmarked breaks only, every tag a step), and
both must give the same line starts. The HTML is cmark-gfm's, of generated comments (with the
marks `visible` puts at candidate lines) and of long runs of every construct, and hand-written
HTML that sits at each edge of what may be passed over.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings

from bot.commands import browser_parse
from bot.commands.browser_parse import DEEPEST, PASSED_DEPTH
from bot.commands.reading import _candidates, _with_marks, to_html
from tests.support.property_budget import examples
from tests.unit.commands.test_visible import BLOCK_HTML, FRAGMENTS, comments

P = "/perf"
M = "\ue000\ue010\ue001"
STEPPING = re.compile("(?:[^<]+|<br />\n(?!\ue000))*")


def marked_html(body: str) -> str:
    """cmark-gfm's HTML of `body` with the mark before each candidate line's prefix, as `visible` renders it."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    return to_html(_with_marks(text, _candidates(text, P), P))


def both(html: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """The line starts found passing over whole elements, and a step per tag."""
    passing = list(browser_parse.line_starts(html, len(html)))
    with monkeypatch.context() as patched:
        patched.setattr(browser_parse, "_passing", lambda *_: STEPPING)
        stepping = list(browser_parse.line_starts(html, len(html)))
    return passing, stepping


def runs() -> Iterator[str]:
    """Comments of one construct repeated, with command lines among them, before and after."""
    lines = (
        "- a", "1. a", "# a", "---", "```", "> a", "| a |", "www.x.org", "a@b.org", "http://x", "[a](b)",
        "*a*", "`a`", "~a~", "<b>a</b>", "<a>a</a>", "<span>a</span>", "<p>", "</p>", "<div>", "</b>",
        "- [ ] a", "  - a", "    a", "a  ", "<br>", "<img src=x>", "[^1]: a", "x[^1]", "<details>",
        "a\n", "<!---->", "x <!-- a -->", "<?x>", "x <?x>", "<!x>", "x <br/>", "x <area>", "<col>", "x <embed>",
        "x </b>", "x <a>", "<p>a", "x <svg/>", "<!-- a", "x <![CDATA[ a ]]>", "<svg><![CDATA[ a ]]>",
    )  # fmt: skip
    for line in lines:
        yield f"/perf help\n{line}\n{line}\n/perf help\n{line}\n\n{line}\n/perf help"
        yield f"{line}\n" * 30 + "/perf help\n" + f"{line}\n" * 30 + "\n/perf help"


@pytest.mark.parametrize("body", list(runs()))
def test_runs_of_each_construct_give_the_same_line_starts(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    passing, stepping = both(marked_html(body), monkeypatch)
    assert passing == stepping


NESTED = [
    "- a\n  - b\n    - c\n      - d\n        - e\n\n/perf help",
    "- a\n\n  b *c* [d](e)\n- f\n\n/perf help",
    "> - a\n>   > b `c`\n\n/perf help",
    "| a | b |\n|---|---|\n| *c* | [d](e) |\n\n/perf help",
    "1. [x](y) <span>z</span>\n2. ```\n   a\n   ```\n\n/perf help",
    "- <div>\n\n/perf help",
    "- <b>\n\n/perf help",
    "x <a href='y'>z\n- a [b](c)\n\n/perf help",
    "<table><tr><td>\n\n- a\n\n/perf help",
]


@pytest.mark.parametrize("body", NESTED)
def test_nested_constructs_give_the_same_line_starts(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    passing, stepping = both(marked_html(body), monkeypatch)
    assert passing == stepping


# Elements nested as deep as `_passing` takes them, each a list, a list item or emphasis.
NESTED_AS_DEEP = "".join(f"<{t}>" for t in ("ul", "li", "ol", "li", "em")[:PASSED_DEPTH]) + "a"
NESTED_AS_DEEP += "".join(f"</{t}>" for t in reversed(("ul", "li", "ol", "li", "em")[:PASSED_DEPTH]))


def inside_divs(count: int, html: str) -> str:
    return "<div>" * count + html + "</div>" * count


def p(body: str) -> str:
    return f'<p data-sourcepos="1:1-9:9">{body}</p>\n'


EDGES = [
    pytest.param("<ul>\n<li>a<br />\nb</li>\n</ul>\n" + p(f"{M}a"), id="a break inside a list item"),
    pytest.param(p(f"<em>a<br />\n{M}b</em><br />\n{M}c"), id="a marked line inside emphasis"),
    pytest.param(p(f'<a href="x">a<a>b</a></a><br />\n{M}c'), id="a link in a link"),
    pytest.param(p(f"<b>a<div>b</div></b><br />\n{M}c"), id="a block inside formatting in a paragraph"),
    pytest.param(f"<div><p>a</p></div>{p(M + 'b')}", id="a raw paragraph inside a block"),
    pytest.param(f"<div><p>a<div>b</div></p></div>{p(M + 'b')}", id="a block inside a paragraph inside a block"),
    pytest.param(f"<hr />\n{p('a<hr />' + M + 'b')}", id="rules outside and inside a paragraph"),
    pytest.param(p(f"<em>a<hr />b</em><br />\n{M}c"), id="a rule inside emphasis in a paragraph"),
    pytest.param(f"<td>a</td>{p(M + 'b')}", id="a cell outside a table"),
    pytest.param(f"<table><tr><td>a</td></tr></table>{p(M + 'b')}", id="a cell inside a table"),
    pytest.param(f"<li>a</LI>{p(M + 'b')}", id="an end tag in capitals"),
    pytest.param(f"<li title='a'>b</li>{p(M + 'b')}", id="an attribute in single quotes"),
    pytest.param(f'<li title="a>b">c</li>{p(M + "b")}', id="a quoted > in an attribute"),
    pytest.param(f"<textarea>a</textarea>{p(M + 'b')}", id="raw text"),
    pytest.param(f"<b>{p('x')}<i>a</i>{p(M + 'b')}", id="an element passed over while one waits to reopen"),
    pytest.param(f"<select><b>a</b></select>{p(M + 'b')}", id="inside a select"),
    pytest.param(inside_divs(DEEPEST - PASSED_DEPTH, NESTED_AS_DEEP) + p(M + "b"), id="as deep as is passed over"),
    pytest.param(inside_divs(DEEPEST - PASSED_DEPTH + 1, NESTED_AS_DEEP) + p(M + "b"), id="one deeper"),
    pytest.param("<div>" * (DEEPEST - 1) + "<b>a</b>" + p(M + "b"), id="at the deepest"),
    pytest.param("<ul><li><ul><li><ul><li><em>a</em></li></ul></li></ul></li></ul>" + p(M + "b"), id="too deep"),
    pytest.param("<ul><li><ul><li>a<br />\n" + M + "b</li></ul></li></ul>" + p(M + "b"), id="a marked break deep"),
    pytest.param(p("a") + p(f"b<br />\n{M}c") + p(f"{M}d") + p("e"), id="paragraphs with and without marks"),
    pytest.param(p(f"a<em>b<br />\n{M}c</em>") + p(f"{M}d"), id="a mark inside emphasis in a paragraph"),
    pytest.param(p(f"a<br>\n{M}b") + p(f"c<br />{M}d") + p(f"{M}e"), id="raw breaks before marks"),
    pytest.param(p("a<!-- b <br />\n") + p(f"{M}c"), id="a comment that never ends"),
    pytest.param(p(f"a<!--><br />\n{M}b<!---><br />\n{M}c<!-- --!><br />\n{M}d"), id="comments that end at once"),
    pytest.param(p(f"a<![CDATA[ x ]]><br />\n{M}b") + f"<svg><![CDATA[ <p> ]]></svg>{p(M + 'c')}", id="CDATA"),
    pytest.param(p(f"a<?x <br />\n{M}b ><br />\n{M}c"), id="a bogus comment across a break"),
    pytest.param(f"<table><col><col/></table>{p(M + 'b')}", id="void table columns"),
    pytest.param(f"<tr>\n{p(M + 'a')}</tr>\n{p(M + 'b')}", id="a paragraph inside a row outside a table"),
    pytest.param(p(f"x <td><br />\n{M}a </td><br />\n{M}b"), id="a marked break inside a cell outside a table"),
    pytest.param(
        f"<table><tr><td>{p(M + 'a')}</td></tr></table>{p(M + 'b')}", id="a paragraph inside a cell of a table"
    ),
    pytest.param(f"<div>{p('a')}</div>{p(M + 'b')}", id="an unmarked paragraph inside a block"),
    pytest.param(f"<b>{p('a')}</b>{p(M + 'b')}", id="an unmarked paragraph inside formatting"),
]


@pytest.mark.parametrize("html", EDGES)
def test_at_each_edge_of_what_is_passed_over_the_line_starts_are_the_same(
    html: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    passing, stepping = both(html, monkeypatch)
    assert passing == stepping


@settings(max_examples=examples(600), deadline=None)
@given(comments(FRAGMENTS + BLOCK_HTML))
def test_generated_comments_give_the_same_line_starts(body: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        passing, stepping = both(marked_html(body), monkeypatch)
    assert passing == stepping
