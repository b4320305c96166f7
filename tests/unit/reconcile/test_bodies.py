"""Shortening a bot text to a limit: the header stays whole, lines stay whole, the cut is said."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bodies import capped, fitted
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
    def render(shown: int) -> str:
        return "\n".join(["item " + "x" * 90] * shown + [f"and {100 - shown} more"])

    out = fitted(render, 100, 2000, RENDERER)
    assert out == render(20)  # 20 items of 96 characters and the count line fit in 2,000; 21 do not


def test_a_limit_past_githubs_still_cuts_at_githubs_65536_characters() -> None:
    def render(shown: int) -> str:
        return "\n".join(["item " + "x" * 995] * shown + [f"and {100 - shown} more"])

    listed = fitted(render, 100, 100_000, RENDERER)
    assert listed == render(65)  # 65 items of 1,001 characters and the count line fit in 65,536; 66 do not
    text = f"{HEADER}\n" + "line\n" * 20_000
    assert len(capped(text, 100_000, RENDERER)) <= 65_536 < len(text)
