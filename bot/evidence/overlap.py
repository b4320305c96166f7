"""Path overlap between write regions and lease trees (dos-kernel's strict disjointness rule)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=4096)
def normalise(glob: str) -> str:
    """Backslashes to slashes, trimmed, case-folded, cut at the first `*`: a path prefix."""
    prefix = glob.replace("\\", "/").strip().casefold()
    star = prefix.find("*")
    return prefix if star < 0 else prefix[:star]


def collide(a: str, b: str) -> bool:
    """Two globs collide when one normalised prefix starts with the other ("" collides with all)."""
    first, second = normalise(a), normalise(b)
    return first.startswith(second) or second.startswith(first)


def overlaps(paths: Iterable[str], tree: Iterable[str]) -> bool:
    """True unless the two regions are strictly disjoint; an empty region is not disjoint."""
    paths, tree = list(paths), list(tree)
    if not paths or not tree:
        return True
    return any(collide(a, b) for a in paths for b in tree)
