"""Bot texts within GitHub's body limit: whole when they fit, else shortened with the rest summarised.

GitHub refuses a comment or pull request body over 65,536 characters, so a text perfbot cannot
shorten would fail its write on every run. Every text perfbot posts passes through here, kept
under the smaller of `commands.max_body_chars` and that limit (the config refuses a larger
setting, and the limit holds here too for a caller that passes one):

- `fitted`: a text with a list shows as many of its items as fit; its template says how many
  more there are (reply lines, derivation reasons, packets, PR changes);
- `capped`: a text still too long (one huge field) keeps its marker header whole, then as many
  whole lines as fit, then one line that says how much was left out (`templates/cut.md.j2`).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.github.actions import GITHUB_BODY_LIMIT
from bot.github.markers import split_header
from bot.render import Renderer

CUT_TEMPLATE = "cut.md.j2"


def fitted(render: Callable[[int], str], count: int, limit: int, renderer: Renderer) -> str:
    """The rendering that shows the most of `count` items and fits; `render(n)` shows the first n.

    A longer list renders longer, so a binary search finds the most that fit in log2(count) renders.
    """
    limit = min(limit, GITHUB_BODY_LIMIT)
    whole = render(count)
    if len(whole) <= limit:
        return whole
    low, high = 0, count - 1
    while low < high:
        middle = (low + high + 1) // 2
        if len(render(middle)) <= limit:
            low = middle
        else:
            high = middle - 1
    return capped(render(low), limit, renderer)


def capped(text: str, limit: int, renderer: Renderer) -> str:
    """`text` if it fits, else its header, the lines of the rest that fit, and a line saying what was cut."""
    limit = min(limit, GITHUB_BODY_LIMIT)
    if len(text) <= limit:
        return text
    header, rest = split_header(text)
    worst_note = renderer.render(CUT_TEMPLATE, omitted=len(rest), limit=limit)
    room = max(0, limit - len(header) - len(worst_note) - 2)
    kept = rest[:room]
    if "\n" in kept and len(rest) > room:
        kept = kept[: kept.rindex("\n")]  # a cut line could leave an open span; end at a whole line
    note = renderer.render(CUT_TEMPLATE, omitted=len(rest) - len(kept), limit=limit)
    return f"{header}{kept.rstrip()}\n\n{note}"
