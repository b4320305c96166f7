"""Two runs planned from the same observations: the second detects the first one's comments (#10 item 18)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

from bot.config import load_settings
from bot.github.actions import EditCommentAction
from bot.github.markers import markers_in
from bot.github.offline import OfflineGitHub
from bot.github.port import MarkerRereader
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from bot.reconcile.plan import Plan
from tests.support.faults import Faulty
from tests.support.harness import Repo

NOW = dt.datetime(2026, 8, 29, 9, tzinfo=dt.UTC)  # two constraints are overdue for review


def prepared(sandbox: Repo) -> Path:
    """A command to answer, two overdue reviews, and a lease gone: one packet lost it, one is ready."""
    sandbox.reply_to_all()  # a reply among the comments the second run must not post again
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 9497, "alice", "/perf block profile.real-cuda waiting for an A100 window")
    leases = sandbox.root / "released.json"
    leases.write_text("[]", encoding="utf-8")  # the 9420 lease that held cuda.q8_1-numerical-gate is gone
    return leases


def plan_from(sandbox: Repo, leases: Path) -> Plan:
    settings = load_settings(sandbox.config)
    return decide(gather.inputs(settings, OfflineGitHub.open(sandbox.state_path, NOW).observe(), NOW, leases))


def bot_markers(sandbox: Repo, before: Counter[tuple[str, str]] | None = None) -> Counter[tuple[str, str]]:
    """The markers on the bot's comments, less those `before` counted (the example state's records)."""
    bodies = [c["body"] for c in sandbox.state()["comments"] if c["user"] == "perfbot[bot]"]
    found = Counter(m for body in bodies for m in markers_in(body) if m[0] != "decision")
    return found - (before or Counter())


def test_the_second_of_two_runs_planned_from_the_same_state_posts_nothing_twice(sandbox: Repo) -> None:
    leases = prepared(sandbox)
    first, second = plan_from(sandbox, leases), plan_from(sandbox, leases)  # both read before either wrote
    topics = sorted(c.topic for c in first.comments())
    assert topics == ["command-reply", "lease-lost", "packet-ready", "review-overdue", "review-overdue"]
    # The released lease clears #8635's blocker: its link goes, and the program's record, edited in
    # place, says so (an edit is repeatable: the second run may make it again).
    (edit,) = [a for a in first.actions if isinstance(a, EditCommentAction)]
    assert edit.topic == "native-links"
    assert "because the blocker `cuda.cache-weight-residency` released its lease" in edit.body
    before = bot_markers(sandbox)
    executor.apply(first, OfflineGitHub.open(sandbox.state_path, NOW), budget=1000)
    after_first = sandbox.state_path.read_text(encoding="utf-8")
    report = executor.apply(second, OfflineGitHub.open(sandbox.state_path, NOW), budget=1000)
    assert report.superseded is not None
    assert report.superseded.topic == "command-reply"
    assert [a.kind for a in report.done] == ["react"]  # 👀 again: GitHub keeps one reaction per user and kind
    assert sandbox.state_path.read_text(encoding="utf-8") == after_first
    assert set(bot_markers(sandbox, before).values()) == {1}
    third = plan_from(sandbox, leases)
    assert third.comments() == []


class Blind(Faulty):
    """A port wrapper that cannot re-read the bot's comments (a protocol member set to None is absent)."""

    headers_now = None  # type: ignore[assignment]


def test_without_the_capability_the_executor_writes_as_planned(sandbox: Repo) -> None:
    """A port that cannot re-read markers (the fault wrapper here) is not asked: the concurrency group is the guard."""
    leases = prepared(sandbox)
    first, second = plan_from(sandbox, leases), plan_from(sandbox, leases)
    before = bot_markers(sandbox)
    executor.apply(first, OfflineGitHub.open(sandbox.state_path, NOW), budget=1000)
    port = Blind(OfflineGitHub.open(sandbox.state_path, NOW))
    seen_as: object = port  # what the executor's runtime check sees, not the class's declared methods
    assert not isinstance(seen_as, MarkerRereader)
    report = executor.apply(second, port, budget=1000)
    assert report.superseded is None
    assert max(bot_markers(sandbox, before).values()) == 2
