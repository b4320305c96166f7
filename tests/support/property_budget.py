"""How many examples a property test runs, by hypothesis profile (registered in `tests/conftest.py`).

- `bounded` (the default: every local and CI run): each property runs at most `BOUNDED` examples,
  or fewer where the test says so (an example that runs whole reconciles costs a second), so the
  whole suite stays within its time budget.
- `thorough` (`HYPOTHESIS_PROFILE=thorough` or `--hypothesis-profile=thorough`: the weekly mutation
  workflow, or by hand): each property runs its full count, e.g. 1,000 generated inputs per fuzzed
  reader.

A test states its full count, and its bounded one if smaller than `BOUNDED`:
`@settings(max_examples=examples(1000), ...)`, `examples(40, bounded=8)`. A test with no count of
its own runs the profile's `max_examples`.
"""

from __future__ import annotations

import os

PROFILE_VARIABLE = "HYPOTHESIS_PROFILE"
BOUNDED = 50
# What a test without a count of its own ran before the profiles: hypothesis's own default.
THOROUGH_DEFAULT = 100


def profile() -> str:
    """The profile `tests/conftest.py` loads: the one `HYPOTHESIS_PROFILE` names."""
    return "thorough" if os.environ.get(PROFILE_VARIABLE) == "thorough" else "bounded"


def examples(full: int, bounded: int = BOUNDED) -> int:
    """`full` under the thorough profile as loaded (by `HYPOTHESIS_PROFILE`, or by pytest's
    `--hypothesis-profile=thorough`, which hypothesis loads after it), at most `bounded` otherwise."""
    from hypothesis import settings

    return full if settings.get_current_profile_name() == "thorough" else min(full, bounded)
