"""Short words drawn from a few character classes, for property tests.

`st.from_regex(r"[a-z][a-z0-9.-]{0,12}", fullmatch=True)` draws the same strings, but builds each
one through its regex machinery: drawing ten took 3.5 times as long as this does. A snapshot
draws dozens of identifiers: drawing them was two fifths of a store property's time.
"""

from __future__ import annotations

import string

from hypothesis import strategies as st

LOWER = string.ascii_lowercase
DIGITS = string.digits


def words(first: str, rest: str, most: int, last: str = "") -> st.SearchStrategy[str]:
    """One character of `first`, up to `most` of `rest`, then one of `last` if it is given."""
    parts = [st.sampled_from(first), st.text(rest, max_size=most)]
    if last:
        parts.append(st.sampled_from(last))
    return st.tuples(*parts).map("".join)
