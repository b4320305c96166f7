"""Only a line GitHub shows as top-level paragraph text is a command: perfbot against GitHub's page.

Every case is read twice: by perfbot (`command_lines`) and by `github_page`, which renders the
comment with cmark-gfm through cmarkgfm's own helper and builds the page from its HTML with
html5lib, as a browser does. The fixed cases are the constructs where a reader is most easily
wrong; the properties say that on generated comments of those constructs, nested, mixed and
with any line ends, perfbot reads exactly the lines the page shows, and on any generated comment
never a line the page does not show.
"""

from __future__ import annotations

import re
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.commands import reading
from bot.commands.browser_parse import STEPS
from bot.commands.reading import command_lines, paragraph_lines, starts_command
from tests.support.property_budget import examples
from tests.unit.commands.github_page import rendered, shows

P = "/perf"
INLINE = ("span", "b", "sup", "sub", "ins", "var", "q", "small", "del", "code", "em", "s", "a", "details")

HIDDEN = [
    pytest.param("[^1]: /perf complete m1 result: x\n\nsee[^1]", id="referenced footnote definition"),
    pytest.param("[^1]: /perf complete m1 result: x", id="unreferenced footnote definition (not rendered)"),
    pytest.param("see[^1]\n\n[^1]: a\n/perf help", id="lazy line of a footnote definition"),
    pytest.param("see[^1]\n\n[^1]: a\n\n    /perf help", id="indented paragraph of a footnote definition"),
    pytest.param("~a\n/perf help\nb~", id="single-tilde strikethrough across lines"),
    pytest.param("x ~a\n/perf help\nb~", id="single-tilde strikethrough after text"),
    pytest.param("x ~~a\n/perf help\nb~~", id="double-tilde strikethrough after text"),
    *(pytest.param(f"x <{tag}>\n/perf help\n</{tag}>", id=f"inline <{tag}> opened after text") for tag in INLINE),
    pytest.param("x <span hidden>\n/perf help\n</span>", id="inline element with a hidden attribute"),
    pytest.param("Vec<T> is fine\n/perf help", id="an unknown inline tag left open"),
    pytest.param("<b>x\n\n/perf help", id="a formatting element reopened in the next paragraph"),
    pytest.param("![alt\n/perf help\nmore](x.png)", id="image alt text"),
    pytest.param("![alt\n/perf help\nmore][x]\n\n[x]: /x.png", id="reference image alt text"),
    pytest.param("[a\n/perf help\n](http://x)", id="link text"),
    pytest.param("*a\n/perf help\nb*", id="emphasis opened on the line before"),
    pytest.param("`x\n/perf help\n`", id="multi-line inline code span"),
    pytest.param("``\n/perf help\n``", id="code span opened on the line before"),
    pytest.param("/perf help | x\n---|---", id="GFM table header row"),
    pytest.param("| /perf help |\n|---|", id="table header row with pipes"),
    pytest.param("a | b\n-|-\n/perf help", id="table body row without a pipe"),
    pytest.param("a | b\n-|-\n/perf help | x", id="table body row"),
    pytest.param("/perf help\n--- |", id="one-column table header row"),
    pytest.param("/perf help\n===", id="setext heading"),
    pytest.param("/perf help\n---", id="setext heading with dashes"),
    pytest.param("- a\n  /perf help", id="tight list item"),
    pytest.param("- a\n\n  /perf help", id="loose list item"),
    pytest.param("- [ ] a\n  /perf help", id="task list item"),
    pytest.param("> a\n/perf help", id="lazy line of a quote"),
    pytest.param("<details>\n\n/perf help\n\n</details>", id="paragraph inside details"),
    pytest.param('see <img alt="a\n/perf help\nb" src="x">', id="HTML image alt text"),
    pytest.param("LGTM <!--\n/perf help\n-->", id="inline HTML comment"),
    pytest.param("[x]: /url\n'title\n/perf help'", id="link reference title"),
    pytest.param("> <!--\n/perf help", id="HTML comment cut short by a quote's end"),
    pytest.param("- <!--\n\n/perf help\n\nmore", id="HTML comment cut short by a list item's end"),
    pytest.param("<!-- TODO\n\n/perf help", id="unterminated HTML comment block"),
    pytest.param("> a\n</del>\n> \n/perf help", id="a lone tag after a quote starts an HTML block"),
    pytest.param("> > quote\n    <pre>\n/perf help", id="lazy quote continuation past an indented line"),
    pytest.param("<!x <code>\n/perf help", id="<!x is text to cmark-gfm, so its <code> opens"),
    pytest.param("a <!X<code>\n/perf help", id="<! and a capital without a space is text, its <code> opens"),
    pytest.param("> <div title='\n/perf help\n\nmore\n/perf claim x", id="an unterminated tag swallows the rest"),
    pytest.param("x <noscript>\n/perf help\n</noscript>", id="raw text element"),
    pytest.param("`x\n/perf help\n`\n\n\ue000\ue010\ue001/perf claim y", id="a mark written in the comment"),
    pytest.param("`x\n/perf help\n`\n\n&#xE000;&#xE010;&#xE001;/perf claim y", id="a mark as references"),
    pytest.param("`x\n/perf help\n`\n\n&#57344;&#57360;&#57345;/perf claim y", id="a mark as decimal references"),
]


@pytest.mark.parametrize("body", HIDDEN)
def test_text_github_does_not_show_as_a_top_level_paragraph_line_is_not_a_command(body: str) -> None:
    assert not shows(body, "/perf")  # the case is hidden on GitHub ...
    assert command_lines(body, P) == []  # ... and perfbot agrees


SHOWN = [
    pytest.param("/perf help", id="alone"),
    pytest.param("Thanks!\n/perf help\nmore words", id="inside a paragraph"),
    pytest.param("**Note**\n/perf help", id="after a closed emphasis"),
    pytest.param("x ~a~\n/perf help", id="after a closed strikethrough"),
    pytest.param("x <span>a</span>\n/perf help", id="after a closed inline element"),
    pytest.param("a | b\n-|-\n\n/perf help", id="after a table and a blank line"),
    pytest.param("> a\n\n/perf help", id="after a quote and a blank line"),
    pytest.param("see[^1]\n\n[^1]: note\n\n/perf help", id="after a footnote definition and a blank line"),
    pytest.param("<details>x</details>\n\n/perf help", id="after a closed details block"),
    pytest.param("x <SCRIPT type=x>\n/perf help\n</SCRIPT>", id="after a filtered tag, which shows as text"),
    pytest.param("  /perf help `code` *em*", id="indented, with inline markup after the prefix"),
    pytest.param("<!X <code>\n/perf help", id="after a declaration, which holds the <code> it ends at"),
    pytest.param("a <!-- x -->\n/perf help", id="after a one-line inline comment"),
    pytest.param("x <b>y\n\n/perf claim</b>\n/perf help", id="after the end of a reopened formatting element"),
    pytest.param("[x]: /url\n\n/perf help", id="after a link reference definition"),
    pytest.param("one\r\n/perf help\r\ntwo", id="with CRLF line ends"),
    pytest.param("[\n" * 200 + "/perf help", id="after many lines of ["),
    pytest.param("> " * 64 + "a\n\n/perf help", id="after quotes nested as deep as perfbot reads"),
    pytest.param("x `a` <em>b</em> <span>c</span>\n/perf help", id="after inline elements holding text"),
]


def read(body: str) -> list[tuple[int, str]]:
    """The command lines perfbot reads in `body`, which must be read at all."""
    lines = command_lines(body, P)
    assert lines is not None
    return lines


@pytest.mark.parametrize("body", SHOWN)
def test_a_top_level_paragraph_line_is_a_command(body: str) -> None:
    assert shows(body, "/perf help")
    assert [text.split(" ", 2)[:2] for _, text in read(body)] == [["/perf", "help"]]


@pytest.mark.parametrize("body", ["<tr>\n\n/perf help\n\n</tr>", "x <td>\n/perf help </td>", "<th>\n\n/perf help"])
def test_a_line_inside_a_table_part_outside_a_table_is_a_command(body: str) -> None:
    assert shows(body, "/perf help")
    assert [text.split(" ", 2)[:2] for _, text in read(body)] == [["/perf", "help"]]


def test_raw_html_imitating_a_paragraph_is_shown_as_one_but_is_not_a_command() -> None:
    body = '<p data-sourcepos="1:1-1:9">x<br />\n/perf help'
    assert shows(body, "/perf help")
    assert command_lines(body, P) == []


# Past 64 open elements, or more than `STEPS` tags read one by one, the comment is not read (each
# step of the reading stays a short walk, and a comment costs what an ordinary one costs): its
# lines after that point are neither commands nor dropped in silence, the comment is answered.
BEYOND_BOUNDS = [
    pytest.param("> " * 65 + "a\n\n/perf help", id="quotes nested deeper than perfbot reads"),
    pytest.param("x" + "</b>" * (STEPS + 1) + "\n\n/perf help", id="more stray end tags than perfbot reads"),
    pytest.param("x <a>" + "<a>" * STEPS + "\n/perf help", id="more links in links than perfbot reads"),
    pytest.param("<div>\n\n" * (STEPS + 1) + "/perf help", id="more blocks than perfbot reads"),
]


@pytest.mark.parametrize("body", BEYOND_BOUNDS)
def test_a_command_line_after_more_markup_than_perfbot_reads_makes_the_comment_unread(body: str) -> None:
    assert command_lines(body, P) is None
    assert command_lines("/perf help\n\n" + body, P) is None


@pytest.mark.parametrize("body", BEYOND_BOUNDS)
def test_a_command_line_before_the_markup_perfbot_does_not_read_is_read(body: str) -> None:
    last = body.rindex("/perf help")
    assert command_lines("/perf help\n\n" + body[:last], P) == [(1, "/perf help")]


def test_as_many_tags_as_perfbot_reads_one_by_one_leave_the_comment_read() -> None:
    assert command_lines("x" + "</b>" * (STEPS - 8) + "\n\n/perf help", P) == [(3, "/perf help")]


def test_github_markdown_renders_as_cmarkgfm_does_with_githubs_options() -> None:
    body = "a ~b~ www.x.org\n\n| c |\n|---|\n\n- [x] d\n\n<script>\n\nsee[^1]\n\n[^1]: e"
    assert reading.to_html(body) == rendered(body)
    assert reading._releaser() is not None  # this platform's cmark-gfm frees what it renders


def test_a_prefix_a_mark_would_change_is_read_only_where_the_mark_changes_nothing() -> None:
    # `_bot help_` is emphasis; with a letter before it, it would not be.
    assert paragraph_lines("_bot help_", "_bot") == []
    assert paragraph_lines("x\n_bot help", "_bot") == [(2, "_bot help")]


def test_a_prefix_is_found_as_cmark_gfm_writes_it_in_html() -> None:
    assert paragraph_lines('!&x<1>" go', '!&x<1>"') == [(1, '!&x<1>" go')]


def test_every_line_of_many_is_read_at_its_own_number() -> None:
    body = "\n".join(f"/perf claim c{k:03d}" for k in range(40))
    assert paragraph_lines(body, P) == [(k + 1, f"/perf claim c{k:03d}") for k in range(40)]


def test_the_mark_goes_before_the_prefix_that_starts_the_line() -> None:
    assert paragraph_lines("/perf block m1 see /perf", P) == [(1, "/perf block m1 see /perf")]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("x <p>\n/perf help", id="a paragraph opened by raw HTML"),
        pytest.param("x <p\nclass=a>\n/perf help", id="a paragraph's tag across lines"),
        pytest.param("x <p/>\n/perf help", id="a paragraph's tag closed at once"),
        pytest.param('<hr a="\n\nq\n\n<hr b=">\n\n/perf help', id="a quoted value left open across blocks"),
        pytest.param('<div a="\n\n- q\n\n<div>"></div>\n\n/perf help', id="a quoted value left open across a list"),
    ],
)
def test_a_paragraph_raw_html_opens_is_not_cmark_gfms(body: str) -> None:
    assert not shows(body, "/perf help")
    assert command_lines(body, P) == []


def test_data_sourcepos_is_spelt_otherwise_with_the_same_link_labels() -> None:
    body = "x [a\n/perf help\n][DATA-SOURCEPOS]\n\n[data-sourcepos]: /url"
    assert not shows(body, "/perf help")
    assert command_lines(body, P) == []


def test_a_prefix_holding_a_mark_reads_no_line() -> None:
    assert paragraph_lines("/\ue000x help", "/\ue000x") == []


FRAGMENTS = (
    "", "text", "```", "~~~", "    code", "> quote", ">", "- item", "* item", "1. item", "---", "===", "|",
    "a | b", "-|-", "|---|---|", "| a |", ":-:|", "`", "``", "![alt", "](x.png)", "[link", "](http://x)", "[x]: /u",
    "'title", "<!--", "-->", "<details>", "</details>", "<code>", "</code>", '<img alt="',
    '">', "*", "**", "_", "~~", "~", "~a", "b~", "x ~", "\\", "# heading", "&nbsp;", "<br>", "- [ ] task",
    "[^1]:", "[^1]: note", "[^a]", "see[^1]", "[^", "x *y", "z*",
    "<!X", "1) item", "+ item", "2. item", "> > quote", "--- |", "-|", "x <!-- y -->", "www.x.org",
    *(f"x <{tag}>" for tag in INLINE), *(f"</{tag}>" for tag in INLINE), *(f"<{tag}>" for tag in INLINE),
)  # fmt: skip
# Raw HTML whose repairs by the browser perfbot follows only where they hide text (`line_starts`).
BLOCK_HTML = (
    "<div>", "</div>", "<p>", "</p>", "<pre>", "</pre>", "<table>", "</table>", "<td>", "<li>", "</li>", "<svg>",
    "</svg>", "<![CDATA[", "]]>", "<div title='", "'", "<?php", "<textarea>", "</textarea>", "<script>", "<h1>",
    "<blockquote>", "</blockquote>", "<select>", "</select>", "<template>", "</template>", "<a href=x>", "</a>",
    "<span/>", "<form>", "</form>", "<body>", "</body>", "<html>", "<button>", "</button>", "<object>", "<ul>",
    "</ul>", "<ol>", "<dd>", "<h2>", "</h1>", "<math>", "<mtext>", "<foreignObject>", "<option>", "<input>",
    "<iframe>", "</iframe>", "<xmp>", "<image>", "<nobr>", "<table><td>", "</td>", "<tr>", "<caption>",
    "<marquee>", "<frameset>", "<noscript>", "</noscript>", "<style>", "</style>", "<svg/>", "<b><div>",
)  # fmt: skip
TAILS = ("", " `", " *", " _", " |", " | x", "`", "](y)", " <!--", " -->", "  ", "\\", " <code>", "~~", "~", "[^1]")
INDENTS = ("", " ", "   ", "    ", "\t", "> ", "- ", "  ", "1. ", "[^1]: ")
LINE_ENDS = ("\n", "\r\n", "\r")
COMMAND = "\0command\0"
NUMBERED = re.compile(r"/perf claim c([0-9]{3})")


@st.composite
def comments(draw: st.DrawFn, fragments: tuple[str, ...] = FRAGMENTS) -> str:
    """A comment of those fragments and command lines; the k-th command line is `/perf claim cK`."""
    pieces = st.one_of(
        st.sampled_from(fragments),
        st.just(COMMAND),
        st.text(alphabet="`*_~|-:<>![]()#\\^ \t=x/", max_size=8),
    )
    lines = draw(st.lists(st.tuples(st.sampled_from(INDENTS), pieces, st.sampled_from(TAILS)), max_size=14))
    ends = draw(st.lists(st.sampled_from(LINE_ENDS), min_size=len(lines), max_size=len(lines)))
    out: list[str] = []
    count = 0
    for (indent, piece, tail), end in zip(lines, ends, strict=True):
        if piece == COMMAND:
            count += 1
            piece = f"/perf claim c{count:03d}"
        out.append(indent + piece + tail + end)
    return "".join(out)


def numbered(texts: list[str]) -> set[int]:
    return {int(found.group(1)) for text in texts if (found := NUMBERED.match(text))}


def read_by_perfbot(body: str) -> set[int]:
    return numbered([text for _, text in read(body)])


def shown_by_github(body: str) -> set[int]:
    """The command lines the page shows at the start of a top-level paragraph line, of those that
    start with the prefix in the comment (a line that only shows so, as `\\/perf`, is no command)."""
    candidates = numbered([line.strip() for line in re.split(r"\r\n|\r|\n", body) if starts_command(line.strip(), P)])
    from tests.unit.commands.github_page import top_level_lines

    return numbered(top_level_lines(body)) & candidates


@settings(max_examples=examples(600), deadline=None)
@given(comments())
@example("[^1]: /perf claim c001\n\nsee[^1]")
@example("/perf claim c001\r\n~a\r\n/perf claim c002\r\nb~\r\n/perf claim c003")
@example("x <sup>\n/perf claim c001\n</sup>\n/perf claim c002")
@example("x <b>\n\n/perf claim c001</b>\n/perf claim c002")
@example("[\n" * 40 + "/perf claim c001\n" + "<!--\n" * 40 + "/perf claim c002")
def test_perfbot_reads_exactly_the_lines_github_shows_as_top_level_paragraph_text(body: str) -> None:
    assert read_by_perfbot(body) == shown_by_github(body)


@settings(max_examples=examples(600), deadline=None)
@given(comments(FRAGMENTS + BLOCK_HTML))
@example("<div>\n<li>\n\n</div>\n\n/perf claim c001")
def test_perfbot_never_reads_a_line_github_does_not_show_as_top_level_paragraph_text(body: str) -> None:
    assert read_by_perfbot(body) <= shown_by_github(body)


def test_a_command_on_the_second_line_after_an_empty_first_is_read_at_line_two() -> None:
    assert paragraph_lines("\n/perf help", P) == [(2, "/perf help")]


def test_a_one_character_prefix_that_also_ends_its_line_marks_the_line_once() -> None:
    assert paragraph_lines("! go!\n! b", "!") == [(1, "! go!"), (2, "! b")]


def test_references_to_other_characters_are_kept_so_link_labels_stay_apart() -> None:
    # `[&#65;]` and `[&#66;]` are different labels: no link, so the line shows.
    body = "[x\n/perf help\n][&#65;]\n\n[&#66;]: /url"
    assert shows(body, "/perf help")
    assert [line for line, _ in read(body)] == [2]


def test_a_reference_to_a_mark_becomes_one_to_another_character_which_emphasis_reads_alike() -> None:
    # The `;` of the reference before `_` lets the emphasis open on GitHub, as it must here.
    body = "&#xE000;_a\n/perf help\nb_"
    assert not shows(body, "/perf help")
    assert command_lines(body, P) == []


def one_line_commands(draw: st.DrawFn) -> tuple[str, str]:
    """An inert prefix (`reading._INERT_PREFIX`) and a one-line comment starting with it, the rest
    of Markdown's most telling characters and fragments."""
    prefix = draw(st.from_regex(r"/[A-Za-z0-9-]{0,6}", fullmatch=True))
    alphabet = "`*_~|-:<>![]()#\\^ \t=x/@.&;\0\ue000\x0c"
    rest = st.one_of(st.sampled_from(FRAGMENTS + BLOCK_HTML + TAILS), st.text(alphabet=alphabet, max_size=8))
    parts = draw(st.lists(rest, max_size=6))
    return prefix, prefix + draw(st.sampled_from(("", " ", "\t"))) + "".join(parts)


@settings(max_examples=examples(600), deadline=None)
@given(st.composite(one_line_commands)())
@example(("/perf", "/perf why x"))
@example(("/perf", "/perf  *a* `b` <!-- c"))
@example(("/p", "/p"))
def test_a_one_line_comment_read_without_rendering_reads_as_the_rendered_comment(case: tuple[str, str]) -> None:
    prefix, body = case
    with mock.patch.object(reading, "_one_plain_line", return_value=False):
        rendered_lines = paragraph_lines(body, prefix)
    assert paragraph_lines(body, prefix) == rendered_lines


@settings(max_examples=examples(300), deadline=None)
@given(st.composite(one_line_commands)())
def test_a_one_line_command_is_shown_by_github_and_read(case: tuple[str, str]) -> None:
    body = "/perf claim c001 " + case[1]
    assert read_by_perfbot(body) == shown_by_github(body) == {1}
