"""Ids that only look like a known id: found by their skeleton, never taken for it."""

from __future__ import annotations

import pytest

from bot.commands.effects import lookalike, skeleton

KNOWN = ["fix-m1", "mac.m5/exact", "ma", "c2"]


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        pytest.param("ﬁx-m1", "fix-m1", id="a ligature (NFKC)"),
        pytest.param("ｆｉｘ－ｍ１", "fix-m1", id="full-width forms (NFKC)"),
        pytest.param("fix-m₁", "fix-m1", id="a subscript digit (NFKC)"),
        pytest.param("mа", "ma", id="a Cyrillic a"),
        pytest.param("mα", "ma", id="a Greek alpha"),
        pytest.param("МА", None, id="upper case is another id, not a look-alike"),
        pytest.param("fix–m1", "fix-m1", id="an en dash"),
        pytest.param("mac․m5∕exact", "mac.m5/exact", id="a one-dot leader and a division slash"),
        pytest.param("má", "ma", id="a mark over a letter"),
        pytest.param("cϲ", None, id="a look-alike of no known id"),
        pytest.param("ma", None, id="the known id itself"),
        pytest.param("fix-m2", None, id="another ASCII id"),
    ],
)
def test_a_lookalike_names_the_known_id_it_imitates(given: str, meant: str | None) -> None:
    assert lookalike(given, KNOWN) == meant


def test_the_skeleton_of_an_ascii_id_is_the_id() -> None:
    assert skeleton("mac.m5-exact_p32/t64") == "mac.m5-exact_p32/t64"
    assert skeleton("ОРС") == "OPC"
