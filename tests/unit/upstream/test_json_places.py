"""Where each value of a JSON text is (`bot.upstream.json_places`): members at their key, items at
their value, a path the text lacks at the nearest value around it."""

from __future__ import annotations

import json

import pytest

from bot.upstream.json_places import Places

TEXT = """{
  "schema": "x",
  "list": [1, {"inner": null, "deep": ["a", "b"]}, [true, false]],
  "tricky \\"key\\"": {"brackets": "[{,:}]", "escaped": "\\\\"},
  "empty": {}, "none": []
}
"""


def test_the_text_is_json() -> None:
    assert json.loads(TEXT)['tricky "key"'] == {"brackets": "[{,:}]", "escaped": "\\"}


@pytest.mark.parametrize(
    ("loc", "place"),
    [
        ((), (1, 1)),
        (("schema",), (2, 3)),
        (("list",), (3, 3)),
        (("list", 0), (3, 12)),
        (("list", 1), (3, 15)),
        (("list", 1, "inner"), (3, 16)),
        (("list", 1, "deep"), (3, 31)),
        (("list", 1, "deep", 0), (3, 40)),
        (("list", 1, "deep", 1), (3, 45)),
        (("list", 2), (3, 52)),
        (("list", 2, 1), (3, 59)),
        (('tricky "key"',), (4, 3)),
        (('tricky "key"', "brackets"), (4, 22)),
        (('tricky "key"', "escaped"), (4, 44)),
        (("empty",), (5, 3)),
        (("none",), (5, 16)),
    ],
)
def test_each_value_is_located(loc: tuple[str | int, ...], place: tuple[int, int]) -> None:
    assert Places(TEXT).locate(loc) == place


@pytest.mark.parametrize(
    ("loc", "place"),
    [
        (("missing",), (1, 1)),
        (("list", 1, "missing"), (3, 15)),
        (("list", 7), (3, 3)),
        (("list", 1, "deep", 5, "x"), (3, 31)),
        (("none", 0), (5, 16)),
        (("schema", "under a string"), (2, 3)),
    ],
)
def test_a_path_the_text_lacks_is_located_at_the_value_around_it(
    loc: tuple[str | int, ...], place: tuple[int, int]
) -> None:
    assert Places(TEXT).locate(loc) == place


def test_columns_count_characters_not_bytes() -> None:
    text = '{"é": 1,\n"ü": {"a": 2}}'
    assert Places(text).locate(("ü", "a")) == (2, 7)
    assert Places(text).locate(("é",)) == (1, 2)


def test_an_array_at_the_top_and_a_scalar() -> None:
    assert Places('[{"a": 1}, 2]').locate((1,)) == (1, 12)
    assert Places('[{"a": 1}, 2]').locate((0, "a")) == (1, 3)
    assert Places("  7").locate(()) == (1, 1)


def test_a_key_with_a_lone_surrogate_is_located_by_its_object() -> None:
    text = '{"o": {"\\ud800": 1}}'
    assert Places(text).locate(("o", "\ufffd")) == (1, 2)
