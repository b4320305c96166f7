"""The offline adapter's answer to the action's `pull-request-head-sha`: an id standing for the
commit at the PR branch's head, new when the files change, the same when an update brings the
same files (as live: no new commit), none after a close; and the dispatches it keeps."""

from __future__ import annotations

import datetime as dt
import re

from bot.github.actions import PullRequestAction
from bot.github.observed import Observed
from bot.github.offline import OfflineGitHub
from bot.github.port import LeaseDispatcher, PullHeadTeller

NOW = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)


def github() -> OfflineGitHub:
    raw = {"repository": "o/r", "bot_login": "perfbot[bot]"}
    return OfflineGitHub(raw, Observed.model_validate(raw), NOW)


def test_the_head_moves_with_the_files_and_stays_with_the_same_ones() -> None:
    port = github()
    assert isinstance(port, PullHeadTeller)
    assert port.pull_head() is None
    create = PullRequestAction(operation="create", branch="perfbot/update", title="t", body="b", files={"a": "1"})
    number = port.pull_request(create)
    first = port.pull_head()
    assert first is not None
    assert re.fullmatch(r"[0-9a-f]{40}", first)
    update = create.model_copy(update={"operation": "update", "number": number})
    port.pull_request(update.model_copy(update={"body": "another body"}))
    assert port.pull_head() == first  # the same files: no new commit
    port.pull_request(update.model_copy(update={"files": {"a": "2"}}))
    second = port.pull_head()
    assert second not in (None, first)
    assert port.raw["pulls"][0]["head_sha"] == second
    port.pull_request(update.model_copy(update={"operation": "close"}))
    assert port.pull_head() is None


def test_a_head_is_its_contents_and_not_its_time() -> None:
    """A run that resumes after a crash makes the head a clean run makes."""
    create = PullRequestAction(operation="create", branch="perfbot/update", title="t", body="b", files={"a": "1"})
    one, two = github(), github()
    one.pull_request(create)
    two.pull_request(create.model_copy(update={"files": {"a": "x"}}))
    later = OfflineGitHub(dict(github().raw), github().observed, NOW + dt.timedelta(days=1))
    later.pull_request(create)
    assert one.pull_head() == later.pull_head() != two.pull_head()


def test_each_dispatch_is_kept() -> None:
    port = github()
    assert isinstance(port, LeaseDispatcher)
    port.dispatch("perfbot-leases", {"leases": "perfbot/leases:leases.json"})
    port.dispatch("perfbot-leases", {"leases": "x:y"})
    assert port.raw["dispatches"] == [
        {
            "event_type": "perfbot-leases",
            "client_payload": {"leases": "perfbot/leases:leases.json"},
            "at": "2026-08-27T12:00:00Z",
        },
        {"event_type": "perfbot-leases", "client_payload": {"leases": "x:y"}, "at": "2026-08-27T12:00:00Z"},
    ]
