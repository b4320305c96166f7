"""The shipped config, loaded once, for the command steps' unit tests (the seed is `tests/conftest.py`'s)."""

from __future__ import annotations

import pytest

from bot.config import BotConfig, Settings


@pytest.fixture(scope="session")
def config(settings: Settings) -> BotConfig:
    return settings.config
