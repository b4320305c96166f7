"""Shared fixtures: the repository's own config, templates and snapshot."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.paths import ROOT
from tests.support.property_budget import BOUNDED, THOROUGH_DEFAULT, profile
from tests.support.scratch_space import memory_folder

# The rest is imported by the fixtures that use it: under `pytest -n`, the controlling process loads
# this file before it starts the workers but runs no test, so what it imports only delays them.
if TYPE_CHECKING:
    from graphql import GraphQLSchema

    from bot.config import Settings
    from bot.render import Renderer
    from bot.snapshot.model import Snapshot
    from tests.support.harness import Repo, SharedTemplates


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Property tests' example counts (tests/support/property_budget.py), before their modules are collected.
    The parent is the profile hypothesis chose itself (`ci` when CI is set: derandomized, no example
    database). No deadline: speed is measured in benchmarks/, never asserted in a test."""
    keep_bytecode()
    temporary_files_in_memory()
    from hypothesis import settings

    settings.register_profile("bounded", settings(), max_examples=BOUNDED, deadline=None)
    settings.register_profile("thorough", settings(), max_examples=THOROUGH_DEFAULT, deadline=None)
    settings.load_profile(profile())


def keep_bytecode() -> None:
    """Compiled modules are kept, for this process and the processes it starts, where Python keeps
    them by default: each source's `__pycache__` (git ignores it). Where the environment asks for no
    bytecode (`PYTHONDONTWRITEBYTECODE`, as this machine's and CI's do), every process the tests
    start (perfbot, the playground, pytest in the recipes' copy) compiled each module it imports
    again, and each worker rewrote every test module again on every run. Kept in one folder of
    their own instead (`PYTHONPYCACHEPREFIX`), the standard library's and the installed packages'
    compiled modules were not found either, and were compiled again into it: on a machine with
    none kept yet (CI's), 17 s more of the suite's wall time (225.2 s against 208.3 s) and 29 s
    more CPU."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


def temporary_files_in_memory() -> None:
    """`tmp_path` and every temporary file, of this process and the ones it starts (the workers
    under `pytest -n`, perfbot, git), in a filesystem in memory when there is one with room
    (`tests/support/scratch_space.py`). Called before pytest first asks for its temporary folder."""
    folder = memory_folder(os.environ)
    if folder is not None:
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = None  # the standard library reads TMPDIR again on its next call


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked `slow` (each tens of seconds, alone) first, in their order, then the rest in
    theirs: `pytest -n` hands the first quarter of the tests out in turn, so they start at once, one
    beside another, and the many short tests fill in around them instead of one of them running
    alone at the end. Every worker sorts alike, as xdist needs."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def settings() -> Settings:
    from bot.config import load_settings

    return load_settings(ROOT / "config" / "perfbot.yaml")


@pytest.fixture(scope="session")
def renderer(settings: Settings) -> Renderer:
    from bot.render import Renderer

    return Renderer.from_directory(settings.templates_path)


@pytest.fixture(scope="session")
def seed_text() -> str:
    return (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def seed(settings: Settings) -> Snapshot:
    """The seed snapshot, loaded and checked as a run loads it, once per process: the model is
    frozen throughout (tuples of frozen records), so no test can change what another one reads."""
    from bot.reconcile import gather

    return gather.snapshot(settings).model


@pytest.fixture(scope="session")
def shared_templates() -> SharedTemplates:
    """The templates every sandbox links to (`tests/support/harness.py`)."""
    from tests.support.harness import SharedTemplates

    return SharedTemplates()


@pytest.fixture
def sandbox(tmp_path: Path, shared_templates: SharedTemplates) -> Iterator[Repo]:
    """A throwaway copy of the repository with the example offline state."""
    from tests.support.harness import Repo

    yield Repo(tmp_path, templates=shared_templates.path)
    shared_templates.check()


@pytest.fixture(autouse=True)
def outside_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run the same inside a GitHub Actions job: no runner file or event from the environment."""
    for name in (
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
        "GITHUB_EVENT_NAME",
        "GITHUB_EVENT_PATH",
        "GITHUB_SERVER_URL",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def double_held_to_openapi() -> Iterator[None]:
    """A test fails after any exchange with the GitHub double that GitHub's OpenAPI description does
    not allow, even one whose error perfbot caught and reported (tests/github_double/openapi_check.py)."""
    yield
    check = sys.modules.get("tests.github_double.openapi_check")  # not imported: no exchange was checked
    if check is not None:
        check.assert_none_kept()


@pytest.fixture(params=["offline", "live"])
def adapter(request: pytest.FixtureRequest) -> str:
    """Each adapter of the GitHub port: the state file, and the live adapter over the GitHub double."""
    name: str = request.param
    return name


@pytest.fixture
def either(tmp_path: Path, adapter: str, shared_templates: SharedTemplates) -> Iterator[Repo]:
    """The sandbox, reconciled through `adapter`."""
    from tests.support.harness import Repo

    yield Repo(tmp_path, adapter, templates=shared_templates.path)
    shared_templates.check()


@pytest.fixture(scope="session")
def github_schema() -> GraphQLSchema:
    """GitHub's published GraphQL schema; with CI=true its absence fails, elsewhere it skips."""
    from tests.github_double import published

    schema = published.load()
    if schema is None:
        why = f"GitHub's GraphQL schema is not at {published.location()}; run .ci/fetch-graphql-schema to fetch it"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return schema
