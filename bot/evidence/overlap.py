"""Path overlap between write regions and lease trees (dos-kernel's strict disjointness rule).

dos-kernel 0.30 (`dos._tree.lane_trees_disjoint`) is the reference: an entry is normalised to a
prefix (backslashes to slashes, trimmed, case-folded, cut at the first glob metacharacter `*`, `?`
or `[`); two entries collide when one prefix starts with the other; empty entries are skipped, and
a region that is empty, or has only empty entries, overlaps everything.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from bot.evidence.leases import Lease
from bot.issue_refs import IssueKey

_METACHARACTER = re.compile(r"[*?\[]")


@lru_cache(maxsize=4096)
def normalise(glob: str) -> str:
    """Backslashes to slashes, trimmed, case-folded, cut at the first `*`, `?` or `[`: a path prefix."""
    prefix = glob.replace("\\", "/").strip().casefold()
    cut = _METACHARACTER.search(prefix)
    return prefix if cut is None else prefix[: cut.start()]


def collide(a: str, b: str) -> bool:
    """Two globs collide when one normalised prefix starts with the other ("" collides with all)."""
    first, second = normalise(a), normalise(b)
    return first.startswith(second) or second.startswith(first)


def overlaps(paths: Iterable[str], tree: Iterable[str]) -> bool:
    """True unless the two regions are strictly disjoint; an unknown (empty) region is not disjoint."""
    paths, tree = [p for p in paths if p], [t for t in tree if t]
    if not paths or not tree:
        return True
    return any(collide(a, b) for a in paths for b in tree)


def overlapping_pairs(paths: Iterable[str], tree: Iterable[str]) -> list[tuple[str, str]]:
    """Each (path, lease glob) pair that collides: where two regions meet, for people to read."""
    tree = list(tree)
    return [(a, b) for a in paths for b in tree if collide(a, b)]


def colliding(paths: Sequence[str], own_issue: IssueKey, leases: Iterable[Lease], holder_pattern: str) -> list[Lease]:
    """Live leases held for another issue (or for none) whose trees overlap `paths`."""
    return [lease for lease in leases if own_issue not in lease.issues(holder_pattern) and overlaps(paths, lease.tree)]


class LeaseIndex:
    """Leases indexed by the normalised prefixes of their trees, so finding the leases that overlap
    a region costs its prefixes' lengths and the matches, not one test per lease.

    Two prefixes collide when one starts with the other: the lease prefixes a region prefix starts
    with are among its own prefixes (looked up one length at a time), and those that start with it
    are a contiguous run of the sorted prefixes. A lease with an empty tree overlaps everything.
    """

    def __init__(self, leases: Iterable[Lease]) -> None:
        self.leases = tuple(leases)
        self._everywhere: list[int] = []
        self._by_prefix: dict[str, list[int]] = {}
        for position, lease in enumerate(self.leases):
            prefixes = {normalise(glob) for glob in lease.tree if glob}
            if not prefixes:
                self._everywhere.append(position)
            for prefix in prefixes:
                self._by_prefix.setdefault(prefix, []).append(position)
        self._sorted = sorted(self._by_prefix)
        # The lengths the lease prefixes come in: a region prefix is cut only at these to look its
        # own prefixes up (a few lengths, where every length up to its own would be tens).
        self._lengths = sorted({len(prefix) for prefix in self._by_prefix})

    def positions(self, paths: Iterable[str]) -> set[int]:
        """The positions of the leases `overlaps(paths, lease.tree)` is true for."""
        prefixes = {normalise(path) for path in paths if path}
        if not prefixes:
            return set(range(len(self.leases)))
        found = set(self._everywhere)
        for prefix in prefixes:
            for length in self._lengths:
                if length > len(prefix):
                    break
                found.update(self._by_prefix.get(prefix[:length], ()))
            at = bisect.bisect_left(self._sorted, prefix)
            while at < len(self._sorted) and self._sorted[at].startswith(prefix):
                found.update(self._by_prefix[self._sorted[at]])
                at += 1
        return found
