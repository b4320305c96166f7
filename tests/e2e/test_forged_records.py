"""Records perfbot did not write as they stand count for nothing (issue #39), through the CLI: a
record added to the PR body by hand for a comment that never existed, a real comment's record
rewritten, and a native-links record a person edited. GitHub names who last edited a body (its
`editor`), which no one can set to perfbot's login; the plan names what it did not count."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from bot.commands.records import Record
from bot.github import pull_body
from bot.github.observed import Comment
from bot.github.pull_body import END as PULL_BODY_END
from tests.boundary.test_live import COMPLETE, REPO, with_commands
from tests.github_double.graphql_labels import issue_id
from tests.support.backends import double_on
from tests.support.harness import Repo, comments, pull

NOW = "2026-08-27T18:00:00Z"
TOKEN = "mallory-token"
BLOCK = "/perf block profile.real-cuda a forged hold"


@contextmanager
def by_hand(repo: Repo, login: str = "mallory") -> Iterator[httpx.Client]:
    """A person with write access using GitHub's REST API on the state file's repository."""
    state = repo.state()
    state.setdefault("permissions", {})[login] = "write"
    repo.write_state(state)
    double = double_on(repo.state_path, repo.root)
    double.tokens = {TOKEN: login}
    headers = {"authorization": f"token {TOKEN}"}
    with httpx.Client(transport=double.transport(), base_url="https://api.github.com", headers=headers) as http:
        yield http


def forged(comment_id: int, user: str, text: str, issue: int = 9497) -> str:
    """A record exactly as perfbot writes one: its format is public, so anyone can copy it."""
    at = dt.datetime(2026, 8, 27, 10, 30, tzinfo=dt.UTC)
    return Record(
        Comment(id=comment_id, issue=issue, user=user, created_at=at, body=text), 1, "accepted", text
    ).marker()


def first_pr(repo: Repo, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    with_commands(repo, (101, 8325, "alice", COMPLETE))
    repo.reconcile(capsys, "--now", NOW)
    opened: list[dict[str, Any]] = [p for p in repo.state()["pulls"] if p["state"] == "open"]
    assert len(opened) == 1
    assert "(comment 101)" in opened[0]["body"]
    return opened[0]


def snapshot_of(plan: dict[str, Any]) -> str:
    return str(pull(plan).get("files", {}).get("config/snapshot.yaml", ""))


@pytest.mark.parametrize("where", ["above perfbot's part", "in perfbot's header"])
def test_a_record_for_a_comment_that_never_existed_changes_nothing_and_is_named(
    either: Repo, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    record = first_pr(either, capsys)
    state = either.state()
    state["permissions"]["reader"] = "read"
    either.write_state(state)
    start, _, rest = record["body"].partition("\n")
    line = forged(4242, "reader", BLOCK)
    body = line + "\n" + record["body"] if where.startswith("above") else start + "\n" + line + "\n" + rest
    with by_hand(either) as http:
        assert http.patch(f"/repos/{REPO}/pulls/{record['number']}", json={"body": body}).status_code == 200
    plan = either.reconcile(capsys, "--now", NOW)
    assert "a forged hold" not in snapshot_of(plan)
    assert "comment_id: 4242" not in snapshot_of(plan)
    assert not [c for c in plan["commands"] if c["comment_id"] == 4242]
    # The real 🚀'd command still counts (perfbot's commit keeps its record), and nothing new is proposed.
    assert [(c["comment_id"], c["decision"]) for c in plan["commands"]] == [(101, "replayed")]
    ignored = {(r["where"], r["comment_id"]) for r in plan["ignored_records"]}
    if where.startswith("above"):
        # Text above perfbot's part is people's: kept as it is, its record named and never counted.
        assert ignored == {("pull-body", 4242), ("pull-body", 101)}
        assert pull(plan)["operation"] == "none"
        assert "text above perfbot's part" in plan["ignored_records"][0]["reason"]
        return
    assert ignored == {("pull-body", 4242), ("pull-body", 101)}
    # perfbot writes its own part again: from then on its records count, and the forgery is gone.
    assert pull(plan)["operation"] == "update"
    assert pull(plan)["replaced"] is True
    (now,) = [p for p in either.state()["pulls"] if p["state"] == "open"]
    assert "4242" not in now["body"]
    again = either.reconcile(capsys, "--now", NOW)
    assert "ignored_records" not in again
    assert [(c["comment_id"], c["decision"]) for c in again["commands"]] == [(101, "replayed")]
    assert pull(again)["operation"] == "none"


def test_a_real_comments_record_rewritten_by_hand_is_not_what_is_applied(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    record = first_pr(either, capsys)
    real = [line for line in record["body"].splitlines() if "%22c%22:101%2C" in line]
    assert len(real) == 1
    rewritten = forged(101, "alice", BLOCK, issue=8325)
    with by_hand(either) as http:
        body = record["body"].replace(real[0], rewritten)
        assert http.patch(f"/repos/{REPO}/pulls/{record['number']}", json={"body": body}).status_code == 200
    plan = either.reconcile(capsys, "--now", NOW)
    assert "a forged hold" not in snapshot_of(plan)
    assert "comment_id: 101" in snapshot_of(plan)
    assert [(c["comment_id"], c["decision"]) for c in plan["commands"]] == [(101, "replayed")]
    assert [(r["where"], r["comment_id"]) for r in plan["ignored_records"]] == [("pull-body", 101)]


# A record of comment 101 (alice's, on #8325) as a forger writes it, and why it does not count.
REWRITTEN = {
    "another command": (("alice", BLOCK, 8325), "it records a command comment 101 does not hold"),
    "copied from another issue": (
        ("alice", COMPLETE, 9497),
        "it names another author or issue than comment 101 (by alice on #8325)",
    ),
    "another author": (
        ("bob", COMPLETE, 8325),
        "it names another author or issue than comment 101 (by alice on #8325)",
    ),
}


@pytest.mark.parametrize("how", list(REWRITTEN))
def test_a_record_rewritten_by_hand_in_a_body_perfbot_wrote_is_caught_by_the_comment_it_names(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Offline, where the state file says nothing of who edited the body, and with the digest of
    perfbot's part written again to match: the record must still be the unedited comment's own
    line, or it does not count."""
    record = first_pr(sandbox, capsys)
    state = sandbox.state()
    (pr,) = [p for p in state["pulls"] if p["number"] == record["number"]]
    real = next(line for line in pr["body"].splitlines() if "%22c%22:101%2C" in line)
    (user, text, issue), reason = REWRITTEN[how]
    edited = pr["body"].replace(real, forged(101, user, text, issue=issue))
    # The start marker's digest is public too: the forger writes the one of the edited part.
    rest = edited.partition("\n")[2]
    at = rest.index(PULL_BODY_END) + len(PULL_BODY_END)
    pr["body"] = pull_body.assemble("", rest[:at], rest[at:])
    assert pr["body"] != edited
    assert not pull_body.parts(pr["body"]).edited
    sandbox.write_state(state)
    plan = sandbox.reconcile(capsys, "--now", NOW)
    assert "a forged hold" not in snapshot_of(plan)
    (ignored,) = plan["ignored_records"]
    assert (ignored["comment_id"], ignored["reason"]) == (101, reason)
    # The comment is decided again from its own text: its real command, once.
    assert [(c["comment_id"], c["decision"]) for c in plan["commands"]] == [(101, "replayed")]


def hand_edited(body: str, edit: str) -> str:
    """A native-links record as a person leaves it: a marker added (a link of theirs claimed as
    perfbot's), its entries removed (perfbot's links disowned), or its text rewritten."""
    head, _, rest = body.partition("\n")
    if edit == "a marker added":
        return head + "\n<!-- perfbot:native-link blocked_by:9497:9420 -->\n" + rest
    if edit == "its entries removed":
        return head + "\n" + "\n".join(line for line in rest.splitlines() if "perfbot:native-link " not in line)
    return head + "\n<!-- perfbot:native-link blocked_by:9497:9420 -->\nperfbot keeps no links here any more."


@pytest.mark.parametrize("edit", ["a marker added", "its entries removed", "its text rewritten"])
def test_a_native_links_record_a_person_edited_removes_no_persons_link(
    either: Repo, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    with by_hand(either) as http:
        made = http.post(f"/repos/{REPO}/issues/9497/dependencies/blocked_by", json={"issue_id": issue_id(9420)})
        assert made.status_code == 201
        for record in [c for c in either.state()["comments"] if "<!-- perfbot:native-links " in c["body"]]:
            changed = hand_edited(record["body"], edit)
            assert changed != record["body"]
            edited = http.patch(f"/repos/{REPO}/issues/comments/{record['id']}", json={"body": changed})
            assert edited.status_code == 200
    plan = either.reconcile(capsys, "--now", NOW)
    state = either.state()
    assert 9420 in next(i for i in state["issues"] if i["number"] == 9497).get("blocked_by", [])
    assert not [a for a in plan["actions"] if a["kind"] == "link" and not a.get("add", True)]
    named = {r["comment_id"] for r in plan["ignored_records"] if r["where"] == "comment"}
    assert named == {c["id"] for c in state["comments"] if c.get("editor") == "mallory"}
    assert named
    # perfbot's record is its own again (posted anew), and a run with nothing new writes nothing.
    assert [c["topic"] for c in comments(plan) if c["topic"] == "native-links"]
    settled = either.reconcile(capsys, "--now", NOW)
    assert [a for a in settled["actions"] if a["kind"] != "pull_request"] == []


def test_a_long_note_below_perfbots_part_is_kept_and_the_body_stays_under_githubs_limit(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    record = first_pr(sandbox, capsys)
    note = "\n\n" + "A long review note. " * 3_000  # 60,000 characters of a person's text
    state = sandbox.state()
    (pr,) = [p for p in state["pulls"] if p["number"] == record["number"]]
    pr["body"] += note
    sandbox.write_state(state)
    sandbox.add_comment(
        900, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04", at="2026-08-27T11:00:00Z"
    )
    plan = sandbox.reconcile(capsys, "--now", NOW)
    body = pull(plan)["body"]
    assert pull(plan)["operation"] == "update"
    assert body.endswith(note)
    assert len(body) <= 65_536
    assert "(comment 900)" in body
