"""One pass of the command pipeline on a small snapshot: decide, answer, then replay from the bot's own records."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Protocol

import pytest

from bot.commands.pipeline import Processed, process, unanswered
from bot.commands.records import Record
from bot.config import BotConfig
from bot.github.actions import Action, AssignAction, CommentAction, ReactAction
from bot.github.observed import Comment, Issue, Observed, PullRequest, Reaction
from bot.issue_refs import IssueKey, number_of
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from tests.unit.snapshot.values import edited, valid

BOT = "perfbot[bot]"
ISSUES = (Issue(number=11), Issue(number=12, assignees=("bob",)), Issue(number=13))


def said(cid: int, user: str, body: str, issue: int = 12) -> Comment:
    at = dt.datetime(2026, 8, 27, 10, tzinfo=dt.UTC) + dt.timedelta(minutes=cid % 100)
    return Comment(id=cid, issue=issue, user=user, created_at=at, body=body)


def observed(*comments: Comment, reactions: tuple[Reaction, ...] = ()) -> Observed:
    permissions = {"alice": "write", "root": "admin"}
    return Observed.model_validate(
        {"bot_login": BOT, "issues": ISSUES, "comments": comments, "reactions": reactions, "permissions": permissions}
    )


class Box:
    """One pass's outcome with its answers, as a run whose PR can carry records makes them."""

    def __init__(self, processed: Processed, carrier: bool = True) -> None:
        self.processed = processed
        answers = processed.answers(carrier)
        self.actions = answers.actions
        self.pull_records = answers.pull_records

    def __getattr__(self, name: str) -> Any:
        return getattr(self.processed, name)


class Reader(Protocol):
    def __call__(self, seen: Observed, base: Snapshot | None = None) -> Box: ...


def _with_replies(config: BotConfig, replies: str) -> BotConfig:
    return config.model_copy(update={"commands": config.commands.model_copy(update={"replies": replies})})


@pytest.fixture
def inbox(config: BotConfig, renderer: Renderer) -> Reader:
    """Every command comment answered with a reply (`commands.replies: all`): the reply records."""

    def run(seen: Observed, base: Snapshot | None = None) -> Box:
        return Box(process(base or valid(), seen, _with_replies(config, "all"), renderer))

    return run


@pytest.fixture
def quiet_inbox(config: BotConfig, renderer: Renderer) -> Reader:
    """The default, `commands.replies: errors`: accepted comments get 🚀 alone."""

    def run(seen: Observed, base: Snapshot | None = None) -> Box:
        return Box(process(base or valid(), seen, config, renderer))

    return run


def after(seen: Observed, actions: list[Action]) -> Observed:
    """What GitHub holds once the actions are done: the bot's comments and reactions added."""
    comments, reactions = list(seen.comments), list(seen.reactions)
    for number, action in enumerate(actions, start=900):
        if isinstance(action, CommentAction):
            comments.append(said(number, BOT, action.body, number_of(action.issue)))
        elif isinstance(action, ReactAction):
            reactions.append(Reaction(comment_id=action.comment_id, user=BOT, content=action.content))
    return seen.model_copy(update={"comments": tuple(comments), "reactions": tuple(reactions)})


def kinds(actions: list[Action]) -> list[str]:
    return [a.content if isinstance(a, ReactAction) else a.kind for a in actions]


def decisions(box: Box | Processed) -> list[tuple[object, object, object]]:
    return [(r["comment_id"], r["line"], r["decision"]) for r in box.reports]


BLOCK = said(201, "alice", "/perf block w2 window")


def test_a_new_command_is_decided_applied_and_answered(inbox: Reader) -> None:
    box = inbox(observed(BLOCK))
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"
    assert box.snapshot.ledger[-1].key == (201, 1)
    assert kinds(box.actions) == ["eyes", "comment", "rocket"]
    assert decisions(box) == [(201, 1, "accepted")]
    assert box.applied == [(BLOCK, "`w2` blocked: `window`")]
    assert box.assignees == {11: (), 12: ("bob",), 13: ()}
    assert box.settled_through == 0  # accepted, not merged yet


def test_the_next_run_replays_from_the_reply_and_says_nothing_again(inbox: Reader) -> None:
    first = observed(BLOCK)
    box = inbox(after(first, inbox(first).actions))
    assert decisions(box) == [(201, 1, "replayed")]
    assert box.actions == []
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"


def test_only_the_bots_own_reactions_count(inbox: Reader) -> None:
    others = (
        Reaction(comment_id=201, user="alice", content="eyes"),
        Reaction(comment_id=201, user="alice", content="rocket"),
    )
    assert kinds(inbox(observed(BLOCK, reactions=others)).actions) == ["eyes", "comment", "rocket"]
    mine = tuple(r.model_copy(update={"user": BOT}) for r in others[:1])
    assert kinds(inbox(observed(BLOCK, reactions=mine)).actions) == ["comment", "rocket"]
    # The bot's 🚀 with no reply is a quiet answer: the comment is replayed from its text, not decided again.
    rocket = tuple(r.model_copy(update={"user": BOT}) for r in others)
    box = inbox(observed(BLOCK, reactions=rocket))
    assert (kinds(box.actions), decisions(box)) == ([], [(201, 1, "replayed")])


def test_a_command_in_the_default_branchs_ledger_is_merged_and_settled(inbox: Reader) -> None:
    box = inbox(observed(said(101, "alice", "/perf block w2 window")))
    assert decisions(box) == [(101, 1, "merged")]
    assert box.snapshot == valid()
    assert box.settled_through == 101


def test_comments_at_or_below_the_settled_bound_are_not_read(inbox: Reader) -> None:
    base = valid().model_copy(update={"commands_settled_through": 201})
    box = inbox(observed(BLOCK, said(202, "alice", "/perf help")), base)
    assert decisions(box) == [(202, 1, "accepted")]
    assert box.settled_through == 202


def test_a_maintainers_drop_removes_a_pending_command(inbox: Reader) -> None:
    box = inbox(observed(BLOCK, said(202, "root", "/perf drop all")))
    assert decisions(box) == [(201, 1, "dropped"), (202, 1, "accepted")]
    assert box.snapshot == valid()
    assert box.applied == []
    assert box.settled_through == 202


def test_a_claim_assigns_the_commenter(inbox: Reader) -> None:
    box = inbox(observed(said(201, "alice", "/perf claim w2")))
    assert AssignAction(issue=12, login="alice", add=True) in box.actions
    assert box.assignees[12] == ("bob", "alice")
    assert box.settled_through == 201


def test_a_replayed_command_that_no_longer_applies_lapses_once(inbox: Reader) -> None:
    first = after(observed(BLOCK), inbox(observed(BLOCK)).actions)
    gone = edited("work_packets", 1, state="complete", result="done", next_action="")
    lapsed = inbox(first, gone)
    assert decisions(lapsed) == [(201, 1, "lapsed")]
    assert [a.topic for a in lapsed.actions if isinstance(a, CommentAction)] == ["command-lapsed"]
    assert lapsed.settled_through == 201
    again = inbox(after(first, lapsed.actions), gone)
    assert [r["reason"] for r in again.reports] == ["no longer applied (reported)"]
    assert again.actions == []


def test_a_reply_by_anyone_else_records_nothing(inbox: Reader) -> None:
    reply = inbox(observed(BLOCK)).actions[1]
    assert isinstance(reply, CommentAction)
    forged = observed(said(202, "mallory", reply.body))  # the comment 201 is gone; only a copy of the reply
    assert inbox(forged).reports == []


def test_an_assignee_may_block_their_packet_and_a_maintainer_may_drop_it(inbox: Reader) -> None:
    box = inbox(observed(said(201, "bob", "/perf block w2 mine"), said(202, "root", "/perf drop all")))
    assert decisions(box) == [(201, 1, "dropped"), (202, 1, "accepted")]
    assert [r["reason"] for r in box.reports][1] == "dropped pending commands: comment 201 line 1"


def test_a_drop_names_commands_accepted_in_an_earlier_run(inbox: Reader) -> None:
    first = after(observed(BLOCK), inbox(observed(BLOCK)).actions)
    seen = first.model_copy(update={"comments": (*first.comments, said(202, "root", "/perf drop all"))})
    box = inbox(seen)
    assert [r["reason"] for r in box.reports] == [
        "dropped by comment 202",
        "dropped pending commands: comment 201 line 1",
    ]


def test_a_claim_whose_run_stopped_after_the_reply_is_finished_by_the_next_run(inbox: Reader) -> None:
    claim = said(201, "alice", "/perf claim w2")
    replied = [a for a in inbox(observed(claim)).actions if isinstance(a, CommentAction)]
    box = inbox(after(observed(claim), list(replied)))
    assert decisions(box) == [(201, 1, "answered")]
    assert kinds(box.actions) == ["eyes", "assign", "rocket"]
    assert box.assignees[12] == ("bob", "alice")


def test_the_reply_says_the_configured_prefix(config: BotConfig, renderer: Renderer) -> None:
    custom = config.model_copy(update={"commands": config.commands.model_copy(update={"prefix": "!bot"})})
    box = Box(process(valid(), observed(said(201, "alice", "!bot nope")), custom, renderer))
    (reply,) = [a for a in box.actions if isinstance(a, CommentAction)]
    assert "Say `!bot help` for the grammar." in reply.body


def test_comments_by_the_bots_own_login_are_not_commands(config: BotConfig, renderer: Renderer) -> None:
    seen = observed(said(201, "perfbot-app", "/perf help")).model_copy(update={"bot_login": "perfbot-app"})
    assert process(valid(), seen, config, renderer).reports == []


def test_an_accepted_change_gets_a_rocket_alone_and_its_record_goes_in_the_pr(quiet_inbox: Reader) -> None:
    box = quiet_inbox(observed(BLOCK))
    assert kinds(box.actions) == ["rocket"]
    assert [(r.comment.id, r.line, r.text) for r in box.pull_records] == [(201, 1, BLOCK.body)]
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"


def test_a_pr_that_cannot_carry_records_brings_back_the_reply(quiet_inbox: Reader) -> None:
    box = Box(quiet_inbox(observed(BLOCK)).processed, carrier=False)
    assert kinds(box.actions) == ["comment", "rocket"]
    assert box.pull_records == []


def _in_pull(seen: Observed, records: list[Record], edited: bool = False, gone: bool = False) -> Observed:
    """GitHub after a quiet answer: the PR body holds the records, the comment its 🚀."""
    body = "".join(r.marker() + "\n" for r in records) + "perfbot reconciled"
    pull = PullRequest(number=7, head="perfbot/update", body=body)
    comments = tuple(
        c.model_copy(update={"edited": edited, "body": "edited"} if edited else {})
        for c in seen.comments
        if not (gone and c.id == 201)
    )
    rocket = Reaction(comment_id=201, user=BOT, content="rocket")
    return seen.model_copy(update={"pulls": (pull,), "reactions": (*seen.reactions, rocket), "comments": comments})


@pytest.mark.parametrize(("edited", "gone"), [(False, False), (True, False), (False, True)])
def test_a_quiet_answer_is_replayed_from_the_pr_body_whatever_became_of_its_comment(
    quiet_inbox: Reader, edited: bool, gone: bool
) -> None:
    first = quiet_inbox(observed(BLOCK))
    box = quiet_inbox(_in_pull(observed(BLOCK), first.pull_records, edited=edited, gone=gone))
    assert decisions(box) == [(201, 1, "replayed")]
    assert box.actions == []
    assert box.pull_records == first.pull_records  # carried on to the next body
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"


def test_a_quiet_answer_whose_pr_body_lost_its_records_is_read_again_from_its_unedited_comment(
    quiet_inbox: Reader,
) -> None:
    seen = _in_pull(observed(BLOCK), [])
    box = quiet_inbox(seen)
    assert (decisions(box), box.actions) == ([(201, 1, "replayed")], [])
    assert [r.text for r in box.pull_records] == [BLOCK.body]
    # Edited since, its text is no longer what was decided: it is not read, and nothing is applied.
    lost = quiet_inbox(_in_pull(observed(BLOCK), [], edited=True))
    assert (decisions(lost), lost.actions) == ([], [])


def test_records_in_a_pr_body_count_only_in_its_header(quiet_inbox: Reader) -> None:
    records = quiet_inbox(observed(BLOCK)).pull_records
    seen = _in_pull(observed(BLOCK), [])
    quoted = seen.pulls[0].model_copy(update={"body": "text first\n" + records[0].marker()})
    box = quiet_inbox(seen.model_copy(update={"pulls": (quoted,), "comments": ()}))
    assert decisions(box) == []


def test_a_drop_record_in_a_pr_body_is_not_one_perfbot_wrote(quiet_inbox: Reader) -> None:
    """A quiet answer never holds a drop (it names what it dropped, in a reply): one in the PR body
    was put there by hand, and does not drop the commands it names."""
    first = quiet_inbox(observed(BLOCK))
    drop = said(202, "root", "/perf drop all")
    forged = Record(drop, 1, "accepted", drop.body)
    seen = _in_pull(observed(BLOCK), [*first.pull_records, forged])
    box = quiet_inbox(seen.model_copy(update={"comments": (BLOCK,)}))
    assert decisions(box) == [(201, 1, "replayed")]
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"


def test_quiet_answers_share_half_the_pr_body_in_comment_order_and_the_rest_are_replied_to(
    config: BotConfig, renderer: Renderer
) -> None:
    first, second = said(201, "alice", "/perf block w2 window"), said(202, "alice", "/perf block w2 window again")
    processed = process(valid(), observed(first, second), config, renderer)
    room = len(Record(first, 1, "accepted", first.body).marker())
    voice = processed.voice
    # Half of the limit holds exactly the first record: the second comment is answered with a reply.
    tight = processed._replace(voice=voice._replace(limit=2 * room + 1))
    answers = tight.answers(carrier=True)
    assert [(r.comment.id, r.line) for r in answers.pull_records] == [(201, 1)]
    assert kinds(answers.actions) == ["rocket", "comment", "rocket"]
    roomy = processed.answers(carrier=True)
    assert [r.comment.id for r in roomy.pull_records] == [201, 202]
    assert kinds(roomy.actions) == ["rocket", "rocket"]


def test_records_carried_from_the_pr_body_take_their_room_first(
    quiet_inbox: Reader, config: BotConfig, renderer: Renderer
) -> None:
    carried = quiet_inbox(observed(BLOCK)).pull_records
    later = said(202, "alice", "/perf block w2 window again")
    seen = _in_pull(observed(BLOCK, later), carried)
    processed = process(valid(), seen, config, renderer)
    room = len(carried[0].marker())
    answers = processed._replace(voice=processed.voice._replace(limit=2 * room + 1)).answers(carrier=True)
    assert [r.comment.id for r in answers.pull_records] == [201]  # the carried one kept its place
    assert kinds(answers.actions) == ["comment", "rocket"]  # the new one is answered with a reply


def test_settled_records_leave_the_pr_body(quiet_inbox: Reader) -> None:
    base = valid().model_copy(update={"commands_settled_through": 100})
    older, newer = said(120, "alice", "/perf block w2 window"), said(201, "alice", "/perf block w2 window")
    box = Box(quiet_inbox(observed(older, newer), base).processed._replace(settled_through=120))
    assert [r.comment.id for r in box.pull_records] == [201]


def test_a_quiet_comment_at_the_floor_or_by_a_bot_is_not_read_again(quiet_inbox: Reader) -> None:
    rocket = (Reaction(comment_id=201, user=BOT, content="rocket"),)
    at_floor = valid().model_copy(update={"commands_settled_through": 201})
    assert decisions(quiet_inbox(observed(BLOCK, reactions=rocket), at_floor)) == []
    for login, kind in (("helper[bot]", "User"), ("helper", "Bot")):
        robot = BLOCK.model_copy(update={"user": login, "user_type": kind})
        assert decisions(quiet_inbox(observed(robot, reactions=rocket))) == []
    assert decisions(quiet_inbox(observed(BLOCK, reactions=rocket))) == [(201, 1, "replayed")]


def test_a_quiet_answer_needs_no_permission_asked_again(config: BotConfig) -> None:
    rocket = (Reaction(comment_id=201, user=BOT, content="rocket"),)
    assert [c.id for c in unanswered(observed(BLOCK), 0, config)] == [201]
    assert unanswered(observed(BLOCK, reactions=rocket), 0, config) == []
    assert unanswered(_in_pull(observed(BLOCK), []), 200, config) == []
    both = (*rocket, Reaction(comment_id=201, user=BOT, content="confused"))
    assert unanswered(observed(BLOCK, reactions=both), 0, config) == []  # finished, by a reply since deleted


def test_a_comment_with_a_refusal_is_never_read_again_from_its_text(quiet_inbox: Reader) -> None:
    """A 🚀 beside a 😕 was a reply's (someone deleted it): a refused line must not come back as accepted."""
    both = (
        Reaction(comment_id=201, user=BOT, content="rocket"),
        Reaction(comment_id=201, user=BOT, content="confused"),
    )
    box = quiet_inbox(observed(BLOCK, reactions=both))
    assert (decisions(box), box.actions) == ([], [])


def test_a_reply_says_which_open_pr_a_change_is_pending_in(inbox: Reader) -> None:
    pull = PullRequest(number=77, head="perfbot/update", body="perfbot reconciled")
    box = inbox(observed(BLOCK).model_copy(update={"pulls": (pull,)}))
    (reply,) = [a for a in box.actions if isinstance(a, CommentAction)]
    assert "pending in #77 until it merges" in reply.body
    other = pull.model_copy(update={"head": "someone/else"})
    (reply,) = [
        a for a in inbox(observed(BLOCK).model_copy(update={"pulls": (other,)})).actions if isinstance(a, CommentAction)
    ]
    assert "pending in perfbot's pull request until it merges" in reply.body


def test_the_bots_own_login_is_never_read_for_commands_even_without_a_bot_suffix(
    config: BotConfig, renderer: Renderer
) -> None:
    """A token of a person's account (a login without `[bot]`) runs perfbot: its own comments are not commands."""
    own = said(201, "perf-runner", "/perf block w2 window")
    seen = observed(own).model_copy(
        update={
            "bot_login": "perf-runner",
            "reactions": (Reaction(comment_id=201, user="perf-runner", content="rocket"),),
        }
    )
    assert process(valid(), seen, config, renderer).reports == []
    fresh = seen.model_copy(update={"reactions": ()})
    assert unanswered(fresh, 0, config) == []


def _explain(snapshot: Snapshot, target: str, assignees: Mapping[IssueKey, tuple[str, ...]]) -> str:
    packet = snapshot.packet(target)
    assert packet is not None
    return f"{target} held by {packet.blocked_by_condition or 'nothing'}; {len(assignees)} issues seen"


def test_every_why_of_a_run_answers_from_the_state_the_run_ends_on(config: BotConfig, renderer: Renderer) -> None:
    why = said(201, "alice", "/perf why w2")
    block = said(202, "alice", "/perf block w2 window")
    box = Box(process(valid(), observed(why, block), config, renderer, _explain))
    reasons = {(r["comment_id"], r["line"]): r["reason"] for r in box.reports}
    assert reasons[(201, 1)] == f"w2 held by window; {len(ISSUES)} issues seen"
    assert reasons[(202, 1)] != reasons[(201, 1)]  # the block's own words are left as they are
    (reply,) = [a for a in box.actions if isinstance(a, CommentAction)]
    assert "w2 held by window" in reply.body
    # Without an explainer, a why is refused and nothing is answered again.
    plain = Box(process(valid(), observed(why), config, renderer))
    assert [r["decision"] for r in plain.reports] == ["refused"]


def test_a_why_is_worked_out_once_from_the_snapshot_the_run_ends_on(config: BotConfig, renderer: Renderer) -> None:
    # An answer worked out from the working snapshot of its moment would be replaced at the end.
    asked: list[Snapshot] = []

    def explain(snapshot: Snapshot, target: str, assignees: Mapping[IssueKey, tuple[str, ...]]) -> str:
        asked.append(snapshot)
        return _explain(snapshot, target, assignees)

    comments = [
        said(201, "alice", "/perf why w2"),
        said(202, "alice", "/perf block w2 window"),
        said(203, "bob", "/perf why w2"),
    ]
    processed = process(valid(), observed(*comments), config, renderer, explain)
    assert len(asked) == 2
    assert all(snapshot is processed.snapshot for snapshot in asked)
    reasons = [r["reason"] for r in Box(processed).reports if r["comment_id"] != 202]
    assert reasons == [f"w2 held by window; {len(ISSUES)} issues seen"] * 2


def test_a_why_replayed_or_refused_keeps_its_words(config: BotConfig, renderer: Renderer) -> None:
    unknown = said(203, "alice", "/perf why nowhere")
    box = Box(process(valid(), observed(unknown), config, renderer, _explain))
    assert [r["decision"] for r in box.reports] == ["refused"]
    why = said(201, "alice", "/perf why w2")
    first = Box(process(valid(), observed(why), config, renderer, _explain))
    later = after(observed(why), first.actions)
    again = Box(process(valid(), later, config, renderer, _explain))
    assert [(r["decision"], r["reason"]) for r in again.reports] == [("answered", "answered earlier")]


@pytest.mark.parametrize(
    ("rocket", "edited", "gone", "decision"),
    [
        (False, False, False, "accepted"),  # still as posted, no 🚀: decided again, the record set aside
        (True, False, False, "replayed"),
        (False, True, False, "replayed"),
        (False, False, True, "replayed"),
    ],
)
def test_a_pr_body_record_counts_only_for_a_finished_or_changed_comment(
    quiet_inbox: Reader, rocket: bool, edited: bool, gone: bool, decision: str
) -> None:
    records = quiet_inbox(observed(BLOCK)).pull_records
    seen = _in_pull(observed(BLOCK), records, edited=edited, gone=gone)
    if not rocket:
        seen = seen.model_copy(update={"reactions": ()})
    assert decisions(quiet_inbox(seen)) == [(201, 1, decision)]


def test_a_record_unlike_its_unedited_comment_is_not_counted_and_the_comment_stands(quiet_inbox: Reader) -> None:
    """A record is perfbot's only as it records the comment: one that holds another command than
    the unedited comment (written by someone's hand) is named, and the comment's own text decides."""
    other = Record(BLOCK, 1, "accepted", "/perf block w2 another window")
    box = quiet_inbox(_in_pull(observed(BLOCK), [other]))
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"
    assert [(r.where, r.comment_id) for r in box.ignored] == [("pull-body", 201)]
    assert "does not hold" in box.ignored[0].reason


@pytest.mark.parametrize("who", ["user", "editor"])
def test_records_in_a_body_opened_or_last_edited_by_someone_else_do_not_count(
    quiet_inbox: Reader, config: BotConfig, who: str
) -> None:
    """GitHub names who opened the PR and who last edited its body; no one can make it name perfbot."""
    forged = Record(said(299, "carol", "/perf block w2 forged"), 1, "accepted", "/perf block w2 forged")
    seen = _in_pull(observed(BLOCK), [*quiet_inbox(observed(BLOCK)).pull_records, forged])
    (pull,) = seen.pulls
    seen = seen.model_copy(update={"pulls": (pull.model_copy(update={who: "mallory"}),)})
    box = quiet_inbox(seen)
    packet = box.snapshot.packet("w2")
    assert packet is not None
    assert packet.blocked_by_condition == "window"  # 201 read again from its text, as 🚀'd and unedited
    assert sorted(r.comment_id for r in box.ignored) == [201, 299]
    assert {r.reason for r in box.ignored} == {"PR #7's body was opened or last edited by mallory, not perfbot"}


def test_a_record_naming_another_author_than_its_comment_is_not_counted(quiet_inbox: Reader) -> None:
    """A record must name the comment's own author and issue: GitHub says who wrote the comment."""
    as_carol = Record(BLOCK.model_copy(update={"user": "carol"}), 1, "accepted", BLOCK.body)
    box = quiet_inbox(_in_pull(observed(BLOCK), [as_carol]))
    (ignored,) = box.ignored
    assert ignored.comment_id == 201
    assert ignored.reason.startswith("it names another author or issue than comment 201 (by alice")
    assert [(r["comment_id"], r["decision"]) for r in box.reports] == [(201, "replayed")]  # read again, as alice's
