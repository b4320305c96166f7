"""Open pull requests as leases: which count, what they claim, and what a packet derives from them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import ValidationError

from bot.config import BotConfig, LeaseSettings, PullRequestLeases, Settings
from bot.evidence.derive import Derivation, PacketEvidence, derive_all
from bot.evidence.leases import EVERYWHERE, LeaseReadback, with_pull_leases
from bot.github.observed import Issue, Observed, PullRequest
from bot.issue_refs import number_of
from bot.snapshot.model import Snapshot

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
M1 = "mac.m1-streamed-q4k-no-copy"  # issue 8325, paths docs/_witnesses/**, ready in the seed
CUDA = "profile.real-cuda"  # issue 9497, docs/_witnesses/** too


def pr(number: int, **fields: Any) -> PullRequest:
    values: dict[str, Any] = {"head": f"topic-{number}", "user": "alice", "paths": ("docs/_witnesses/m1.md",)}
    return PullRequest.model_validate({"number": number, **values, **fields})


def pulls_config(settings: Settings, **rules: Any) -> BotConfig:
    leases = LeaseSettings(sources=("pull-requests",), pull_requests=PullRequestLeases(**rules))
    return settings.config.model_copy(update={"leases": leases})


def readback(config: BotConfig, *pulls: PullRequest) -> LeaseReadback:
    observed = Observed(repository="owner/name", pulls=pulls)
    empty = LeaseReadback("open pull requests", "pull-requests", ())
    return with_pull_leases(empty, observed, config.pull_leases or PullRequestLeases(), config, NOW, ("config/x.yaml",))


def derive(seed: Snapshot, found: LeaseReadback, **assigned: tuple[str, ...]) -> dict[str, Derivation]:
    numbers = {number_of(p.issue) for p in seed.work_packets}
    evidence = PacketEvidence(
        leases=found.live,
        released=found.released,
        issues={n: Issue(number=n, assignees=assigned.get(f"i{n}", ())) for n in numbers},
        rules=BotConfig.model_fields["leases_rules"].default,
        owner=BotConfig.model_fields["owner"].default,
    )
    return {d.id: d for d in derive_all(seed, evidence)}


def test_an_open_pr_on_a_packets_paths_makes_it_wait_naming_the_pr_and_the_paths(
    settings: Settings, seed: Snapshot
) -> None:
    found = readback(pulls_config(settings), pr(50, paths=("README.md", "docs/_witnesses/m1.md")))
    d = derive(seed, found)[M1]
    assert d.derived_state == "waiting-coordination"
    assert [(r.kind, r.subject, r.detail) for r in d.reasons] == [
        ("pull-overlap", "PR #50 by alice", "docs/_witnesses/m1.md")
    ]


def test_a_pr_that_closes_a_packets_issue_makes_it_running_held_by_its_author(
    settings: Settings, seed: Snapshot
) -> None:
    found = readback(pulls_config(settings), pr(51, user="bob", closes=(8325,), draft=True))
    derived = derive(seed, found)
    m1 = derived[M1]
    assert (m1.derived_state, m1.derived_owner) == ("running", "bob / PR #51")
    assert [(r.kind, r.subject, r.detail) for r in m1.reasons] == [("pull-closes", "PR #51 (draft) by bob", "#8325")]
    # The PR is the packet's own: it is a collision for the other packet on those paths, not for this one.
    assert derived[CUDA].derived_state == "waiting-coordination"


def test_an_assigned_issue_keeps_its_assignees_as_owner_and_names_the_pr(settings: Settings, seed: Snapshot) -> None:
    found = readback(pulls_config(settings), pr(51, user="bob", closes=(8325,)))
    assert derive(seed, found, i8325=("carol",))[M1].derived_owner == "carol / PR #51"


def test_a_pr_closing_two_issues_is_held_for_both(settings: Settings, seed: Snapshot) -> None:
    found = readback(pulls_config(settings), pr(51, closes=(8325, 9497)))
    derived = derive(seed, found)
    assert (derived[M1].derived_state, derived[CUDA].derived_state) == ("running", "running")


def test_a_merged_pr_is_a_released_lease_the_ready_reasons_name(settings: Settings, seed: Snapshot) -> None:
    merged = pr(50, state="merged", closed_at="2026-08-27T20:00:00Z")
    found = readback(pulls_config(settings), merged)
    assert found.live == ()
    d = derive(seed, found)[M1]
    assert d.derived_state == "ready"
    assert ("pull-released", "PR #50 by alice, merged", "merged") in [(r.kind, r.subject, r.detail) for r in d.reasons]
    own = readback(pulls_config(settings), merged.model_copy(update={"closes": (8325,)}))
    assert [r.detail for r in derive(seed, own)[M1].reasons if r.kind == "pull-released"] == ["merged #8325"]


def test_a_pr_closed_longer_ago_than_released_days_is_forgotten(settings: Settings) -> None:
    config = pulls_config(settings, released_days=2)
    old = pr(50, state="closed", closed_at=(NOW - dt.timedelta(days=3)).isoformat())
    recent = pr(51, state="closed", closed_at=(NOW - dt.timedelta(days=1)).isoformat())
    assert [lease.pull for lease in readback(config, old, recent).released] == [51]
    assert readback(config, recent).released[0].describe() == "PR #51 by alice, closed unmerged"


@pytest.mark.parametrize(
    ("pull", "counted"),
    [
        (pr(60, head="perfbot/update", user="perfbot[bot]", user_type="Bot"), False),  # perfbot's own PR
        (pr(61, head="perfbot/update", head_repository="someone/fork"), True),  # a person's fork, same branch name
        (pr(62, head="perfbot/leases"), False),  # the branch the lease readback is published to
        (pr(63, user="dependabot[bot]", user_type="Bot"), False),
        (pr(64, user="renovate[bot]"), False),  # a bot by its login alone
        (pr(65, draft=True), True),
        (pr(66, paths=("config/snapshot.yaml", "docs/current-constraints.md", "config/x.yaml")), False),
        (pr(67, paths=()), False),
    ],
    ids=["perfbot", "fork-on-perfbot-branch", "lease-branch", "dependabot", "renovate", "draft", "own-files", "none"],
)
def test_which_prs_claim_paths(settings: Settings, pull: PullRequest, counted: bool) -> None:
    found = readback(pulls_config(settings), pull)
    assert [lease.pull for lease in found.live] == ([pull.number] if counted else [])


def test_drafts_and_bots_are_configurable(settings: Settings) -> None:
    draft, bot = pr(70, draft=True), pr(71, user="dependabot[bot]", user_type="Bot")
    assert [x.pull for x in readback(pulls_config(settings, drafts=False, bots=True), draft, bot).live] == [71]


def test_perfbots_own_files_are_no_claim_but_the_rest_of_the_pr_is(settings: Settings) -> None:
    found = readback(pulls_config(settings), pr(72, paths=("config/snapshot.yaml", "src/a.go")))
    assert found.live[0].tree == ("src/a.go",)


def test_a_pr_over_githubs_file_list_limit_claims_everything_and_says_so(settings: Settings, seed: Snapshot) -> None:
    big = pr(73, paths=tuple(f"src/f{i}.go" for i in range(3000)), changed_files=3001)
    found = readback(pulls_config(settings), big)
    assert found.live[0].tree == (EVERYWHERE,)
    assert found.warnings == (
        "PR #73 changes 3,001 files, more than GitHub lists (3,000): it is taken to claim every path (`**`)",
    )
    assert derive(seed, found)[M1].derived_state == "waiting-coordination"
    whole = pr(74, paths=tuple(f"src/f{i}.go" for i in range(3000)), changed_files=3000)
    assert readback(pulls_config(settings), whole).warnings == ()


def test_a_prs_heartbeat_is_its_last_push_and_its_time_to_live_is_days(settings: Settings) -> None:
    pushed = NOW - dt.timedelta(days=15)
    lease = readback(pulls_config(settings), pr(75, pushed_at=pushed.isoformat())).live[0]
    assert lease.last_seen() == pushed
    assert lease.is_stale(NOW, 50, 5)
    assert not lease.is_stale(pushed + dt.timedelta(days=13), 50, 5)


def test_lease_settings_refuse_a_file_source_without_a_file_and_repeats() -> None:
    with pytest.raises(ValidationError, match="no `file` is set"):
        LeaseSettings(sources=("file",))
    with pytest.raises(ValidationError, match="at most once"):
        LeaseSettings(file="config/leases.json", sources=("file", "file"))
    with pytest.raises(ValidationError):
        LeaseSettings(sources=())


def test_the_string_form_is_the_lease_file_alone(settings: Settings) -> None:
    assert settings.config.lease_file == "config/leases.json"
    assert settings.config.pull_leases is None
    both = LeaseSettings(file="perfbot/leases:leases.json", sources=("file", "pull-requests"))
    config = settings.config.model_copy(update={"leases": both})
    assert (config.lease_file, config.pull_leases) == ("perfbot/leases:leases.json", PullRequestLeases())
