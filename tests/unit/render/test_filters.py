"""Filters that stand for a template loop write what the loop writes, narrowed or not."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.render import Renderer
from tests.support.property_budget import examples

# The loop `indented_lines` replaced in the plan: each line of an answer, one by one.
LOOP = """{% for part in text.strip().splitlines() %}
{{ ("    " ~ part | line) if part.strip() else "" }}
{% endfor %}
"""
TEMPLATES = {"loop.j2": LOOP, "filter.j2": "{{ text | indented_lines(4) }}"}
LINES = st.lists(st.sampled_from(["", " ", "a", "```x", "::error::x", "\r", "\u2028", "é" * 30, "\t- b"]), max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.text(), LINES.map("\n".join)), st.one_of(st.none(), st.integers(min_value=1, max_value=40)))
@example("\n\nfirst\n\n  second\n```\n", None)
@example("a long line of an answer\nshort", 5)
def test_indented_lines_writes_what_the_loop_of_lines_writes(text: str, width: int | None) -> None:
    renderer = Renderer(TEMPLATES)
    if width is not None:
        renderer = renderer.narrowed(width)
    assert renderer.render("filter.j2", text=text) == renderer.render("loop.j2", text=text)
