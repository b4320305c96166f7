"""The live adapter's label creation against the GitHub double: a label made by someone else since
the read counts as created (GitHub's 422 `already_exists`), and any other refusal is said."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.config import load_settings
from bot.context import RunContext
from bot.github.actions import CreateLabelAction
from bot.github.live.adapter import Hooks, open_live
from bot.github.port import GitHubPort, NativeRefused
from bot.reconcile import gather
from tests.github_double import DEFAULT_TOKEN, GitHubDouble
from tests.github_double.protocol import error_body
from tests.support.backends import API_URL, NOW, FakeClock, double_on
from tests.support.harness import Repo

LABELS = r"/repos/[^/]+/[^/]+/labels"


@contextmanager
def live_port(sandbox: Repo, double: GitHubDouble) -> Iterator[GitHubPort]:
    settings = load_settings(sandbox.config)
    clock = FakeClock()
    hooks = Hooks(wait=clock.wait, monotonic=clock.monotonic, transport=double.transport())
    context = RunContext(token=DEFAULT_TOKEN, repository=double.world.repository, api_url=API_URL)
    with open_live(context, gather.read_scope(settings, gather.snapshot(settings)), NOW, hooks) as port:
        yield port


def label_posts(double: GitHubDouble) -> list[int | None]:
    """The status of each label creation the double answered."""
    return [r["status"] for r in double.requests if r["method"] == "POST" and r["path"].endswith("/labels")]


def test_a_label_someone_made_since_the_read_counts_as_created(sandbox: Repo) -> None:
    double = double_on(sandbox.state_path, sandbox.root)
    with live_port(sandbox, double) as port:
        port.create_label(CreateLabelAction(name="perf: blocked", color="b60205", description="made by the run"))
        # Another hand made it too (GitHub names labels in any case as one): 422 already_exists, no error.
        port.create_label(CreateLabelAction(name="Perf: Blocked", color="000000", description="made again"))
    assert label_posts(double) == [201, 422]
    made = [label for label in double.state()["labels"] if label["name"].lower() == "perf: blocked"]
    assert [(label["name"], label["color"]) for label in made] == [("perf: blocked", "b60205")]


def test_any_other_refusal_to_create_a_label_is_said(sandbox: Repo) -> None:
    double = double_on(sandbox.state_path, sandbox.root)
    invalid = {"resource": "Label", "code": "invalid", "field": "color"}
    double.faults.answer("POST", LABELS, 422, error_body(422, "Validation Failed", "", errors=[invalid]))
    with live_port(sandbox, double) as port, pytest.raises(NativeRefused, match="creating label perf: blocked"):
        port.create_label(CreateLabelAction(name="perf: blocked", color="b60205", description=""))
    assert label_posts(double) == [422]
    assert all(label["name"] != "perf: blocked" for label in double.state()["labels"])
