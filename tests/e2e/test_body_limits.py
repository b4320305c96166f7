"""Every text perfbot posts stays under `commands.max_body_chars`, the rest summarised (#10 item 15).

One test drives the worst case of each topic (and the PR body); the last one fails when a topic
is added without such a test. GitHub refuses bodies over 65,536 characters, so a text that grew
past it would fail its write on every run.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from bot.commands import effects
from bot.commands.effects import Answered, Situation
from bot.commands.grammar import Blocking, Command, Drop
from bot.commands.outbox import Voice, actions
from bot.commands.records import recorded_decisions
from bot.commands.replay import Handled, Line
from bot.config import BotConfig, Settings
from bot.evidence.derive import Derivation, Reason
from bot.github.actions import TOPICS, CommentAction, Topic
from bot.github.markers import header, markers_in
from bot.github.observed import Comment, Issue, Observed
from bot.issue_refs import number_of
from bot.reconcile import gather
from bot.reconcile.changes import Change, PacketChange
from bot.reconcile.decide import Story, lease_report, pull_request
from bot.reconcile.labels_and_links import RECORD_TOPIC, implied, link_key, plan_native, recorded
from bot.reconcile.nudges import Nudges, overdue_reviews
from bot.render import Renderer
from bot.snapshot.model import Snapshot, WorkPacket
from tests.support.harness import Repo, comments

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
GITHUB_LIMIT = 65_536
HUGE = 100_000
# The tests below that drive each comment topic's worst case, registered as the module loads.
WORST_CASES: dict[Topic, list[str]] = {}
T = TypeVar("T", bound=Callable[..., None])


def worst_case(topic: Topic) -> Callable[[T], T]:
    def register(test: T) -> T:
        WORST_CASES.setdefault(topic, []).append(test.__name__)
        return test

    return register


def fits(body: str, config: BotConfig) -> None:
    assert len(body) <= config.commands.max_body_chars < GITHUB_LIMIT


def the_comment(body: str = "", cid: int = 900) -> Comment:
    return Comment(id=cid, issue=9497, user="alice", created_at=NOW, body=body)


@worst_case("command-reply")
def test_a_reply_to_twenty_help_lines_with_410_backticks_each(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], settings: Settings
) -> None:
    # The review's comment had 410 backticks on each line; runs of one length pair up into code
    # spans across lines (so only every other line is a command), so each line's run differs here.
    body = "\n".join("/perf help " + "`" * (410 + n) for n in range(20))
    sandbox.add_comment(101, 9497, "alice", body)
    (reply,) = comments(sandbox.reconcile(capsys, "--now", NOW.isoformat(), "--dry-run"))
    fits(reply["body"], settings.config)
    assert reply["body"].count("| command | effect | who |") == 1  # the help table once, not twenty times
    bot_reply = Comment(id=990, issue=9497, user="perfbot[bot]", created_at=NOW, body=reply["body"])
    assert [r.line for r in recorded_decisions([bot_reply])[101]] == list(range(1, 21))


@worst_case("command-reply")
def test_a_drop_over_3500_pending_commands(settings: Settings, renderer: Renderer, seed: Snapshot) -> None:
    pending = {(1000 + n, 1): 9000 for n in range(3500)}
    situation = Situation(seed, settings.config, renderer, {}, pending, frozenset(pending))
    drop = Command("drop", 1, "/perf drop all", Drop(drop_all=True))
    answer = effects.drop(situation, drop, the_comment(cid=9000))
    assert isinstance(answer, Answered)
    assert answer.text.endswith(f"and {3500 - effects.NAMED_DROPS} more")
    line = Line(1, drop.text, drop, "accepted", "accepted", answer.text)
    (reply,) = replies(Handled(the_comment(cid=9000), True, (line,)), renderer, settings)
    fits(reply.body, settings.config)


def replies(done: Handled, renderer: Renderer, settings: Settings) -> list[CommentAction]:
    voice = Voice(renderer, "/perf", frozenset(), frozenset({done.comment.id}), settings.config.commands.max_body_chars)
    return [a for a in actions(done, voice) if isinstance(a, CommentAction)]


@worst_case("command-reply")
def test_a_reply_whose_every_answer_is_huge_shows_each_cut_and_records_all(
    settings: Settings, renderer: Renderer
) -> None:
    block = Command("block", 1, "/perf block x " + "y" * 900, Blocking(target="x", condition="y" * 900))
    lines = tuple(
        dataclasses.replace(Line(n, block.text, block, "refused", "refused", "z" * HUGE), line=n) for n in range(1, 21)
    )
    (reply,) = replies(Handled(the_comment(), True, lines), renderer, settings)
    fits(reply.body, settings.config)
    # Every answer shows, its reason cut (one huge answer no longer hides the ones after it).
    assert reply.body.count("not applied: zzz") == 20
    assert reply.body.count("z…") == 20
    assert "more lines, not shown" not in reply.body
    assert len(recorded_decisions([Comment(id=991, issue=9497, user="b", created_at=NOW, body=reply.body)])[900]) == 20


@worst_case("command-lapsed")
def test_a_lapsed_notice_with_a_huge_reason(settings: Settings, renderer: Renderer) -> None:
    block = Command("block", 2, "/perf block x y", Blocking(target="x", condition="y"))
    line = Line(2, block.text, block, "accepted", "lapsed", "r" * HUGE, notice=True)
    (notice,) = replies(Handled(the_comment(), False, (line,)), renderer, settings)
    fits(notice.body, settings.config)
    assert ("lapsed", "900:2") in markers_in(notice.body)
    assert "more characters are not shown" in notice.body


def nudges(settings: Settings, renderer: Renderer, issues: tuple[Issue, ...] = ()) -> Nudges:
    observed = Observed(repository="o/r", bot_login="perfbot[bot]", issues=issues)
    return Nudges(observed, settings.config, renderer, NOW)


def huge_packet(seed: Snapshot, state: Any) -> WorkPacket:
    packet = seed.work_packets[0]
    return packet.model_copy(update={"state": state, "next_action": "n" * HUGE, "exit_when": "e" * HUGE})


def derivation(packet: WorkPacket, derived: Any, reasons: list[Reason], own_lease: bool = False) -> Derivation:
    return Derivation(
        id=packet.id,
        issue=packet.issue,
        recorded_state=packet.state,
        derived_state=derived,
        reasons=tuple(reasons),
        recorded_owner=packet.owner,
        derived_owner=packet.owner,
        own_lease=own_lease,
    )


@worst_case("packet-ready")
def test_a_ready_nudge_with_thousands_of_released_leases(
    settings: Settings, renderer: Renderer, seed: Snapshot
) -> None:
    packet = huge_packet(seed, "waiting-coordination")
    released = [Reason(kind="lease-released", subject=f"docs lease of issue-{n}-" + "h" * 80) for n in range(20_000)]
    snapshot = seed.model_copy(update={"work_packets": (packet,)})
    (nudge,) = nudges(settings, renderer).packets(snapshot, [derivation(packet, "ready", released)])
    fits(nudge.body, settings.config)
    assert nudge.topic == "packet-ready"
    assert "more reasons" in nudge.body or "more characters are not shown" in nudge.body


@worst_case("lease-lost")
def test_a_lease_lost_nudge_with_thousands_of_overlapping_leases(
    settings: Settings, renderer: Renderer, seed: Snapshot
) -> None:
    packet = huge_packet(seed, "running")
    overlaps = [Reason(kind="lease-overlap", subject=f"lease {n}", detail="p" * 500) for n in range(20_000)]
    snapshot = seed.model_copy(update={"work_packets": (packet,)})
    (nudge,) = nudges(settings, renderer).packets(snapshot, [derivation(packet, "waiting-coordination", overlaps)])
    fits(nudge.body, settings.config)
    assert nudge.topic == "lease-lost"


@worst_case("review-overdue")
def test_an_overdue_review_of_a_constraint_with_huge_fields(
    settings: Settings, renderer: Renderer, seed: Snapshot
) -> None:
    constraint = seed.constraints[0].model_copy(
        update={"review_by": dt.date(2026, 1, 1), "driver": "d" * HUGE, "next_action": "n" * HUGE, "name": "c" * 5000}
    )
    snapshot = seed.model_copy(update={"constraints": (constraint,)})
    (nudge,) = nudges(settings, renderer).reviews(snapshot, overdue_reviews(snapshot, NOW))
    fits(nudge.body, settings.config)
    assert any(topic == "review-overdue" for topic, _ in markers_in(nudge.body))


@worst_case("issue-mismatch")
def test_an_issue_mismatch_over_thousands_of_packets(settings: Settings, renderer: Renderer, seed: Snapshot) -> None:
    template = seed.work_packets[0]
    packets = tuple(
        template.model_copy(update={"id": f"p{n}", "name": "m" * 100, "issue": 5, "state": "ready"})
        for n in range(5000)
    )
    snapshot = seed.model_copy(update={"work_packets": packets})
    closed = (Issue(number=5, state="closed"),)
    (nudge,) = nudges(settings, renderer, closed).mismatches(
        snapshot, [derivation(p, p.state, []) for p in packets], snapshot
    )
    fits(nudge.body, settings.config)
    assert "more packets" in nudge.body
    assert "packets are not complete" in nudge.body


def many_links(seed: Snapshot) -> Snapshot:
    """One program with a huge name: 100 packet issues under its umbrella (GitHub's most sub-issues
    per parent), each blocked by the one before, and 3000 packets on the second that wait on the first."""
    program = seed.programs[0].model_copy(update={"name": "n" * HUGE})
    template = seed.work_packets[0]

    def packet(packet_id: str, issue: int, deps: tuple[str, ...]) -> WorkPacket:
        fields = {"id": packet_id, "issue": issue, "program_id": program.id, "state": "ready"}
        return template.model_copy(
            update={**fields, "hard_dependency_ids": deps, "blocked_by_ids": (), "satisfied_dependency_ids": ()}
        )

    chain = [packet(f"p{n}", 1000 + n, (f"p{n - 1}",) if n else ()) for n in range(100)]
    crowd = [packet(f"q{n}-" + "w" * 60, 1001, ("p0",)) for n in range(3000)]
    return seed.model_copy(update={"programs": (program,), "work_packets": (*chain, *crowd)})


def native_comments(snapshot: Snapshot, settings: Settings, renderer: Renderer, *said: Comment) -> list[CommentAction]:
    umbrella = snapshot.programs[0].authority_issue
    issues = (Issue(number=number_of(umbrella)), *(Issue(number=1000 + n) for n in range(100)))
    observed = Observed(repository="o/r", bot_login="perfbot[bot]", issues=issues, comments=said)
    derivations = [derivation(p, "ready", []) for p in snapshot.work_packets]
    found = plan_native(snapshot, snapshot, derivations, observed, settings.config, renderer)
    return [a for a in found.actions if isinstance(a, CommentAction)]


@worst_case("native-links")
def test_a_record_of_199_links_with_thousands_of_reasons_and_a_huge_program_name(
    settings: Settings, renderer: Renderer, seed: Snapshot
) -> None:
    snapshot = many_links(seed)
    (record,) = [a for a in native_comments(snapshot, settings, renderer) if a.topic == "native-links"]
    fits(record.body, settings.config)
    assert "more characters are not shown" in record.body
    # The header, which the next run reads, is whole: every kept link is still perfbot's.
    posted = Comment(id=1, issue=record.issue, user="perfbot[bot]", created_at=NOW, body=record.body)
    observed = Observed(repository="o/r", bot_login="perfbot[bot]", comments=(posted,))
    kept = recorded(observed)[snapshot.programs[0].id]
    assert kept == implied(snapshot)
    assert len(kept) == 100 + 99


@worst_case("native-restored")
def test_links_taken_off_by_hand_with_thousands_of_reasons_come_back_in_one_comment_that_fits(
    settings: Settings, renderer: Renderer, seed: Snapshot
) -> None:
    snapshot = many_links(seed)
    program = snapshot.programs[0]
    kept = sorted(implied(snapshot))
    markers = [(RECORD_TOPIC, program.id), *(("native-link", link_key(link)) for link in kept)]
    record = Comment(
        id=1, issue=program.authority_issue, user="perfbot[bot]", created_at=NOW, body=header(*markers) + "\nkept"
    )
    restored = [a for a in native_comments(snapshot, settings, renderer, record) if a.topic == "native-restored"]
    assert sorted(a.issue for a in restored) == [1000 + n for n in range(100)]  # every link was taken off
    crowded = next(a for a in restored if a.issue == 1001)
    fits(crowded.body, settings.config)
    assert "more characters are not shown" in crowded.body
    assert {topic for topic, _ in markers_in(crowded.body)} == {"native-restored"}  # the header stays whole
    for comment in restored:
        fits(comment.body, settings.config)


def test_a_pr_body_over_thousands_of_commands_and_changes(settings: Settings, seed: Snapshot) -> None:
    inputs = gather.inputs(settings, Observed(repository="o/r", bot_login="perfbot[bot]"), NOW)
    packet = seed.work_packets[0]
    long_reason = Reason(kind="condition", subject="c" * 250)
    derivations = [derivation(packet, "waiting-coordination", [long_reason] * 20)]
    changes: list[Change] = [
        PacketChange("packet", f"p{n}", 1, state=("ready", "waiting-coordination"), reasons=(long_reason,) * 20)
        for n in range(300)
    ]
    applied = [(the_comment(cid=1000 + n), "e" * 290) for n in range(3500)]
    files = {"config/snapshot.yaml": "changed\n"}
    action = pull_request(inputs, derivations, files, Story(changes, applied, []), lease_report(inputs))
    fits(action.body, settings.config)
    assert "more changes: see the snapshot's diff" in action.body


def test_every_comment_topic_has_a_worst_case_test() -> None:
    assert set(TOPICS) == set(WORST_CASES)
