"""Each snapshot unit test starts with the per-record cache of cell checks (`cells`) empty.

Otherwise a record checked by an earlier test (or by mutation testing's first, unmutated run in
the same process) answers from the cache, and a change to the checks behind it goes unnoticed.
"""

from __future__ import annotations

import pytest

from bot.snapshot import cells


@pytest.fixture(autouse=True)
def _empty_cell_check_cache() -> None:
    cells.clear_cell_cache()
