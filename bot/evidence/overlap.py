"""Path overlap between write regions and lease trees (dos-kernel's strict disjointness rule)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from bot.evidence.leases import Lease


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


def overlapping_pairs(paths: Iterable[str], tree: Iterable[str]) -> list[tuple[str, str]]:
    """Each (path, lease glob) pair that collides: where two regions meet, for people to read."""
    tree = list(tree)
    return [(a, b) for a in paths for b in tree if collide(a, b)]


def colliding(paths: Sequence[str], own_issue: int, leases: Iterable[Lease], holder_pattern: str) -> list[Lease]:
    """Live leases held for another issue (or for none) whose trees overlap `paths`."""
    return [lease for lease in leases if lease.issue(holder_pattern) != own_issue and overlaps(paths, lease.tree)]
