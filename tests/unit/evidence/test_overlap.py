"""dos-kernel's strict overlap rule, case by case."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.evidence.leases import Lease
from bot.evidence.overlap import LeaseIndex, collide, colliding, normalise, overlapping_pairs, overlaps
from tests.support.property_budget import examples


@pytest.mark.parametrize(
    ("glob", "prefix"),
    [
        ("internal/compute/cuda*", "internal/compute/cuda"),
        ("internal/model/**", "internal/model/"),
        ("**/*", ""),
        (" Internal\\Model\\** ", "internal/model/"),
        ("docs/_witnesses/x.json", "docs/_witnesses/x.json"),
    ],
)
def test_normalise(glob: str, prefix: str) -> None:
    assert normalise(glob) == prefix


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("internal/compute/cuda*", "internal/compute/**", True),  # the spec's worked example
        ("internal/model/**", "internal/modelengine/**", False),
        ("internal/model*", "internal/modelengine/**", True),
        ("docs/_witnesses/**", "internal/model/**", False),
        ("**/*", "anything/at/all", True),
        ("internal/cache*/**", "internal/cache-x/y", True),
    ],
)
def test_collide_is_symmetric(a: str, b: str, expected: bool) -> None:
    assert collide(a, b) is expected
    assert collide(b, a) is expected


def test_empty_regions_are_never_disjoint() -> None:
    assert overlaps([], ["docs/**"])
    assert overlaps(["docs/**"], [])
    assert not overlaps(["docs/**"], ["internal/**", "tools/**"])
    assert overlaps(["docs/**", "tools/x"], ["tools/**"])


_PATH_PARTS = st.sampled_from(["", "a", "ab", "a/", "a/b", "A\\b", "b/*", "a/b/**", " a", "[x]", "?", "*", "ab/c?"])


@settings(max_examples=examples(200), deadline=None)
@given(
    paths=st.lists(_PATH_PARTS, max_size=3),
    trees=st.lists(st.lists(_PATH_PARTS, max_size=3), max_size=6),
)
def test_the_lease_index_finds_exactly_the_leases_overlaps_finds(paths: list[str], trees: list[list[str]]) -> None:
    leases = [Lease(lane="l", loop_ts="t", holder=f"issue-{n}", tree=tuple(tree)) for n, tree in enumerate(trees)]
    expected = {n for n, lease in enumerate(leases) if overlaps(paths, lease.tree)}
    assert LeaseIndex(leases).positions(paths) == expected


def test_overlapping_pairs_names_each_path_and_lease_glob_that_meet() -> None:
    paths = ["internal/model/**", "docs/x.md", "tools/*"]
    tree = iter(["internal/**", "tools/run", "cmd/**"])  # any iterable: it is walked once per path
    assert overlapping_pairs(paths, tree) == [("internal/model/**", "internal/**"), ("tools/*", "tools/run")]


def test_colliding_keeps_overlapping_leases_held_for_another_issue_or_none() -> None:
    own = Lease(lane="own", loop_ts="t", holder="issue-7-a", tree=("internal/**",))
    other = Lease(lane="other", loop_ts="t", holder="issue-8-a", tree=("internal/model/**",))
    apart = Lease(lane="apart", loop_ts="t", holder="issue-9-a", tree=("docs/**",))
    unnamed = Lease(lane="unnamed", loop_ts="t", holder="someone", tree=("internal/x",))
    found = colliding(["internal/model/a.go", "internal/x"], 7, [own, other, apart, unnamed], r"issue-(\d+)")
    assert found == [other, unnamed]
