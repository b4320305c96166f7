"""Bot texts within GitHub's body limit: whole when they fit, else shortened with the rest summarised.

GitHub refuses a comment or pull request body over 65,536 characters, so a text perfbot cannot
shorten would fail its write on every run. Every text perfbot posts passes through here, kept
under the smaller of `commands.max_body_chars` and that limit (the config refuses a larger
setting, and the limit holds here too for a caller that passes one):

- `fitted`: a text with a list shows as many of its items as fit; its template says how many
  more there are (reply lines, derivation reasons, packets, PR changes). An oversized item (one
  that alone takes more than `OVERSIZED` of the limit) is cut, not left out: the texts from
  outside are narrowed (`Renderer.narrowed`) to the widest that shows every item (or, with too
  many items for that, to a share of the limit each), so one huge name or reason never blanks a
  list or hides the items after it;
- `capped`: a text still too long (one huge field) keeps its marker header whole, then as many
  whole lines as fit, then one line that says how much was left out (`templates/cut.md.j2`).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.github.actions import GITHUB_BODY_LIMIT
from bot.github.markers import split_header
from bot.render import Renderer

CUT_TEMPLATE = "cut.md.j2"
# An item that alone takes more than this share of a body's limit is oversized: it is cut, not left out.
OVERSIZED = 0.1
# Narrower than this, a cut text says too little to be worth showing; the item is then left out.
NARROWEST = 40

Render = Callable[[int, Renderer], str]


def fitted(render: Render, count: int, limit: int, renderer: Renderer) -> str:
    """The rendering that shows the most of `count` items and fits; `render(n, r)` shows the first
    n with renderer `r`. A longer list (or a wider renderer) renders longer, so searches find the
    most items (`most_within`), and the widest narrowing (`most`), in a logarithmic number of renders."""
    limit = min(limit, GITHUB_BODY_LIMIT)
    whole = render(count, renderer)
    if len(whole) <= limit:
        return whole
    texts = {count: whole}

    def first(n: int) -> str:
        """The rendering of the first n items, each rendered once (rendering is pure)."""
        if n not in texts:
            texts[n] = render(n, renderer)
        return texts[n]

    fits = most_within(lambda n: len(first(n)), limit, count - 1)
    after = len(first(fits + 1)) - len(first(fits))
    if after <= limit * OVERSIZED:  # only many: the items after those that fit are counted, not shown
        return capped(first(fits), limit, renderer)
    # Texts cut to the widest that shows every item; when even that is too narrow to say anything,
    # to a share of the limit each, with as many items as then fit.
    width = most(lambda w: len(render(count, renderer.narrowed(w))) <= limit, limit)
    if width >= NARROWEST:
        return render(count, renderer.narrowed(width))
    narrow = renderer.narrowed(int(limit * OVERSIZED))
    shown = most(lambda n: len(render(n, narrow)) <= limit, count)
    return capped(render(shown, narrow), limit, renderer)


def most(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in 0..high that `fits` holds for (it holds for every n below one it holds for)."""
    low = 0
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def most_within(length: Callable[[int], int], limit: int, high: int) -> int:
    """`most(lambda n: length(n) <= limit, high)` for a `length` that never falls as n grows, found
    in fewer calls: a list's rendering grows about linearly with its items, so the guess is where
    the line through the nearest lengths known below and above meets the limit. A guess that
    leaves more than half of what was left is followed by a halving, so no `length` takes more
    than twice the calls of halving alone."""
    low, top = 0, high
    below, above = (0, length(0)), (high + 1, length(high + 1))
    halve = False
    while low < top and below[1] <= limit:
        middle = (low + top + 1) // 2
        if not halve and above[1] > below[1]:
            guess = below[0] + (limit - below[1]) * (above[0] - below[0]) // (above[1] - below[1])
            middle = min(max(guess, low + 1), top)
        left = top - low
        measured = length(middle)
        if measured <= limit:
            low, below = middle, (middle, measured)
        else:
            top, above = middle - 1, (middle, measured)
        halve = not halve and (top - low) * 2 > left
    return low


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
