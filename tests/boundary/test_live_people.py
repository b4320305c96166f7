"""People touch perfbot's PR (issue #39), live against the GitHub double through the CLI: a branch a
person pushed to, then the PR merged or closed, never wedges the runs that follow; a person's commits
on an open PR stay, and the job summary and the dashboard say what to do; no sequence of what people
do to the branch, the PR and the default branch wedges a run; a person's title and their text above
and below perfbot's part of the body stay through runs with and without news."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.github.actions import RECORD_TRAILER
from bot.github.pull_body import END as PULL_BODY_END
from tests.boundary.test_live import COMPLETE, REPO, Live, with_commands
from tests.github_double import branches
from tests.support.backends import live_environ
from tests.support.harness import Repo, pull

LATER = "2026-08-27T11:00:00Z"
REVIEW = "/perf review metal-resident-decode by 2026-09-04"
BRANCH = "perfbot/update"


@pytest.fixture
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Live:
    return Live(sandbox, capsys)


def open_numbers(live: Live) -> list[int]:
    return [p["number"] for p in live.sandbox.state()["pulls"] if p["state"] == "open"]


def reactions_on(live: Live, comment_id: int) -> list[str]:
    state = live.sandbox.state()
    return [
        r["content"] for r in state["reactions"] if r["comment_id"] == comment_id and r["user"] == state["bot_login"]
    ]


def with_dashboard(live: Live) -> None:
    text = live.sandbox.config.read_text(encoding="utf-8")
    live.sandbox.config.write_text(text.replace("dashboard:\n  enabled: false", "dashboard:\n  enabled: true"))


def summarised(live: Live, tmp_path: Path) -> tuple[dict[str, Any], str]:
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    status, out, err = live.run("--json", environ=live_environ(REPO) | {"GITHUB_STEP_SUMMARY": str(summary)})
    assert status == 0, err
    return json.loads(out), summary.read_text(encoding="utf-8")


@pytest.mark.parametrize("ending", ["merged", "closed"])
def test_a_branch_a_person_pushed_to_starts_again_from_the_tip_once_its_pr_is_merged_or_closed(
    live: Live, ending: str, tmp_path: Path
) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (first,) = open_numbers(live)
    pushed = live.double.push(BRANCH, {"notes.md": "mine\n"})
    if ending == "merged":
        live.double.merge_pull(first)
    else:
        live.double.close_pull(first)
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)  # posted meanwhile

    status, printed, err = live.run("--dry-run")
    assert status == 0, err
    assert (
        f"the branch starts again from the default branch's tip: its head {pushed[:12]} is a commit perfbot" in printed
    )
    plan, summary = summarised(live, tmp_path)
    assert f"`perfbot/update` starts again from the default branch's tip: its head {pushed[:12]} is a commit" in summary
    assert pull(plan)["operation"] == "create"
    assert pull(plan)["restarted"] == (
        f"its head {pushed[:12]} is a commit perfbot did not make, and no PR is open from it"
    )
    head = live.double.tip(BRANCH)
    assert head is not None
    assert head != pushed
    commit = live.double.world.git.commits[head]
    assert commit.parents == (live.double.tip(),)  # one bot commit on the default branch's tip
    assert commit.author.login == live.double.world.bot_login
    (second,) = open_numbers(live)
    assert second != first
    assert reactions_on(live, 900) == ["rocket"]
    record = next(p for p in live.sandbox.state()["pulls"] if p["number"] == second)
    assert "(comment 900)" in record["body"]
    assert ("comment 101" in record["body"]) is (ending == "closed")  # a closed PR's command is carried again
    # Settled: a run with nothing new writes nothing and still exits 0.
    live.plan()
    assert live.writes() == []
    # Closed again with only perfbot's commit on the branch: a new PR, and nothing is left behind.
    live.double.close_pull(second)
    live.sandbox.add_comment(990, 8324, "alice", "/perf review metal-resident-decode by 2026-09-06", at=LATER)
    plan = live.plan()
    assert pull(plan)["operation"] == "create"
    assert "restarted" not in pull(plan)


def test_a_pr_whose_head_branch_a_person_deleted_and_pushed_again_does_not_wedge(live: Live) -> None:
    """The branch recreated by a person from the tip, no PR open: started again from the tip."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (first,) = open_numbers(live)
    live.double.close_pull(first)
    live.double.world.git.refs.pop(BRANCH)
    live.double.push(BRANCH, {"notes.md": "mine\n"})
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)
    assert pull(live.plan())["operation"] == "create"
    head = live.double.tip(BRANCH)
    assert head is not None
    assert live.double.world.git.commits[head].parents == (live.double.tip(),)
    assert len(open_numbers(live)) == 1


def test_a_persons_commits_on_an_open_pr_stay_and_every_surface_says_what_to_do(live: Live, tmp_path: Path) -> None:
    with_dashboard(live)
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    pushed = live.double.push(BRANCH, {"notes.md": "mine\n"})
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)
    plan, summary = summarised(live, tmp_path)
    assert pull(plan)["held"] is True
    assert live.double.tip(BRANCH) == pushed
    assert not [w for w in live.writes() if "/git/" in w or "/pulls" in w]
    assert "carries commits perfbot did not make, so perfbot leaves it as it is" in summary
    assert "merge or close" in summary
    assert "take those commits off `perfbot/update`" in summary
    board = next(i for i in live.sandbox.state()["issues"] if "perfbot-dashboard" in i.get("labels", []))
    assert f"#{number} carries commits perfbot did not make" in board["body"]
    assert "merge or close" in board["body"]
    # Merged by a person: the next run opens a new PR and the dashboard no longer says so.
    live.double.merge_pull(number)
    live.sandbox.add_comment(9901, 8324, "alice", "/perf review metal-resident-decode by 2026-09-05", at=LATER)
    assert pull(live.plan())["operation"] == "create"
    board = next(i for i in live.sandbox.state()["issues"] if "perfbot-dashboard" in i.get("labels", []))
    assert "carries commits perfbot did not make" not in board["body"]


def test_a_persons_title_and_note_below_perfbots_part_survive_runs_with_and_without_news(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    state = live.sandbox.state()
    record = next(p for p in state["pulls"] if p["number"] == number)
    assert record["body"].rstrip().endswith(PULL_BODY_END)
    state["permissions"]["mallory"] = "write"
    live.sandbox.write_state(state)
    live.double.tokens = {"mallory-token": "mallory"}
    note = "\n\nReviewed with the team on Monday: merge after the release.\n"
    headers = {"authorization": "token mallory-token"}
    with httpx.Client(transport=live.double.transport(), base_url="https://api.github.com", headers=headers) as http:
        answer = http.patch(
            f"/repos/{REPO}/pulls/{number}",
            json={"title": "Constraints for the release", "body": record["body"] + note},
        )
        assert answer.status_code == 200

    assert pull(live.plan())["operation"] == "none"  # nothing new: nothing written
    assert live.writes() == []
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)
    assert pull(live.plan())["operation"] == "update"  # a change: perfbot's part only
    after = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)
    assert after["title"] == "Constraints for the release"
    assert after["body"].endswith(PULL_BODY_END + note)
    assert "(comment 900)" in after["body"]


def forge_commit(live: Live, message: str) -> str:
    """mallory (write access) puts a commit on perfbot's branch through the REST API, naming perfbot as
    its author with perfbot's own address: git takes any author, and GitHub signs no such commit."""
    world = live.double.world
    live.double.tokens["mallory-secret"] = "mallory"
    bot = world.bot_login
    email = f"{branches.user_id(bot)}+{bot}@users.noreply.github.com"
    head = live.double.tip(BRANCH)
    assert head is not None
    tree = world.git.commits[head].tree
    base = f"https://api.github.com/repos/{REPO}"
    headers = {"authorization": "token mallory-secret"}
    with httpx.Client(transport=live.double.transport(), headers=headers) as http:
        made = http.post(
            f"{base}/git/commits",
            json={"message": message, "tree": tree, "parents": [head], "author": {"name": bot, "email": email}},
        )
        assert made.status_code == 201, made.text
        oid = str(made.json()["sha"])
        assert made.json()["verification"]["verified"] is False
        moved = http.patch(f"{base}/git/refs/heads/{BRANCH}", json={"sha": oid})
        assert moved.status_code == 200, moved.text
    return oid


def test_a_commit_that_names_perfbot_as_its_author_is_a_persons_and_its_records_count_for_nothing(
    live: Live,
) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.sandbox.edit_state(permissions={"alice": "write", "mallory": "read"})
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    record = {"f": 2, "c": 777, "i": 8324, "a": "alice", "at": "2026-08-27T09:00:00+00:00", "l": 1, "v": "accepted"}
    trailer = json.dumps({**record, "t": REVIEW}, separators=(",", ":"))
    forged = forge_commit(live, f"Regenerate\n\n{RECORD_TRAILER}: {trailer}\n")
    plan = live.plan()
    # The branch carries a commit perfbot did not make: the PR is held, not overwritten, and the
    # forged record of a comment that never existed applies nothing.
    assert pull(plan)["held"] is True
    assert live.double.tip(BRANCH) == forged
    assert 777 not in [c["comment_id"] for c in plan["commands"]]
    # ...and is named in the plan, with the commit that carries it.
    assert plan["ignored_records"] == [
        {
            "where": "commit",
            "comment_id": 777,
            "reason": f"it is in commit {forged[:12]} on {BRANCH}, which perfbot did not make",
        }
    ]
    # Closed by a person: the next PR starts from the tip, without the forged command.
    live.double.close_pull(number)
    plan = live.plan()
    assert pull(plan)["operation"] == "create"
    assert 777 not in [c["comment_id"] for c in plan["commands"]]
    assert "comment_id: 777" not in pull(plan)["files"]["config/snapshot.yaml"]
    assert "comment_id: 101" in pull(plan)["files"]["config/snapshot.yaml"]


@pytest.mark.parametrize("branch_then", ["deleted", "pushed again by a person"])
def test_a_quiet_command_survives_its_closed_pr_losing_its_branch_and_its_comment_edited(
    live: Live, branch_then: str
) -> None:
    """GitHub keeps a closed PR's commits when its branch is deleted: perfbot's own commit there
    still records the command answered with 🚀 alone."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (first,) = open_numbers(live)
    live.double.close_pull(first)
    live.double.world.git.refs.pop(BRANCH)
    live.double.world.git_changed()
    live.double.world.save()
    if branch_then == "pushed again by a person":
        live.double.push(BRANCH, {"notes.md": "mine\n"})
    state = live.sandbox.state()
    for comment in state["comments"]:
        if comment["id"] == 101:
            comment.update(body=COMPLETE + " (typo fixed)", edited=True)
    live.sandbox.write_state(state)
    plan = live.plan()
    assert pull(plan)["operation"] == "create"
    assert pull(plan)["files"]["config/snapshot.yaml"].count("comment_id: 101\n") == 1
    assert [c["decision"] for c in plan["commands"] if c["comment_id"] == 101] == ["replayed"]
    assert reactions_on(live, 101) == ["rocket"]
    assert not [c for c in live.sandbox.state()["comments"] if "perfbot:command-reply" in c["body"]]


def by_mallory(live: Live, number: int, **fields: str) -> None:
    """mallory (write access) edits the PR through GitHub's REST API, as the web editor does."""
    live.sandbox.edit_state(permissions={**live.sandbox.state()["permissions"], "mallory": "write"})
    live.double.tokens = {"mallory-token": "mallory"}
    headers = {"authorization": "token mallory-token"}
    with httpx.Client(transport=live.double.transport(), base_url="https://api.github.com", headers=headers) as http:
        assert http.patch(f"/repos/{REPO}/pulls/{number}", json=fields).status_code == 200


NOTE = "Reviewed with the team on Monday: merge after the release."
# What a person does to the body, and the note that must stay.
BODY_EDITS: dict[str, Callable[[str], str]] = {
    "a note above perfbot's part": lambda body: NOTE + "\n\n" + body,
    "a note below it": lambda body: body + "\n\n" + NOTE,
    "a note above and one below": lambda body: NOTE + "\n" + body + "\n" + NOTE.upper(),
    "its end marker deleted, a note below": lambda body: body.replace(PULL_BODY_END, "") + NOTE,
    "the body replaced by the person's own text": lambda body: NOTE,
    "perfbot's part duplicated, a note between": lambda body: body + "\n\n" + NOTE + "\n\n" + body,
    "a note above, in GitHub's editor line breaks": lambda body: (NOTE + "\n\n" + body).replace("\n", "\r\n"),
}


@pytest.mark.parametrize("edit", list(BODY_EDITS))
def test_a_persons_text_around_perfbots_part_stays_through_runs_with_and_without_news(
    live: Live, tmp_path: Path, edit: str
) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    before = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)["body"]
    by_mallory(live, number, title="Constraints for the release", body=BODY_EDITS[edit](before))

    if edit.startswith("the body replaced"):
        # perfbot's part is gone: written back once, below the person's text, which stays.
        assert pull(live.plan())["operation"] == "update"
        body = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)["body"]
        assert body.startswith(NOTE + "\n\n<!-- perfbot:pr-body ")
    assert pull(live.plan())["operation"] == "none"  # nothing new: nothing written
    assert live.writes() == []
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)
    plan, summary = summarised(live, tmp_path)
    assert pull(plan)["operation"] == "update"
    assert "replaced" not in pull(plan)
    assert "edited inside perfbot's part" not in summary
    after = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)
    assert after["title"] == "Constraints for the release"
    assert NOTE in after["body"]
    assert "(comment 900)" in after["body"]
    assert "(comment 101)" in after["body"]
    # perfbot's part counts again (it wrote it last): both records read back, none ignored.
    again = live.plan()
    assert "ignored_records" not in again
    assert pull(again)["operation"] == "none"
    assert sorted(c["comment_id"] for c in again["commands"]) == [101, 900]


def test_a_persons_edit_inside_perfbots_part_is_replaced_and_every_surface_says_so(live: Live, tmp_path: Path) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    before = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)["body"]
    inside = before.replace("perfbot reconciled", NOTE + "\n\nperfbot reconciled", 1)
    assert inside != before
    by_mallory(live, number, body="Above.\n\n" + inside + "\n\nBelow.")
    status, printed, _ = live.run("--dry-run")
    assert status == 0
    assert f"update pull request #{number} from perfbot/update (a person edited inside perfbot's part" in printed
    plan, summary = summarised(live, tmp_path)
    assert pull(plan)["operation"] == "update"
    assert pull(plan)["replaced"] is True
    assert f"A person edited inside perfbot's part of the body of [#{number}]" in summary
    assert "Text written above perfbot's part or below its end is kept" in summary
    after = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)["body"]
    assert NOTE not in after
    assert after.startswith("Above.\n\n<!-- perfbot:pr-body ")
    assert after.endswith(PULL_BODY_END + "\n\nBelow.")


def newest_pull(live: Live, state: str) -> int | None:
    numbers = [p["number"] for p in live.sandbox.state()["pulls"] if p["state"] == state]
    return max(numbers, default=None)


def _people_push(live: Live) -> None:
    live.double.push(BRANCH, {"notes.md": f"mine {len(live.double.world.git.commits)}\n"})


def _merge(live: Live) -> None:
    if (number := newest_pull(live, "open")) is not None:
        live.double.merge_pull(number)


def _close(live: Live) -> None:
    if (number := newest_pull(live, "open")) is not None:
        live.double.close_pull(number)


def _reopen(live: Live) -> None:
    """A person reopens the newest closed PR (GitHub refuses one whose branch was recreated since)."""
    number = newest_pull(live, "closed")
    if number is None:
        return
    live.sandbox.edit_state(permissions={**live.sandbox.state()["permissions"], "mallory": "write"})
    live.double.tokens = {"mallory-token": "mallory"}
    headers = {"authorization": "token mallory-token"}
    with httpx.Client(transport=live.double.transport(), base_url="https://api.github.com", headers=headers) as http:
        reopened = http.patch(f"/repos/{REPO}/pulls/{number}", json={"state": "open"})
        assert reopened.status_code in (200, 422), reopened.text


def _delete_branch(live: Live) -> None:
    """A person deletes perfbot's branch: GitHub closes the PR open from it."""
    _close(live)
    live.double.world.git.refs.pop(BRANCH, None)
    live.double.world.git_changed()
    live.double.world.save()


def _rewind_default(live: Live) -> None:
    """A person force-pushes the default branch back to the first parent of its tip."""
    world = live.double.world
    tip = live.double.tip()
    assert tip is not None
    parents = world.git.commits[tip].parents
    if parents:
        branches.move(world, world.default_branch, parents[0])


def _force_push_branch(live: Live) -> None:
    """A person force-pushes perfbot's branch to a commit of theirs on the default branch's tip."""
    world = live.double.world
    tip = live.double.tip()
    assert tip is not None
    tree = world.git.put_files(world.git.files(tip) | {"notes.md": "mine, forced\n"})
    branches.move(world, BRANCH, branches.commit(world, tree, [tip], "Mine", branches.PERSON))


STEPS = {
    "push": _people_push,
    "merge": _merge,
    "close": _close,
    "reopen": _reopen,
    "delete branch": _delete_branch,
    "rewind default": _rewind_default,
    "force-push branch": _force_push_branch,
}
SEQUENCES = [
    ("push", "merge", "push", "merge"),
    ("push", "close", "reopen", "merge"),
    ("push", "close", "reopen", "close"),
    ("push", "delete branch", "push", "merge"),
    ("delete branch", "reopen", "push", "close"),
    ("merge", "rewind default", "push", "rewind default"),
    ("push", "merge", "rewind default", "reopen"),
    ("force-push branch", "merge", "merge", "close"),
    ("force-push branch", "close", "reopen", "push"),
]


def answered(live: Live, comment_id: int) -> bool:
    state = live.sandbox.state()
    bot = state["bot_login"]
    reacted = any(r["comment_id"] == comment_id and r["user"] == bot for r in state["reactions"])
    replied = any(c["user"] == bot and f"perfbot:command-reply {comment_id} " in c["body"] for c in state["comments"])
    return reacted or replied


@pytest.mark.parametrize("steps", SEQUENCES, ids=" / ".join)
def test_no_state_of_the_branch_the_pr_or_the_default_branch_wedges_the_runs_that_follow(
    live: Live, steps: tuple[str, ...]
) -> None:
    """After each thing people do, a run exits 0 and answers the command posted meanwhile; a run
    with nothing new after the last one writes nothing."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    for n, step in enumerate(steps):
        STEPS[step](live)
        comment_id = 7_000_000 + 1_000 * (n + 1)  # the double numbers new comments from the highest up
        command = f"/perf review metal-resident-decode by 2026-09-{10 + n:02d}"
        live.sandbox.add_comment(comment_id, 8324, "alice", command, at=LATER)
        status, _, err = live.run()
        assert status == 0, f"after {step}: {err}"
        assert answered(live, comment_id), step
        assert len(open_numbers(live)) <= 1
    assert live.run()[0] == 0
    assert live.writes() == []
    # Nothing applied twice: each command at most once in the default branch's ledger and the PR's.
    texts = [live.double.files().get("config/snapshot.yaml", "")]
    texts += [p["files"].get("config/snapshot.yaml", "") for p in live.sandbox.state()["pulls"] if p["state"] == "open"]
    for text in texts:
        ids = re.findall(r"comment_id: (\d+)\n", text)
        assert len(ids) == len(set(ids)), ids


def comment_changed(state: dict[str, Any], comment_id: int, change: str) -> dict[str, Any]:
    """The state with the comment edited by its author, or deleted."""
    if change == "deleted":
        return state | {"comments": [c for c in state["comments"] if c["id"] != comment_id]}
    for comment in state["comments"]:
        if comment["id"] == comment_id:
            comment.update(body=comment["body"] + " (typo fixed)", edited=True)
    return state


@pytest.mark.parametrize("to_the_comment", ["edited", "deleted"])
@pytest.mark.parametrize("then", ["merged", "closed"])
def test_a_quiet_command_survives_a_person_force_pushing_perfbots_branch_and_rewriting_the_body(
    live: Live, to_the_comment: str, then: str
) -> None:
    """GitHub keeps the commit a force-push took off a PR's branch (the PR's HeadRefForcePushedEvent
    names it): perfbot's commit there still records the command answered with 🚀 alone."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    _force_push_branch(live)
    by_mallory(live, number, body="Our own description of this PR.")
    live.sandbox.write_state(comment_changed(live.sandbox.state(), 101, to_the_comment))
    held = live.plan()
    assert pull(held)["held"] is True
    assert [c["decision"] for c in held["commands"] if c["comment_id"] == 101] == ["replayed"]
    if then == "merged":
        live.double.merge_pull(number)
    else:
        live.double.close_pull(number)
    plan = live.plan()
    assert pull(plan)["operation"] == "create"
    assert pull(plan)["files"]["config/snapshot.yaml"].count("comment_id: 101\n") == 1
    assert [c["decision"] for c in plan["commands"] if c["comment_id"] == 101] == ["replayed"]
    assert not [c for c in live.sandbox.state()["comments"] if "perfbot:command-reply" in c["body"]]


@pytest.mark.parametrize("size", [65_536, 65_400])
def test_a_body_people_filled_to_githubs_limit_never_wedges_a_run(live: Live, tmp_path: Path, size: int) -> None:
    """perfbot's part cannot fit beside a person's text of GitHub's whole 65,536 characters (or
    nearly): the body stays as they wrote it, the branch still moves, the commit keeps the records."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = open_numbers(live)
    text = ("Our own long account of this PR. " * 2_000)[:size]
    by_mallory(live, number, body=text)
    assert pull(live.plan())["crowded"] is True  # nothing new: nothing written, and said
    assert live.writes() == []
    live.sandbox.add_comment(900, 8324, "alice", REVIEW, at=LATER)
    plan, summary = summarised(live, tmp_path)
    assert pull(plan)["operation"] == "update"
    assert pull(plan)["crowded"] is True
    assert "perfbot's part does not fit beside it within GitHub's 65,536 characters" in summary
    after = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)
    assert after["body"] == text
    assert "comment_id: 900" in after["files"]["config/snapshot.yaml"]
    # The commit keeps both records: each command is replayed, none lost, and the run is settled.
    again = live.plan()
    assert sorted((c["comment_id"], c["decision"]) for c in again["commands"]) == [(101, "replayed"), (900, "replayed")]
    assert pull(again)["operation"] == "none"
    assert live.writes() == []
    # Shortened by a person: perfbot's part comes back below their text.
    by_mallory(live, number, body=text[:1_000])
    assert pull(live.plan())["operation"] == "update"
    body = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)["body"]
    assert body.startswith(text[:1_000] + "\n\n<!-- perfbot:pr-body ")


@pytest.mark.parametrize("to_the_comment", ["edited", "deleted"])
def test_an_accepted_command_survives_a_person_deleting_perfbots_reply_then_its_comment_changing(
    live: Live, to_the_comment: str
) -> None:
    """A reply is a carrier people can delete; perfbot's commit keeps every pending change's record."""
    live.sandbox.reply_to_all()
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    state = live.sandbox.state()
    replies = [c for c in state["comments"] if "perfbot:command-reply 101" in c["body"]]
    assert len(replies) == 1
    state["comments"] = [c for c in state["comments"] if c not in replies]
    live.sandbox.write_state(comment_changed(state, 101, to_the_comment))
    plan = live.plan()
    assert [c["decision"] for c in plan["commands"] if c["comment_id"] == 101] == ["replayed"]
    (number,) = open_numbers(live)
    record = next(p for p in live.sandbox.state()["pulls"] if p["number"] == number)
    assert record["files"]["config/snapshot.yaml"].count("comment_id: 101\n") == 1
    live.double.merge_pull(number)
    assert live.run()[0] == 0
    assert live.double.files()["config/snapshot.yaml"].count("comment_id: 101\n") == 1
    assert open_numbers(live) == []
