"""The seed snapshot and the shipped config, loaded once, for the command steps' unit tests."""

from __future__ import annotations

import pytest

from bot.config import BotConfig, Settings
from bot.reconcile import gather
from bot.snapshot.model import Snapshot


@pytest.fixture(scope="session")
def seed(settings: Settings) -> Snapshot:
    return gather.snapshot(settings).model


@pytest.fixture(scope="session")
def config(settings: Settings) -> BotConfig:
    return settings.config
