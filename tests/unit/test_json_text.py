"""`json_text.indented` writes exactly what `json.dumps(value, indent=2)` writes, for any value."""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.json_text import indented
from tests.support.property_budget import examples

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),  # lone surrogates and every other character, escaped as ASCII
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        # Keys the standard library writes as strings, and which this writer hands back to it.
        st.dictionaries(st.one_of(st.integers(), st.booleans(), st.none(), st.floats()), inner, max_size=3),
    ),
    max_leaves=24,
)


class Text(str):
    """A subclass the standard library writes by its own rules."""


@settings(max_examples=examples(500), deadline=None)
@given(VALUES)
@example({"a": [], "b": {}, "c": [[], {}], "d": -0.0, "e": 1e300})
@example([Text("x"), OrderedDict(a=1), True, 1])
def test_indented_is_json_dumps_with_an_indent_of_two(value: Any) -> None:
    assert indented(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize(
    "value", [pytest.param("circle", id="a circle"), pytest.param({"a": object()}, id="an object")]
)
def test_a_value_json_cannot_write_fails_as_json_dumps_fails(value: Any) -> None:
    if value == "circle":
        value = []
        value.append(value)
    with pytest.raises((ValueError, TypeError)) as wanted:
        json.dumps(value, indent=2)
    with pytest.raises(wanted.type, match=re.escape(str(wanted.value))):
        indented(value)
