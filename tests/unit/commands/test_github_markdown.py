"""`github_markdown.to_html`: cmark-gfm with GitHub's options and extensions, each parse freed.

Checked against cmarkgfm's own helper (`github_page.rendered`), which takes the options and the
extensions by name: every extension GitHub enables for comments, each option, text beyond ASCII,
and many renders in a row (the parser, the tree and the text of each are freed, none reused).
"""

from __future__ import annotations

import pytest

from bot.commands import reading
from tests.unit.commands.github_page import rendered

CASES = [
    pytest.param("a | b\n-|-\nc | d", id="table"),
    pytest.param("~a~ and ~~b~~", id="strikethrough"),
    pytest.param("see www.example.org and https://x.org", id="autolink"),
    pytest.param("<title>x</title> <script>y</script>", id="tagfilter"),
    pytest.param("- [ ] a\n- [x] b", id="tasklist"),
    pytest.param("see[^1]\n\n[^1]: a note", id="footnotes"),
    pytest.param("one\ntwo", id="hard breaks"),
    pytest.param("<div>\n<span>raw</span>\n</div>", id="raw HTML kept"),
    pytest.param("# x\n\n> y", id="source positions"),
    pytest.param("naïve — ﬁx ✓ 𝟘", id="beyond ASCII"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("body", CASES)
def test_a_comment_renders_as_cmark_gfm_renders_it_with_githubs_options(body: str) -> None:
    assert reading.to_html(body) == rendered(body)


def test_many_renders_in_a_row_each_render_their_own_text() -> None:
    bodies = [f"*{n}* [^{n}]\n\n[^{n}]: note {n}" for n in range(200)]
    assert [reading.to_html(body) for body in bodies] == [rendered(body) for body in bodies]


def test_the_platforms_cmark_gfm_exports_what_frees_a_render() -> None:
    assert reading._releaser() is not None


def test_each_render_hands_its_tree_and_its_text_to_be_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    freed: list[tuple[int, int]] = []
    monkeypatch.setattr(reading, "_releaser", lambda: lambda root, text: freed.append((root, text)))
    assert reading.to_html("*a*") == rendered("*a*")
    assert reading.to_html("b") == rendered("b")
    assert len(freed) == 2
    assert all(address > 0 for pair in freed for address in pair)
    assert all(root != text for root, text in freed)  # the tree, then the text, not one of them twice
