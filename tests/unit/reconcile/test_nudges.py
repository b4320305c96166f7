"""Nudges on in-memory values: each kind fires when its fact holds, once per key, never over a marker.

The small snapshot of `tests/unit/snapshot/values.py`: packets `w1` (complete, issue 11), `w2`
(ready, issue 12) and `w3` (waiting, issue 13); constraints `c1` and `c2`, both reviewed by
2026-08-30 on issue 41.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.config import Settings
from bot.evidence.derive import Derivation
from bot.github.actions import CommentAction, OverdueReview
from bot.github.markers import marker, markers_in
from bot.github.observed import Comment, Issue, Observed
from bot.issue_refs import IssueKey
from bot.reconcile.inputs import Told
from bot.reconcile.nudges import Nudges, overdue_reviews, ready_episode
from bot.render import Renderer
from bot.snapshot.model import Snapshot, WorkPacket
from tests.unit.snapshot.values import edited, valid

NOW = dt.datetime(2026, 8, 31, 9, tzinfo=dt.UTC)
BOT = "perfbot[bot]"


def nudges(settings: Settings, renderer: Renderer, said: tuple[str, ...] = (), **observed: Any) -> Nudges:
    """Nudges over `observed`, where perfbot's earlier comments carry the markers in `said`."""
    earlier = tuple(Comment(id=500 + n, issue=1, user=BOT, created_at=NOW, body=body) for n, body in enumerate(said))
    return Nudges(Observed(bot_login=BOT, comments=earlier, **observed), settings.config, renderer, NOW)


def derivation(packet: WorkPacket, derived: Any, own_lease: bool = False) -> Derivation:
    return Derivation(
        id=packet.id,
        issue=packet.issue,
        recorded_state=packet.state,
        derived_state=derived,
        reasons=(),
        recorded_owner=packet.owner,
        derived_owner=packet.owner,
        own_lease=own_lease,
    )


def derived(snapshot: Snapshot, **states: Any) -> list[Derivation]:
    """Each packet's derivation: the state named for it, else its recorded state."""
    return [derivation(p, states.get(p.id, p.state)) for p in snapshot.work_packets]


def said(actions: list[CommentAction]) -> list[tuple[IssueKey, str, set[tuple[str, str]]]]:
    return [(a.issue, a.topic, markers_in(a.body)) for a in actions]


def test_a_waiting_packet_derived_ready_is_announced_once(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    told = nudges(settings, renderer)
    (ready,) = told.packets(snapshot, derived(snapshot, w3="ready"))
    ((issue, topic, markers),) = said([ready])
    assert (issue, topic) == (13, "packet-ready")
    ((marked_topic, key),) = markers
    assert marked_topic == "packet-ready"
    assert key.startswith("w3:")
    assert told.packets(snapshot, derived(snapshot, w3="ready")) == []


def test_a_ready_nudge_is_not_said_again_over_its_marker(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    (first,) = nudges(settings, renderer).packets(snapshot, derived(snapshot, w3="ready"))
    ((topic, key),) = markers_in(first.body)
    assert nudges(settings, renderer, said=(marker(topic, key),)).packets(snapshot, derived(snapshot, w3="ready")) == []
    # Another packet's marker, or the same key under another topic, does not silence it.
    other = (marker(topic, "w2:" + key.partition(":")[2]), marker("lease-lost", key))
    assert len(nudges(settings, renderer, said=other).packets(snapshot, derived(snapshot, w3="ready"))) == 1


def test_each_ready_episode_is_announced(settings: Settings, renderer: Renderer) -> None:
    first, again = valid(), edited("work_packets", 2, state_revision=4)
    (one,) = nudges(settings, renderer).packets(first, derived(first, w3="ready"))
    (two,) = nudges(settings, renderer, said=(one.body,)).packets(again, derived(again, w3="ready"))
    assert markers_in(one.body) != markers_in(two.body)


def test_ready_is_announced_only_from_waiting(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()  # w2 is ready already and was never waiting: nothing to announce
    assert nudges(settings, renderer).packets(snapshot, derived(snapshot)) == []
    merged = edited("work_packets", 1, previous_state="waiting-dependency", state_revision=2)
    (ready,) = nudges(settings, renderer).packets(merged, derived(merged))
    assert (ready.issue, ready.topic) == (12, "packet-ready")
    held = edited("work_packets", 1, previous_state="capacity-hold", state_revision=2)
    assert nudges(settings, renderer).packets(held, derived(held)) == []


def test_ready_episode_names_the_revision_that_opens_it() -> None:
    snapshot = valid()
    waiting, ready = snapshot.work_packets[2], snapshot.work_packets[1]
    opened = ready_episode(waiting, derivation(waiting, "ready"))
    assert ready_episode(waiting, derivation(waiting, "waiting-dependency")) is None
    was_waiting = ready.model_copy(update={"previous_state": "waiting-coordination", "state_revision": 3})
    # The merge of the PR that recorded it ready names the episode announced before the merge.
    after_merge = waiting.model_copy(update={"state": "ready", "previous_state": "waiting-dependency"})
    after_merge = after_merge.model_copy(update={"state_revision": waiting.state_revision + 1})
    assert ready_episode(after_merge, derivation(after_merge, "ready")) == opened
    assert ready_episode(was_waiting, derivation(was_waiting, "ready")) is not None
    assert ready_episode(ready, derivation(ready, "ready")) is None


def test_ready_is_judged_against_what_the_open_pr_told_people() -> None:
    """The default branch records `ready`; perfbot's PR records the wait the evidence showed since
    (unmerged); the evidence is ready again: announced once per record of the wait."""
    ready = valid().work_packets[1]
    assert ready_episode(ready, derivation(ready, "ready")) is None
    told = Told(states={ready.id: ("waiting-coordination", ready.state_revision + 1)}, key="7:aaaa")
    first = ready_episode(ready, derivation(ready, "ready"), told)
    assert first is not None
    assert ready_episode(ready, derivation(ready, "waiting-coordination"), told) is None
    # The PR records it as the default branch does: nothing new was told.
    same = Told(states={ready.id: (ready.state, ready.state_revision)}, key="7:bbbb")
    assert ready_episode(ready, derivation(ready, "ready"), same) is None
    # A later wait, recorded by a later PR (or a later text of the same one), is a new episode.
    later = Told(states={ready.id: ("waiting-coordination", ready.state_revision + 1)}, key="9:cccc")
    assert ready_episode(ready, derivation(ready, "ready"), later) not in (None, first)


def test_a_packet_a_pending_command_completes_is_told_nothing(settings: Settings, renderer: Renderer) -> None:
    """No lease-lost comment for a packet whose pending state is final, and no ready comment for one
    a pending command completes or holds."""
    running = edited("work_packets", 1, state="running")
    for final in ("complete", "capacity-hold", "waiting-evidence"):
        assert nudges(settings, renderer).packets(running, derived(running), {"w2": final}) == []
    assert len(nudges(settings, renderer).packets(running, derived(running), {"w2": "ready"})) == 1
    snapshot = valid()
    for becomes in ("complete", "waiting-coordination"):  # a completion, a block waiting in the PR
        assert nudges(settings, renderer).packets(snapshot, derived(snapshot, w3="ready"), {"w3": becomes}) == []
    assert len(nudges(settings, renderer).packets(snapshot, derived(snapshot, w3="ready"), {"w3": "ready"})) == 1


def test_a_running_packet_without_its_lease_is_told_once(settings: Settings, renderer: Renderer) -> None:
    snapshot = edited("work_packets", 1, state="running")
    told = nudges(settings, renderer)
    (lost,) = told.packets(snapshot, derived(snapshot))
    assert (lost.issue, lost.topic) == (12, "lease-lost")
    assert told.packets(snapshot, derived(snapshot)) == []
    assert nudges(settings, renderer, said=(lost.body,)).packets(snapshot, derived(snapshot)) == []
    leased = [derivation(p, p.state, own_lease=p.id == "w2") for p in snapshot.work_packets]
    assert nudges(settings, renderer).packets(snapshot, leased) == []


def test_overdue_reviews_are_those_past_their_date() -> None:
    snapshot = valid()
    assert overdue_reviews(snapshot, dt.datetime(2026, 8, 30, 23, tzinfo=dt.UTC)) == []
    assert overdue_reviews(snapshot, NOW) == [
        OverdueReview(constraint="c1", review_by="2026-08-30", issue=41),
        OverdueReview(constraint="c2", review_by="2026-08-30", issue=41),
    ]


def test_an_overdue_review_is_told_once_per_date(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    overdue = overdue_reviews(snapshot, NOW)
    told = nudges(settings, renderer)
    first = told.reviews(snapshot, overdue)
    assert said(first) == [
        (41, "review-overdue", {("review-overdue", "c1:2026-08-30")}),
        (41, "review-overdue", {("review-overdue", "c2:2026-08-30")}),
    ]
    assert told.reviews(snapshot, overdue) == []
    assert nudges(settings, renderer, said=(first[0].body,)).reviews(snapshot, overdue)[0].topic == "review-overdue"
    assert len(nudges(settings, renderer, said=(first[0].body,)).reviews(snapshot, overdue)) == 1
    later = [o.model_copy(update={"review_by": "2026-09-30"}) for o in overdue[:1]]
    assert said(nudges(settings, renderer, said=(first[0].body,)).reviews(snapshot, later)) == [
        (41, "review-overdue", {("review-overdue", "c1:2026-09-30")})
    ]


def test_a_review_without_an_issue_or_a_constraint_is_not_told(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    nowhere = [OverdueReview(constraint="c1", review_by="2026-08-30", issue=None)]
    unknown = [OverdueReview(constraint="gone", review_by="2026-08-30", issue=41)]
    assert nudges(settings, renderer).reviews(snapshot, nowhere + unknown) == []


def test_an_issue_closed_while_its_packet_is_open_is_told_once(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    closed = (Issue(number=12, state="closed"),)
    told = nudges(settings, renderer, issues=closed)
    (mismatch,) = told.mismatches(snapshot, derived(snapshot), snapshot)
    assert said([mismatch]) == [(12, "issue-mismatch", {("issue-mismatch", "12:closed-while-open")})]
    assert told.mismatches(snapshot, derived(snapshot), snapshot) == []
    assert (
        nudges(settings, renderer, said=(mismatch.body,), issues=closed).mismatches(
            snapshot, derived(snapshot), snapshot
        )
        == []
    )
    # A completion still in the regeneration PR makes none; an open issue is no mismatch.
    working = edited("work_packets", 1, state="complete", result="done")
    assert nudges(settings, renderer, issues=closed).mismatches(snapshot, derived(snapshot), working) == []
    assert (
        nudges(settings, renderer, issues=(Issue(number=12),)).mismatches(snapshot, derived(snapshot), snapshot) == []
    )


def test_a_mismatch_names_the_derived_state_the_labels_show(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    closed = (Issue(number=12, state="closed"),)
    assert snapshot.work_packets[1].state == "ready"  # recorded; the evidence says running
    (mismatch,) = nudges(settings, renderer, issues=closed).mismatches(
        snapshot, derived(snapshot, w2="running"), snapshot
    )
    assert "`running`" in mismatch.body
    assert "`ready`" not in mismatch.body
    # Derived complete on the default branch: no mismatch to point out.
    assert (
        nudges(settings, renderer, issues=closed).mismatches(snapshot, derived(snapshot, w2="complete"), snapshot) == []
    )


def test_an_issue_reopened_while_its_packet_is_complete_is_told(settings: Settings, renderer: Renderer) -> None:
    snapshot = valid()
    reopened = (Issue(number=11, state_reason="reopened"), Issue(number=13, state_reason="reopened"))
    (mismatch,) = nudges(settings, renderer, issues=reopened).mismatches(snapshot, derived(snapshot), snapshot)
    assert said([mismatch]) == [(11, "issue-mismatch", {("issue-mismatch", "11:reopened-while-complete")})]
    # Reopened against a completion the working snapshot no longer holds: nothing to point out.
    undone = edited("work_packets", 0, state="ready", result="")
    assert nudges(settings, renderer, issues=reopened).mismatches(snapshot, derived(snapshot), undone) == []
    # An issue no packet names, or one not observed, is not looked at.
    assert (
        nudges(settings, renderer, issues=(Issue(number=99, state="closed"),)).mismatches(
            snapshot, derived(snapshot), snapshot
        )
        == []
    )


def test_every_nudge_of_a_run_comes_in_the_plans_order(settings: Settings, renderer: Renderer) -> None:
    merged = edited("work_packets", 1, state="running")
    working = valid()
    issues = (Issue(number=13, state="closed"),)
    every = nudges(settings, renderer, issues=issues).every(
        merged, derived(merged, w3="ready"), working, overdue_reviews(working, NOW)
    )
    assert [(a.topic, a.issue) for a in every] == [
        ("lease-lost", 12),
        ("packet-ready", 13),
        ("review-overdue", 41),
        ("review-overdue", 41),
        ("issue-mismatch", 13),
    ]
