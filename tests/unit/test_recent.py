"""A bounded memo keeps the last `size` results, the least recently used going out first."""

from __future__ import annotations

from bot.recent import Recent


def test_the_least_recently_used_result_goes_first() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.keep("a", 1)
    recent.keep("b", 2)
    assert recent.get("a") == 1  # used: now newer than b
    recent.keep("c", 3)
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == (1, None, 3)


def test_a_result_kept_again_replaces_the_old_one_and_counts_once() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.keep("a", 1)
    recent.keep("a", 2)
    recent.keep("b", 3)
    assert (recent.get("a"), recent.get("b")) == (2, 3)
