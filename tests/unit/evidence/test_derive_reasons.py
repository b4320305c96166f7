"""Derived packet state on in-memory packets, leases and issues: every reason, in its order."""

from __future__ import annotations

from typing import Any

import pytest

from bot.config import LeaseRules, OwnerWording
from bot.evidence.derive import Derivation, PacketEvidence, Reason, derive_all
from bot.evidence.leases import Lease
from bot.github.observed import Issue
from bot.issue_refs import IssueKey, number_of
from bot.snapshot.model import SCHEMA_ID, Snapshot, WorkPacket


def packet(ident: str, issue: int, state: str = "ready", **extra: Any) -> WorkPacket:
    fields = {"name": ident, "program_id": "p", "issue": issue, "owner": "recorded", "lane": "l", "exit_when": "x"}
    return WorkPacket.model_validate({"id": ident, "state": state, "paths": (f"src/{ident}/**",), **fields, **extra})


def lease(holder: str, *tree: str, lane: str = "src") -> Lease:
    return Lease(lane=lane, loop_ts="t", holder=holder, tree=tree)


def derive(
    *packets: WorkPacket,
    leases: tuple[Lease, ...] = (),
    released: tuple[Lease, ...] = (),
    assigned: dict[IssueKey, tuple[str, ...]] | None = None,
    rules: LeaseRules | None = None,
    owner: OwnerWording | None = None,
) -> dict[str, Derivation]:
    """Each packet's derivation; every packet's issue is observed, with the given assignees."""
    snapshot = Snapshot.model_validate({"schema": SCHEMA_ID, "as_of": "2026-08-27", "definition": "d"})
    snapshot = snapshot.model_copy(update={"work_packets": packets})
    given = assigned or {}
    issues = {p.issue: Issue(number=number_of(p.issue), assignees=given.get(p.issue, ())) for p in packets}
    evidence = PacketEvidence(
        leases=leases, released=released, issues=issues, rules=rules or LeaseRules(), owner=owner or OwnerWording()
    )
    return {d.id: d for d in derive_all(snapshot, evidence)}


def reasons(d: Derivation) -> list[tuple[str, str, str]]:
    return [(r.kind, r.subject, r.detail) for r in d.reasons]


@pytest.mark.parametrize("state", ["complete", "capacity-hold", "waiting-evidence"])
def test_a_decided_state_stands_whatever_the_evidence(state: str) -> None:
    d = derive(packet("a", 1, state, result="r" if state == "complete" else ""), leases=(lease("x", "**"),))["a"]
    assert (d.recorded_state, d.derived_state, reasons(d)) == (state, state, [("decided", state, "")])


def test_a_complete_packet_keeps_its_owner_text_and_others_take_the_assignees() -> None:
    derived = derive(
        packet("a", 1, "complete", result="r"), packet("b", 2, "capacity-hold"), assigned={1: ("al",), 2: ("bo",)}
    )
    assert (derived["a"].derived_owner, derived["b"].derived_owner) == ("recorded", "bo")


def test_an_unobserved_issue_keeps_the_recorded_state_and_owner() -> None:
    snapshot = Snapshot.model_validate({"schema": SCHEMA_ID, "as_of": "2026-08-27", "definition": "d"})
    snapshot = snapshot.model_copy(update={"work_packets": (packet("a", 7, "running"),)})
    evidence = PacketEvidence(leases=(), released=(), issues={}, rules=LeaseRules(), owner=OwnerWording())
    (d,) = derive_all(snapshot, evidence)
    assert (d.derived_state, d.derived_owner, reasons(d)) == ("running", "recorded", [("issue-unobserved", "#7", "")])
    assert not d.changed


@pytest.mark.parametrize("recorded", ["ready", "running"])
def test_an_unobserved_issue_still_waits_for_an_open_dependency_or_a_lease(recorded: str) -> None:
    """Found item 9 of issue #25: the recorded state stands only where the issue would decide it;
    a dependency that is not complete, or a foreign overlapping lease, decides without it."""
    snapshot = Snapshot.model_validate({"schema": SCHEMA_ID, "as_of": "2026-08-27", "definition": "d"})
    packets = (
        packet("dep", 1, "waiting-evidence"),
        packet("a", 7, recorded, hard_dependency_ids=("dep",)),
        packet("b", 8, recorded),
        packet("c", 9, recorded),
    )
    snapshot = snapshot.model_copy(update={"work_packets": packets})
    foreign = lease("someone-else", "src/b/**")
    evidence = PacketEvidence(leases=(foreign,), released=(), issues={}, rules=LeaseRules(), owner=OwnerWording())
    derived = {d.id: d for d in derive_all(snapshot, evidence)}
    assert reasons(derived["a"]) == [("dependency-open", "dep", "waiting-evidence")]
    assert derived["a"].derived_state == "waiting-dependency"
    assert derived["b"].derived_state == "waiting-coordination"
    assert [r.kind for r in derived["b"].reasons] == ["lease-overlap"]
    assert (derived["c"].derived_state, reasons(derived["c"])) == (recorded, [("issue-unobserved", "#9", "")])


def test_open_dependencies_are_named_with_their_state_and_complete_ones_are_newly_satisfied() -> None:
    derived = derive(
        packet("done", 1, "complete", result="r"),
        packet("held", 2, "capacity-hold"),
        packet("open", 3),
        packet("a", 4, hard_dependency_ids=("done", "held", "open")),
    )
    d = derived["a"]
    assert d.derived_state == "waiting-dependency"
    assert reasons(d) == [("dependency-open", "held", "capacity-hold"), ("dependency-open", "open", "ready")]
    assert d.newly_satisfied == ("done",)
    assert d.changed


def test_a_foreign_overlapping_lease_means_waiting_coordination() -> None:
    foreign = lease("issue-9-x", "src/a/deep/**")
    unnamed = lease("", "docs/a", lane="docs")
    elsewhere = lease("issue-8", "src/b/**")
    mine = lease("issue-1", "src/a/**")
    a = packet("a", 1, paths=("src/a/**", "docs/a"))
    d = derive(a, leases=(foreign, elsewhere, unnamed, mine))["a"]
    assert d.derived_state == "waiting-coordination"
    assert reasons(d) == [
        ("lease-overlap", "src lease of issue-9-x on src/a/deep/**", "src/a/**, docs/a"),
        ("lease-overlap", "docs lease of an unnamed holder on docs/a", "src/a/**, docs/a"),
    ]
    assert d.own_lease


def test_a_blocker_sharing_the_issue_that_still_holds_an_overlapping_lease() -> None:
    held = lease("issue-5", "src/a/**")
    blocker, blocked = packet("b", 5), packet("a", 5, blocked_by_ids=("b",))
    d = derive(blocker, blocked, leases=(held,))["a"]
    assert (d.derived_state, reasons(d)) == (
        "waiting-coordination",
        [("blocker-holds-lease", "b", "src lease of issue-5 on src/a/**")],
    )
    assert d.cleared_blockers == ()


def test_a_blocker_of_another_issue_holding_an_overlapping_lease_is_a_foreign_lease() -> None:
    held = lease("issue-5", "src/a/x")
    d = derive(packet("b", 5), packet("a", 1, blocked_by_ids=("b",)), leases=(held,))["a"]
    assert reasons(d) == [("lease-overlap", "src lease of issue-5 on src/a/x", "src/a/**")]
    assert d.cleared_blockers == ()


def test_a_blocker_without_an_overlapping_lease_has_cleared() -> None:
    others = lease("issue-5", "src/b/**")
    blocked = packet("a", 1, blocked_by_ids=("b", "c"))
    d = derive(packet("b", 5), packet("c", 6), blocked, leases=(others,))["a"]
    assert d.cleared_blockers == ("b", "c")
    assert reasons(d) == [("unassigned", "#1", ""), ("blocker-cleared", "b", ""), ("blocker-cleared", "c", "")]
    assert d.changed


def test_a_free_text_condition_means_waiting_coordination_and_blank_is_none() -> None:
    derived = derive(packet("a", 1, blocked_by_condition="A100 window"), packet("b", 2, blocked_by_condition="  "))
    assert (derived["a"].derived_state, reasons(derived["a"])) == (
        "waiting-coordination",
        [("condition", "A100 window", "")],
    )
    assert derived["b"].derived_state == "ready"


def test_every_coordination_reason_in_order() -> None:
    held = lease("issue-5", "src/a/**")
    foreign = lease("issue-9", "src/a/**")
    blocked = packet("a", 5, blocked_by_ids=("b",), blocked_by_condition="wait")
    d = derive(packet("b", 5), blocked, leases=(held, foreign))["a"]
    assert [kind for kind, _, _ in reasons(d)] == ["lease-overlap", "blocker-holds-lease", "condition"]


def test_assigned_with_its_own_lease_is_running() -> None:
    own = (lease("issue-1-a", "src/a/**"), lease("issue-1-b", "src/z/**", lane="z"))
    d = derive(packet("a", 1), leases=own, assigned={1: ("alice", "bob")})["a"]
    assert d.derived_state == "running"
    assert reasons(d) == [
        ("running", "alice, bob", "src lease of issue-1-a on src/a/**; z lease of issue-1-b on src/z/**")
    ]
    assert (d.derived_owner, d.own_lease) == ("alice, bob / live DOS lease", True)


def test_met_dependencies_come_first_naming_open_then_satisfied_ones() -> None:
    derived = derive(
        packet("d1", 1, "complete", result="r"),
        packet("d2", 2, "complete", result="r"),
        packet("a", 3, hard_dependency_ids=("d1",), satisfied_dependency_ids=("d2",)),
        packet("b", 4, satisfied_dependency_ids=("d2",)),
        leases=(lease("issue-4", "src/b/**"),),
        assigned={4: ("bo",)},
    )
    assert reasons(derived["a"]) == [("dependencies-met", "d1, d2", ""), ("unassigned", "#3", "")]
    assert [kind for kind, _, _ in reasons(derived["b"])] == ["dependencies-met", "running"]


def test_ready_says_whether_it_is_unassigned_or_has_no_live_lease() -> None:
    derived = derive(packet("a", 1), packet("b", 2), assigned={2: ("bo",)})
    assert (derived["a"].derived_state, reasons(derived["a"]), derived["a"].derived_owner) == (
        "ready",
        [("unassigned", "#1", "")],
        "unassigned",
    )
    assert (derived["b"].derived_state, reasons(derived["b"]), derived["b"].derived_owner) == (
        "ready",
        [("no-live-lease", "#2", "")],
        "bo",
    )
    assert not derived["a"].own_lease


def test_released_leases_of_the_issue_or_over_its_paths_are_reasons_of_a_ready_packet() -> None:
    own = lease("issue-1", "elsewhere/**", lane="own")
    over = lease("issue-9", "src/a/x", lane="over")
    unrelated = lease("issue-9", "src/b/**", lane="other")
    done = packet("d", 2, "complete", result="r")
    a = packet("a", 1, satisfied_dependency_ids=("d",))
    d = derive(done, a, released=(own, unrelated, over), assigned={1: ("al",)})["a"]
    assert reasons(d) == [
        ("dependencies-met", "d", ""),
        ("lease-released", "own lease of issue-1 on elsewhere/**", ""),
        ("lease-released", "over lease of issue-9 on src/a/x", ""),
        ("no-live-lease", "#1", ""),
    ]
    unassigned = derive(a.model_copy(update={"satisfied_dependency_ids": ()}), released=(own,))["a"]
    assert reasons(unassigned) == [
        ("lease-released", "own lease of issue-1 on elsewhere/**", ""),
        ("unassigned", "#1", ""),
    ]


def test_a_released_lease_is_no_reason_while_the_packet_runs() -> None:
    d = derive(
        packet("a", 1),
        leases=(lease("issue-1", "src/a/**"),),
        released=(lease("issue-1", "old/**"),),
        assigned={1: ("al",)},
    )["a"]
    assert [kind for kind, _, _ in reasons(d)] == ["running"]


def test_the_wording_and_the_holder_pattern_come_from_the_config() -> None:
    wording = OwnerWording(unassigned="nobody", lease_suffix=" (leased)", assignee_separator=" & ")
    rules = LeaseRules(holder_issue_pattern=r"gh(\d+)")
    derived = derive(
        packet("a", 1),
        packet("b", 2),
        leases=(lease("gh1", "src/a/**"), lease("issue-2", "src/b/**")),
        assigned={1: ("al", "bo")},
        rules=rules,
        owner=wording,
    )
    assert (derived["a"].derived_state, derived["a"].derived_owner) == ("running", "al & bo (leased)")
    # issue-2 does not match the pattern: that lease is held for no issue, so it is foreign to b.
    assert (derived["b"].derived_state, derived["b"].derived_owner) == ("waiting-coordination", "nobody")


def base(**changes: Any) -> Derivation:
    fields: dict[str, Any] = {
        "id": "a",
        "issue": 1,
        "recorded_state": "ready",
        "derived_state": "ready",
        "reasons": (Reason(kind="unassigned"),),
        "recorded_owner": "o",
        "derived_owner": "o",
    }
    return Derivation(**{**fields, **changes})


@pytest.mark.parametrize(
    ("changes", "changed"),
    [
        ({}, False),
        ({"derived_state": "running"}, True),
        ({"derived_owner": "p"}, True),
        ({"cleared_blockers": ("b",)}, True),
        ({"newly_satisfied": ("d",)}, True),
        ({"own_lease": True}, False),
    ],
)
def test_a_derivation_changed_when_state_owner_blockers_or_dependencies_move(
    changes: dict[str, Any], changed: bool
) -> None:
    assert base(**changes).changed is changed
