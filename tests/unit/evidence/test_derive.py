"""Derived packet state, owner, cleared blockers and satisfied dependencies, rule by rule."""

from __future__ import annotations

import pytest

from bot.config import LeaseRules, OwnerWording
from bot.evidence.derive import Derivation, PacketEvidence, derive_all
from bot.evidence.leases import Lease
from bot.github.observed import Issue
from bot.issue_refs import IssueKey, number_of
from bot.snapshot.model import Snapshot

SEED_LEASES = (
    Lease(lane="model", loop_ts="t", holder="issue-9420-cache-weight-residency", tree=("internal/model/**",)),
    Lease(lane="compute", loop_ts="t", holder="issue-9420-cache-weight-residency", tree=("internal/compute/**",)),
)


def issues(snapshot: Snapshot, **assigned: tuple[str, ...]) -> dict[IssueKey, Issue]:
    numbers = {number_of(p.issue) for p in snapshot.work_packets}
    return {n: Issue(number=n, assignees=assigned.get(f"i{n}", ())) for n in numbers}


def derive(
    snapshot: Snapshot, leases: tuple[Lease, ...] = SEED_LEASES, **assigned: tuple[str, ...]
) -> dict[str, Derivation]:
    default = {"i9420": ("anthony-chaudhary",)}
    evidence = PacketEvidence(
        leases=leases,
        released=(),
        issues=issues(snapshot, **{**default, **assigned}),
        rules=LeaseRules(),
        owner=OwnerWording(),
    )
    return {d.id: d for d in derive_all(snapshot, evidence)}


def with_packet(snapshot: Snapshot, packet_id: str, **changes: object) -> Snapshot:
    packets = tuple(p.model_copy(update=changes) if p.id == packet_id else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def kinds(d: Derivation) -> list[str]:
    return [r.kind for r in d.reasons]


def test_seed_evidence_derives_every_recorded_state_and_owner(seed: Snapshot) -> None:
    for d in derive(seed).values():
        assert (d.derived_state, d.derived_owner) == (d.recorded_state, d.recorded_owner), d.id
        assert not d.changed


def test_open_dependency_means_waiting_dependency(seed: Snapshot) -> None:
    d = derive(seed)["mac.m2-whole-sequence-prefill"]
    assert d.derived_state == "waiting-dependency"
    assert [(r.kind, r.subject, r.detail) for r in d.reasons] == [
        ("dependency-open", "mac.m1-streamed-q4k-no-copy", "ready")
    ]


def test_foreign_overlapping_lease_means_waiting_coordination(seed: Snapshot) -> None:
    d = derive(seed)["cuda.q8_1-numerical-gate"]
    assert d.derived_state == "waiting-coordination"
    assert kinds(d) == ["lease-overlap"]
    assert "compute lease of issue-9420-cache-weight-residency on internal/compute/**" in d.reasons[0].subject
    assert d.cleared_blockers == ()


def test_released_blocker_clears_and_the_packet_is_ready(seed: Snapshot) -> None:
    d = derive(seed, leases=())["cuda.q8_1-numerical-gate"]
    assert (d.derived_state, d.cleared_blockers) == ("ready", ("cuda.cache-weight-residency",))
    assert kinds(d) == ["unassigned", "blocker-cleared"]


def test_free_text_blocker_means_waiting_coordination(seed: Snapshot) -> None:
    snapshot = with_packet(seed, "profile.real-cuda", blocked_by_condition="exclusive A100 window")
    d = derive(snapshot)["profile.real-cuda"]
    assert (d.derived_state, kinds(d)) == ("waiting-coordination", ["condition"])


def test_assigned_with_own_lease_is_running_without_lease_is_ready(seed: Snapshot) -> None:
    running = derive(seed)["cuda.cache-weight-residency"]
    assert (running.derived_state, kinds(running)) == ("running", ["running"])
    assert running.derived_owner == "anthony-chaudhary / live DOS lease"
    lost = derive(seed, leases=())["cuda.cache-weight-residency"]
    assert (lost.derived_state, kinds(lost), lost.derived_owner) == ("ready", ["no-live-lease"], "anthony-chaudhary")


def test_own_lease_does_not_block_its_own_packet(seed: Snapshot) -> None:
    mine = (Lease(lane="docs", loop_ts="t", holder="issue-9497-profile", tree=("docs/**",)),)
    d = derive(seed, leases=mine, i9497=("alice", "bob"))["profile.real-cuda"]
    assert d.derived_state == "running"
    assert d.derived_owner == "alice, bob / live DOS lease"
    other = derive(seed, leases=mine)["mac.m1-streamed-q4k-no-copy"]
    assert (other.derived_state, kinds(other)) == ("waiting-coordination", ["lease-overlap"])


def test_blocker_sharing_the_issue_still_holding_its_lease(seed: Snapshot) -> None:
    snapshot = with_packet(seed, "cuda.q8_1-numerical-gate", issue=9420)
    d = derive(snapshot)["cuda.q8_1-numerical-gate"]
    assert (d.derived_state, kinds(d)) == ("waiting-coordination", ["blocker-holds-lease"])


@pytest.mark.parametrize("state", ["capacity-hold", "waiting-evidence"])
def test_decided_states_stand(seed: Snapshot, state: str) -> None:
    snapshot = with_packet(seed, "profile.real-cuda", state=state)
    d = derive(snapshot)["profile.real-cuda"]
    assert (d.derived_state, kinds(d)) == (state, ["decided"])


def test_unobserved_issue_keeps_the_record(seed: Snapshot) -> None:
    evidence = PacketEvidence(leases=(), released=(), issues={}, rules=LeaseRules(), owner=OwnerWording())
    for d in derive_all(seed, evidence):
        assert (d.derived_state, d.derived_owner) == (d.recorded_state, d.recorded_owner)


def test_completed_dependency_is_satisfied_and_unblocks(seed: Snapshot) -> None:
    snapshot = with_packet(seed, "mac.m1-streamed-q4k-no-copy", state="complete", result="accepted")
    derived = derive(snapshot)
    m2 = derived["mac.m2-whole-sequence-prefill"]
    assert (m2.derived_state, m2.newly_satisfied) == ("ready", ("mac.m1-streamed-q4k-no-copy",))
    assert kinds(m2) == ["dependencies-met", "unassigned"]
    m5 = derived["mac.m5-exact-p32t64-receipt"]
    assert (m5.derived_state, m5.newly_satisfied) == ("capacity-hold", ("mac.m1-streamed-q4k-no-copy",))
    assert derived["mac.m1-streamed-q4k-no-copy"].derived_owner == "unassigned"
