"""A hostile string through every template: no workflow command, no closed fence, no raw newline.

Issue #10 items 9 and 10. Every value a template takes from outside (the snapshot's text, a lease,
a comment, a login, a title, a file name, a message) carries the hostile string; what perfbot
composes itself (markers, the help table, the config's texts) is ordinary. Each template in
`templates/` has its outputs in `tests/support/hostile_outputs.py`, or is listed there as one no text
from outside reaches.
"""

from __future__ import annotations

import re

import pytest

from bot.config import Settings
from bot.github.actions import TOPICS
from bot.render import Renderer
from tests.support.hostile_outputs import NO_OUTSIDE_TEXT, World, outputs, topic_outputs
from tests.support.paths import ROOT

# Workflow commands at the start of a line, a fence, every line break, a bidi override and isolate,
# a mention, an HTML comment and a table pipe. The second one starts with a fence, for the places
# that start a line with a value.
TAIL = "::warning file=x::y\r\n```\n~~~\n##[set-output name=x]y\u2028\u202eevil\u2066 @all <!-- --> |"
HOSTILES = ("::error::pwned\n" + TAIL, "```\n::error::pwned\u2029\x85" + TAIL)
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A CommonMark fence line: three or more backticks and no backtick after them, or three tildes.
FENCE = re.compile(r"^ {0,3}(`{3,}[^`]*|~{3,}.*)$")
# Templates that only define macros; each is rendered through the templates that import it.
MACRO_LIBRARIES = {"changes.j2", "native.j2", "reasons.j2", "reach.j2"}
# The fences perfbot writes itself: around a mermaid graph (page, PR body, job summary).
OUR_FENCES = {"```mermaid", "```"}
MERMAID_ENTITY = re.compile(r"#([0-9]+);")


def template_names() -> list[str]:
    return sorted(p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*.j2"))


def test_every_template_has_hostile_outputs_or_takes_no_outside_text(settings: Settings, renderer: Renderer) -> None:
    rendered = set(outputs(World(HOSTILES[0], settings, renderer)))
    assert rendered.isdisjoint(NO_OUTSIDE_TEXT)
    assert set(template_names()) - MACRO_LIBRARIES == rendered | set(NO_OUTSIDE_TEXT)


def test_every_comment_topic_has_hostile_outputs(settings: Settings, renderer: Renderer) -> None:
    assert set(topic_outputs(World(HOSTILES[0], settings, renderer))) == set(TOPICS)


@pytest.fixture(scope="module", params=range(len(HOSTILES)), ids=["hostile", "fenced"])
def world(request: pytest.FixtureRequest, settings: Settings, renderer: Renderer) -> World:
    return World(HOSTILES[request.param], settings, renderer)


@pytest.mark.parametrize("name", sorted(set(template_names()) - MACRO_LIBRARIES - set(NO_OUTSIDE_TEXT)))
def test_a_hostile_string_cannot_steer_any_template(name: str, world: World) -> None:
    texts = outputs(world)[name]()
    assert texts
    for output in texts:
        assert "pwned" in output or name == "comments/help.md.j2"  # the hostile text did reach the output
        lines = output.split("\n")
        assert [line for line in lines if line.lstrip().startswith("::")] == []
        assert [line for line in lines if "##[" in line] == []
        fences = [line.strip() for line in lines if FENCE.match(line)]
        assert set(fences) <= OUR_FENCES
        assert len(fences) % 2 == 0
        for raw in ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\u2028", "\u2029", "\x85"):
            assert raw not in output
        assert not BIDI.search(output)
        # Where the hostile string's first line lands, its second line is on the same line: no newline got
        # through. (A marker carries it percent-encoded; a mermaid label as entity codes.)
        carrying = [line for line in lines if "pwned" in line and not line.startswith("<!-- perfbot:")]
        decoded = [MERMAID_ENTITY.sub(lambda m: chr(int(m.group(1))), line) for line in carrying]
        assert all("::warning file=x::y" in line for line in decoded)
