"""Shortening a bot text to a limit: the header stays whole, lines stay whole, the cut is said."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bodies import capped, fitted, most, most_within
from bot.github.markers import header, markers_in
from bot.render import Renderer
from tests.support.property_budget import examples

RENDERER = Renderer({"cut.md.j2": "… {{ omitted }} more characters (limit {{ limit }}).\n"})
HEADER = header(("command-reply", "7"), ("decision", "x" * 300))


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="ab `\n<!-@", max_size=5000), st.integers(min_value=1001, max_value=4000))
def test_a_capped_text_fits_keeps_its_header_and_cuts_at_a_line_end(rest: str, limit: int) -> None:
    text = f"{HEADER}\n{rest}"
    out = capped(text, limit, RENDERER)
    assert len(out) <= limit
    assert markers_in(out) == markers_in(text)
    if len(text) <= limit:
        assert out == text
    else:
        kept = out[len(HEADER) + 1 :].rsplit("\n\n… ", 1)[0]
        assert rest.startswith(kept)
        assert "\n" not in kept or rest[len(kept) :].startswith("\n") or not kept
        assert f"… {len(rest) - len(kept)} more characters (limit {limit})." in out


def test_fitted_shows_the_most_items_that_fit() -> None:
    def render(shown: int, _: Renderer = RENDERER) -> str:
        return "\n".join(["item " + "x" * 90] * shown + [f"and {100 - shown} more"])

    out = fitted(render, 100, 2000, RENDERER)
    assert out == render(20)  # 20 items of 96 characters and the count line fit in 2,000; 21 do not


def test_a_limit_past_githubs_still_cuts_at_githubs_65536_characters() -> None:
    def render(shown: int, _: Renderer = RENDERER) -> str:
        return "\n".join(["item " + "x" * 995] * shown + [f"and {100 - shown} more"])

    listed = fitted(render, 100, 100_000, RENDERER)
    assert listed == render(65)  # 65 items of 1,001 characters and the count line fit in 65,536; 66 do not
    text = f"{HEADER}\n" + "line\n" * 20_000
    assert len(capped(text, 100_000, RENDERER)) <= 65_536 < len(text)


LISTED = Renderer(
    {
        "cut.md.j2": "… {{ omitted }} more characters (limit {{ limit }}).\n",
        "list.md.j2": "Packets:\n{% for p in items %}- {{ p | line }}\n{% endfor %}"
        "{% if omitted %}… and {{ omitted }} more\n{% endif %}Done.\n",
    }
)


def listing(items: list[str]) -> Callable[[int, Renderer], str]:
    def render(shown: int, renderer: Renderer = LISTED) -> str:
        return renderer.render("list.md.j2", items=items[:shown], omitted=len(items) - shown)

    return render


@pytest.mark.parametrize("at", [0, 3, 9])
def test_one_oversized_item_is_cut_and_the_items_after_it_still_show(at: int) -> None:
    items = [f"packet-{n}" for n in range(10)]
    items[at] = "huge-" + "y" * 50_000
    out = fitted(listing(items), len(items), 2000, LISTED)
    assert len(out) <= 2000
    assert "… and" not in out  # every item shows: the huge one cut, none left out
    assert all(f"- packet-{n}\n" in out for n in range(10) if n != at)
    assert "- huge-yyy" in out
    assert "y…\n" in out
    assert out.endswith("Done.\n")


def test_items_that_are_only_many_are_left_out_whole_not_narrowed() -> None:
    items = [f"packet-{n}-" + "z" * 150 for n in range(100)]  # each a tenth of the limit or less
    out = fitted(listing(items), len(items), 2000, LISTED)
    assert "…\n" not in out.split("… and")[0]  # the items shown are whole
    shown = out.count("\n- ") + out.startswith("- ")
    assert 0 < shown < 100
    assert f"… and {100 - shown} more" in out


def test_an_oversized_item_among_too_many_is_cut_to_a_share_of_the_limit() -> None:
    items = ["huge-" + "y" * 50_000] + [f"packet-{n}-" + "z" * 150 for n in range(100)]
    out = fitted(listing(items), len(items), 2000, LISTED)
    assert len(out) <= 2000
    assert "- huge-" in out
    assert "- packet-0-" in out  # the items after the huge one still show, as many as fit
    assert "… and " in out


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=300),
    st.integers(min_value=-5, max_value=3000),
    st.integers(min_value=0, max_value=2000),
)
def test_most_within_finds_what_halving_finds_in_at_most_twice_its_calls(
    steps: list[int], limit: int, base: int
) -> None:
    lengths = [base + sum(steps[: n + 1]) for n in range(len(steps))]  # never falling as n grows
    calls: list[int] = []

    def length(n: int) -> int:
        calls.append(n)
        return lengths[n]

    high = len(lengths) - 2
    if high < 0:
        return
    assert most_within(length, limit, high) == most(lambda n: lengths[n] <= limit, high)
    assert all(0 <= n <= high + 1 for n in calls)
    assert len(calls) <= 2 + 2 * math.ceil(math.log2(high + 2))


def test_most_within_takes_few_calls_on_lengths_that_grow_evenly() -> None:
    calls: list[int] = []

    def length(n: int) -> int:
        calls.append(n)
        return 100 + 37 * n

    assert most_within(length, 10_000, 499) == most(lambda n: 100 + 37 * n <= 10_000, 499) == 267
    assert len(calls) <= 4
