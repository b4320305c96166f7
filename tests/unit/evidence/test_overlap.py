"""dos-kernel's strict overlap rule, case by case."""

from __future__ import annotations

import pytest

from bot.evidence.overlap import collide, normalise, overlaps


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
