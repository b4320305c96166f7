"""The incremental live read over the GitHub double: with an observation cache a run's one query
asks only for the issues changed since the cache's watermark, and decides exactly as a full read.

Each run here happens later on the double's clock than the one before (issues' `updatedAt` and
the `Date` of its answers follow that clock); every run decides at the same `NOW`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot import files
from bot.config import Settings, load_settings
from bot.context import RunContext
from bot.github.actions import (
    AssignAction,
    CommentAction,
    CreateLabelAction,
    LabelAction,
    LinkAction,
    PullRequestAction,
    ReactAction,
)
from bot.github.live import cache, query
from bot.github.live.adapter import Hooks, LiveGitHub, open_live
from bot.github.observed import Observed
from bot.github.port import GitHubError
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from bot.reconcile.plan import Plan
from tests.github_double import DEFAULT_TOKEN, GitHubDouble, activity
from tests.support.backends import API_URL, NOW, FakeClock
from tests.support.faults import Crash, Faulty
from tests.support.harness import Repo

COMMAND = "/perf review metal-resident-decode by 2026-09-04"


class Recording(httpx.BaseTransport):
    """The double's transport, keeping each request's body (to see which queries were sent)."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.bodies: list[bytes] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.read())
        return self.inner.handle_request(request)

    def queries(self) -> list[str]:
        return [str(json.loads(body)["query"]) for body in self.bodies if body.startswith(b'{"query"')]


@dataclasses.dataclass
class Site:
    """A repository on the double, a cache file, and the double's clock (moved on between runs)."""

    settings: Settings
    repo: Repo
    cache_file: Path
    moment: dt.datetime = NOW
    last: Recording | None = None
    last_double: GitHubDouble | None = None

    def later(self, minutes: int = 60) -> None:
        self.moment += dt.timedelta(minutes=minutes)

    def observe(self, cache_file: Path | None, fresh: frozenset[int] = frozenset()) -> tuple[Observed, Plan]:
        """A read and a decision that write nothing (the cache is renewed, when one is given)."""
        with self._port(cache_file, fresh) as port:
            observed = port.observe()
        return observed, decide(gather.inputs(self.settings, observed, NOW))

    def run(self, cache_file: Path | None = None, crash_after: int | None = None) -> int:
        """One run (read, decide, write everything); returns the writes made."""
        with self._port(cache_file) as port:
            plan = decide(gather.inputs(self.settings, port.observe(), NOW))
            counted = Faulty(port, crash_after=crash_after)
            executor.apply(plan, counted, budget=1000)
        return counted.writes

    def settle(self, cache_file: Path | None) -> None:
        """Runs an hour apart until one writes nothing, after the run that first dates every issue."""
        for attempt in range(6):
            self.later()
            if self.run(cache_file) == 0 and attempt > 0:
                return
        raise AssertionError("the runs never stopped writing")

    def requests(self) -> dict[str, int]:
        assert self.last_double is not None
        return self.last_double.kinds()

    def _port(self, cache_file: Path | None, fresh: frozenset[int] = frozenset()) -> Any:
        self.settings = load_settings(self.repo.config)
        double = GitHubDouble(state_path=self.repo.state_path, repo_dir=self.repo.root, clock=lambda: self.moment)
        self.last, self.last_double = Recording(double.transport()), double
        clock = FakeClock()
        hooks = Hooks(wait=clock.wait, monotonic=clock.monotonic, transport=self.last)
        context = RunContext(token=DEFAULT_TOKEN, repository=double.world.repository, api_url=API_URL)
        scope = gather.read_scope(self.settings, gather.snapshot(self.settings))
        return open_live(context, scope._replace(cache=cache_file, fresh=fresh), NOW, hooks)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    repo = Repo(tmp_path / "repo", "live")
    state = repo.state()
    state["permissions"] = {"alice": "write"}
    repo.write_state(state)
    return Site(load_settings(repo.config), repo, tmp_path / "cache" / "observed.json")


def copy_of(path: Path, where: Path) -> Path:
    shutil.copyfile(path, where)
    return where


def test_a_no_change_run_with_the_cache_is_one_query_that_reads_no_issue(site: Site) -> None:
    site.settle(site.cache_file)
    site.later()
    observed, _ = site.observe(site.cache_file)
    assert site.requests() == {"graphql": 1, "rest_read": 0, "rest_write": 0}
    assert site.last is not None
    (document,) = site.last.queries()
    assert "filterBy: {since: $since}" in document
    assert " issue(number:" not in document  # every tracked issue came from the cache
    full, _ = Site(site.settings, site.repo, site.cache_file, site.moment).observe(None)
    assert observed.model_dump() == full.model_dump()


def _new_command(repo: Repo) -> Callable[[Observed], bool]:
    repo.add_comment(7001, 8324, "alice", COMMAND)
    return lambda seen: any(c.id == 7001 for c in seen.comments)


def _closed(repo: Repo) -> Callable[[Observed], bool]:
    repo.set_issue(9497, state="closed", state_reason="completed")
    return lambda seen: seen.issues_by_number()[9497].state == "closed"


def _assigned(repo: Repo) -> Callable[[Observed], bool]:
    repo.set_issue(8635, assignees=["alice"])
    return lambda seen: seen.issues_by_number()[8635].assignees == ("alice",)


def _newly_tracked(repo: Repo) -> Callable[[Observed], bool]:
    repo.edit_snapshot("issue: 9498", "issue: 9600")
    state = repo.state()
    state["issues"].append({"number": 9600, "title": "a new packet", "state": "open", "assignees": ["alice"]})
    state["comments"].append(
        {"id": 7002, "issue": 9600, "user": "alice", "created_at": "2026-08-27T22:00:00Z", "body": "hello"}
    )
    repo.write_state(state)
    return lambda seen: 9600 in seen.issues_by_number() and any(c.id == 7002 for c in seen.comments)


@pytest.mark.parametrize("change", [_new_command, _closed, _assigned, _newly_tracked])
def test_a_change_is_seen_by_the_incremental_read_and_planned_as_a_full_read_plans(
    site: Site, change: Callable[[Repo], Callable[[Observed], bool]], tmp_path: Path
) -> None:
    site.settle(site.cache_file)
    _, before = site.observe(copy_of(site.cache_file, tmp_path / "before.json"))
    site.later()
    seen_in = change(site.repo)
    incremental, planned = site.observe(copy_of(site.cache_file, tmp_path / "incremental.json"))
    assert site.requests()["graphql"] == 1
    full, full_plan = site.observe(None)
    assert seen_in(incremental)
    assert planned.model_dump() == full_plan.model_dump()
    assert incremental.model_dump() == full.model_dump()
    assert planned.model_dump() != before.model_dump() or change is _assigned  # the change matters


def _state_without_dates(repo: Repo) -> dict[str, Any]:
    """The state but for the double's git objects and the times writes were made at."""
    state = repo.state()
    state.pop("git", None)
    for records in state.values():
        for record in records if isinstance(records, list) else ():
            record.pop("created_at", None)
            record.pop("updated_at", None)
    return state


@pytest.mark.parametrize("crash_after", [1, 2])
def test_a_crash_after_write_k_then_a_run_with_the_cache_equals_one_clean_run(
    site: Site, crash_after: int, tmp_path: Path
) -> None:
    """The crashed run's own writes (reactions do not move `updatedAt`) are read again next run."""
    site.repo.add_comment(101, 8325, "alice", "/perf complete mac.m1-streamed-q4k-no-copy result: accepted")
    site.repo.add_comment(102, 8324, "alice", COMMAND)
    commanded = site.repo.state_path.read_text(encoding="utf-8")
    site.run(site.cache_file)  # a first run with the cache: answers, proposes
    site.settle(site.cache_file)
    reference = _state_without_dates(site.repo)

    site.repo.state_path.with_name(site.repo.state_path.name + ".activity.json").unlink()
    site.cache_file.unlink()
    site.repo.state_path.write_text(commanded, encoding="utf-8")
    site.observe(site.cache_file)  # the cache of a first read, then a run that crashes
    site.later()
    with pytest.raises(Crash):
        site.run(site.cache_file, crash_after=crash_after)
    site.settle(site.cache_file)
    assert _state_without_dates(site.repo) == reference


@pytest.mark.parametrize(
    "spoil",
    [
        lambda text: text[: len(text) // 2],
        lambda text: "\xff" + text,
        lambda text: text.replace(f'"format":{cache.FORMAT}', f'"format":{cache.FORMAT + 1}'),
        lambda text: text.replace('"repository":"anthony-chaudhary/fak"', '"repository":"someone/else"'),
        lambda text: text.replace('"bot_login":"perfbot[bot]"', '"bot_login":"github-actions[bot]"'),
        lambda text: text.replace('"watermark":"2026-', '"watermark":"2025-'),
        lambda text: text.replace('"reads":"', '"reads":" ...IssueLinks'),
    ],
    ids=["truncated", "not-utf8", "other-version", "other-repository", "other-login", "old", "other-fields"],
)
def test_a_cache_that_cannot_be_used_is_a_full_read_with_a_warning(
    site: Site, spoil: Callable[[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    site.settle(site.cache_file)
    text = site.cache_file.read_text(encoding="utf-8").replace('"title":"', '"title":"cached ')
    spoiled = spoil(text)
    assert spoiled != text
    site.cache_file.write_text(spoiled, encoding="utf-8", errors="surrogateescape")
    capsys.readouterr()
    observed, plan = site.observe(site.cache_file)
    assert "warning: observation cache" in capsys.readouterr().err
    assert not [i.number for i in observed.issues if i.title.startswith("cached ")]  # nothing taken from it
    _, full_plan = site.observe(None)
    assert plan.model_dump() == full_plan.model_dump()
    assert json.loads(site.cache_file.read_text(encoding="utf-8"))["format"] == cache.FORMAT  # renewed


def test_every_issue_a_run_will_write_to_is_marked_stale_in_one_save_before_its_first_write(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.later()
    site.repo.add_comment(101, 8325, "alice", "/perf complete mac.m1-streamed-q4k-no-copy result: accepted")
    site.repo.add_comment(102, 8324, "alice", COMMAND)
    # Labels and links follow the merged state, which the commands do not change: a label taken off
    # and a link added by hand give the run their writes.
    site.repo.set_issue(9230, labels=[], blocked_by=[8325, 9216])
    saves: list[Path] = []
    with site._port(site.cache_file) as port:
        assert isinstance(port, LiveGitHub)
        plan = decide(gather.inputs(site.settings, port.observe(), NOW))
        save = files.write_atomic

        def counted(path: Path, text: str) -> None:
            saves.append(path)
            save(path, text)

        monkeypatch.setattr(cache, "write_atomic", counted)
        with pytest.raises(Crash):
            executor.apply(plan, Faulty(port, crash_after=0), budget=1000)  # stopped before any write
    later = {d.index for d in plan.deferred}
    targets = {str(n) for i, a in enumerate(plan.actions) if i not in later for n in cache.written_issues(a)}
    assert len(targets) > 2  # m1's issue, the review's, and those whose labels or links change
    entries = json.loads(site.cache_file.read_text(encoding="utf-8"))["issues"]
    assert {n for n, e in entries.items() if e["stale"]} == targets
    assert len(saves) == 1


class Unreachable(httpx.BaseTransport):
    """GitHub gone: every request fails before an answer."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("unreachable", request=request)


@pytest.mark.parametrize("kind", ["comment", "react", "assign", "label", "link"])
def test_a_write_no_run_announced_marks_its_issues_stale_before_it_is_sent(site: Site, kind: str) -> None:
    """Even a write whose request never got an answer has its issues re-read by the next run."""
    site.later()
    site.repo.add_comment(101, 8325, "alice", "/perf complete mac.m1-streamed-q4k-no-copy result: accepted")
    site.repo.add_comment(102, 8324, "alice", COMMAND)
    site.repo.set_issue(9230, labels=[], blocked_by=[])  # a label and a link to put back
    with site._port(site.cache_file) as port:
        assert isinstance(port, LiveGitHub)
        plan = decide(gather.inputs(site.settings, port.observe(), NOW))
        # No command of this scenario claims a packet: an assignment is made up, on a tracked issue.
        made_up = [AssignAction(issue=8324, login="alice", add=True)]
        action = next(a for a in [*plan.actions, *made_up] if a.kind == kind)
        assert site.last is not None
        site.last.inner = Unreachable()
        with pytest.raises(GitHubError):
            getattr(port, kind)(action)  # straight to the adapter: no `before_writes`
    entries = json.loads(site.cache_file.read_text(encoding="utf-8"))["issues"]
    assert sorted(n for n, e in entries.items() if e["stale"]) == sorted(map(str, cache.written_issues(action)))


def test_each_write_names_the_issues_it_changes() -> None:
    comment = CommentAction(issue=3, topic="command-reply", body="x")
    link = LinkAction(relation="blocked_by", issue=4, target=5, add=True)
    label = LabelAction(issue=6, name="perf/ready", add=True)
    assert cache.written_issues(comment) == (3,)
    assert cache.written_issues(link) == (4, 5)
    assert cache.written_issues(label) == (6,)
    assert cache.written_issues(ReactAction(issue=7, comment_id=1, content="eyes")) == (7,)
    assert cache.written_issues(AssignAction(issue=8, login="a", add=False)) == (8,)
    assert cache.written_issues(CreateLabelAction(name="perf/ready", color="0e8a16", description="d")) == ()
    assert cache.written_issues(PullRequestAction(operation="create", branch="b")) == ()


def test_changed_issues_past_one_page_are_paged(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    site.settle(site.cache_file)
    site.later()
    for number in (8324, 8395, 8635, 8819, 8922):
        site.repo.set_issue(number, assignees=["alice"])
    monkeypatch.setattr(query, "ISSUES_PER_QUERY", 2)
    incremental, plan = site.observe(site.cache_file)
    assert site.last is not None
    pages = [q for q in site.last.queries() if q.startswith("query MoreUpdated")]
    assert len(pages) == 2  # 5 changed issues, 2 a page
    assert site.requests()["graphql"] == 3
    full, full_plan = site.observe(None)
    assert incremental.model_dump() == full.model_dump()
    assert plan.model_dump() == full_plan.model_dump()


def test_the_issue_of_an_edited_comment_is_read_whatever_the_cache_says(site: Site) -> None:
    """GitHub does not say that editing a comment moves its issue's `updatedAt`: the double is made
    to keep it still, and the run that the edit starts reads that issue anyway (`ReadScope.fresh`)."""
    site.repo.add_comment(101, 8325, "alice", "/perf compelte mac.m1-streamed-q4k-no-copy result: kept")
    site.settle(site.cache_file)
    state = site.repo.state()
    (comment,) = [c for c in state["comments"] if c["id"] == 101]
    comment.update(body="/perf complete mac.m1-streamed-q4k-no-copy result: kept", edited=True, editor="alice")
    site.repo.write_state(state)
    sidecar = activity.sidecar(site.repo.state_path)
    assert sidecar is not None
    known = json.loads(sidecar.read_text(encoding="utf-8"))
    known["8325"]["seen"] = activity.fingerprints(state)["8325"]  # the edit leaves `updatedAt` where it was
    sidecar.write_text(json.dumps(known), encoding="utf-8")
    site.later()
    stale = copy_of(site.cache_file, site.cache_file.with_name("copy.json"))
    _, unseen = site.observe(stale)
    assert [c["decision"] for c in unseen.commands if c["comment_id"] == 101] == ["refused"]  # replayed as it was
    _, plan = site.observe(site.cache_file, fresh=frozenset({8325}))
    assert [c["decision"] for c in plan.commands if c["comment_id"] == 101] == ["accepted"]
