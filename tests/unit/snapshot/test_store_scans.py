"""The whole-text scans the store makes before parsing find exactly what the plain patterns find."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.snapshot import store, store_outline
from tests.support.property_budget import examples

# Texts built from the characters the scans look at, so the cases they tell apart come up often.
_PIECES = st.sampled_from(
    ["[", "{", " ", ",", "\n", "\r", "\t", "|", ">", "-", "+", "7", "#", "a", "\x85", "\u2028", "\ud800"]
)
_TEXTS = st.lists(_PIECES, max_size=80).map("".join)

_DIFFERENT_IN_1_1 = re.compile("[\t\x85\u2028\u2029]|[|>][-+0-9]*#")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


@settings(max_examples=examples(300, bounded=100), deadline=None)
@given(text=_TEXTS)
def test_the_fast_checks_agree_with_the_patterns(text: str) -> None:
    assert store.different_in_1_1(text) == bool(_DIFFERENT_IN_1_1.search(text))
    assert store.has_lone_surrogate(text) == bool(_LONE_SURROGATE.search(text))
    lines = _LINE_END.split(text)
    assert store_outline.source_lines(text) == (lines[:-1] if lines and not lines[-1] else lines)


@settings(max_examples=examples(200, bounded=100), deadline=None)
@given(prefix=_TEXTS, run=st.integers(min_value=0, max_value=store.MAX_DEPTH + 3), suffix=_TEXTS)
def test_the_first_run_of_openers_is_found_where_the_pattern_finds_it(prefix: str, run: int, suffix: str) -> None:
    text = prefix + "[ " * run + suffix
    found, expected = store._opener_run(text), store._OPENERS.search(text)
    assert (found.span() if found else None) == (expected.span() if expected else None)
