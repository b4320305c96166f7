"""The shipped config, loaded once, for the command steps' unit tests (the seed is `tests/conftest.py`'s),
and `line_starts`' patterns built afresh in each test module, from the code as it is then."""

from __future__ import annotations

import pytest

from bot.commands import browser_parse
from bot.config import BotConfig, Settings


@pytest.fixture(scope="session")
def config(settings: Settings) -> BotConfig:
    return settings.config


@pytest.fixture(scope="module", autouse=True)
def fresh_patterns() -> None:
    """`line_starts._passing` keeps each pattern it builds; a process that built them before
    (mutation testing forks one per mutant) would otherwise test patterns of other code."""
    browser_parse._passing.cache_clear()
