"""The default branch's tip and the PR branch, live and offline: decide on the tip, never on a stale
checkout; build the one bot commit on it; never move a branch a person moved; export and replay."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.cli import main
from bot.reconcile.decide import HELD
from tests.boundary.test_live import COMPLETE, REPO, Live, with_commands
from tests.support.backends import NOW, double_on
from tests.support.harness import Repo, comments, pull

# When a second command is made: after the first run's, so the next run has a change for the PR branch.
LATER = "2026-08-27T11:00:00Z"

SNAPSHOT, PAGE = "config/snapshot.yaml", "docs/current-constraints.md"


@pytest.fixture
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> Live:
    return Live(sandbox, capsys)


def merge_on_github(repo: Repo, plan: dict[str, Any]) -> None:
    """The PR is merged on GitHub; the local checkout (the sandbox's files) stays as it was."""
    if repo.adapter == "live":
        double = double_on(repo.state_path, repo.root)
        (number,) = [p["number"] for p in repo.state()["pulls"] if p["state"] == "open"]
        double.merge_pull(number)
        return
    state = repo.state()
    state["default_branch"] = {"oid": "9" * 40, "files": pull(plan)["files"]}
    for record in state["pulls"]:
        record["state"] = "merged"
    repo.write_state(state)


def test_a_pr_merged_after_the_checkout_is_neither_applied_again_nor_reverted(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    with_commands(either, (101, 8325, "alice", COMPLETE))
    first = either.reconcile(capsys, "--now", NOW.isoformat())
    merge_on_github(either, first)
    stale = either.snapshot_path.read_text(encoding="utf-8")
    assert "comment_id: 101" not in stale  # the checkout predates the merge

    plan = either.reconcile(capsys, "--now", NOW.isoformat())
    assert plan["decided_on"]["files"] == [SNAPSHOT, PAGE]
    assert {(c["comment_id"], c["decision"]) for c in plan["commands"]} == {(101, "merged")}
    assert pull(plan)["operation"] == "none"  # the merged change stays: no PR reverting it
    # The command is not answered again; the merge made M1's dependants ready, said once each now.
    # The merge makes M1's dependents ready and drops its links: the programs' records follow.
    told = [(c["issue"], c["topic"]) for c in comments(plan) if c["topic"] != "native-links"]
    assert told == [(9230, "packet-ready"), (9495, "packet-ready")]
    assert either.snapshot_path.read_text(encoding="utf-8") == stale


def test_the_printed_plan_says_it_decided_on_the_tip(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.run()
    (number,) = [p["number"] for p in live.sandbox.state()["pulls"]]
    tip = live.double.merge_pull(number)
    status, out, _ = live.run("--dry-run")
    assert status == 0
    assert f"Decided on the default branch's tip {tip[:12]}, not the local checkout: {SNAPSHOT}, {PAGE} differ\n" in out


def test_the_commit_is_one_bot_commit_on_the_tip(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    tip = live.double.tip()
    plan = live.plan()
    head = live.double.tip("perfbot/update")
    assert head is not None
    commit = live.double.world.git.commits[head]
    assert commit.parents == (tip,)
    assert live.double.files("perfbot/update") == {**live.double.files(), **pull(plan)["files"]}


def test_a_tip_that_moves_during_the_run_is_not_built_on(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    original = live.double.handle

    def push_before_the_ref_check(request: Any) -> Any:
        if request.method == "GET" and request.path.endswith("/git/ref/heads/main"):
            live.double.push("main", {"README.md": "a person's push\n"})
        return original(request)

    live.double.handle = push_before_the_ref_check  # type: ignore[method-assign]
    status, _, err = live.run()
    assert status == 1
    assert "the default branch main moved from" in err
    assert "nothing was moved, and the next run starts over from there" in err
    assert live.double.tip("perfbot/update") is None
    live.double.handle = original  # type: ignore[method-assign]
    assert live.run()[0] == 0
    head = live.double.tip("perfbot/update")
    assert head is not None
    assert live.double.world.git.commits[head].parents == (live.double.tip(),)


def test_a_pr_branch_a_person_pushed_to_is_left_alone(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    pushed = live.double.push("perfbot/update", {"notes.md": "mine\n"})
    live.sandbox.add_comment(900, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04", at=LATER)
    plan = live.plan()
    assert pull(plan)["operation"] == "none"
    assert pull(plan)["note"] == HELD
    assert pull(plan)["held"] is True
    assert live.double.tip("perfbot/update") == pushed
    assert not [w for w in live.writes() if "/git/" in w or "/pulls" in w]


def pushed_just_before_the_ref_moves(live: Live) -> list[str]:
    """A person pushes to perfbot's branch just before the run's `updateRefs` reaches GitHub: the
    list gets the commit they pushed then."""
    original = live.double.handle
    moved: list[str] = []

    def push_first(request: Any) -> Any:
        if request.path == "/graphql" and b"updateRefs" in request.body and not moved:
            moved.append(live.double.push("perfbot/update", {"notes.md": "mine\n"}))
        return original(request)

    live.double.handle = push_first  # type: ignore[method-assign]
    return moved


def test_a_pr_branch_moved_between_read_and_write_is_not_force_moved(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    live.sandbox.add_comment(900, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04", at=LATER)
    moved = pushed_just_before_the_ref_moves(live)
    before = live.double.tip("perfbot/update")
    assert before is not None
    status, _, err = live.run()
    assert status == 1
    assert (
        f"branch perfbot/update moved from {before[:12]} to {moved[0][:12]} while perfbot ran; nothing was moved" in err
    )
    assert live.double.tip("perfbot/update") == moved[0]
    assert live.double.files("perfbot/update")["notes.md"] == "mine\n"


def test_only_the_body_changed_so_no_commit_is_made(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    head = live.double.tip("perfbot/update")
    (record,) = live.sandbox.state()["pulls"]
    state = live.sandbox.state()
    state["pulls"][0]["body"] = "edited by a person"
    live.sandbox.write_state(state)
    plan = live.plan()
    assert pull(plan)["operation"] == "update"
    assert live.writes() == [f"PATCH /repos/{REPO}/pulls/{record['number']}"]
    assert live.double.tip("perfbot/update") == head


def test_a_closed_pr_is_never_reopened_a_new_one_is_made(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    state = live.sandbox.state()
    (first,) = state["pulls"]
    state["pulls"][0]["state"] = "closed"
    live.sandbox.write_state(state)
    plan = live.plan()
    assert pull(plan)["operation"] == "create"
    numbers = [(p["number"], p["state"]) for p in live.sandbox.state()["pulls"]]
    assert numbers == [(first["number"], "closed"), (first["number"] + 1, "open")]


def test_export_state_replayed_offline_gives_the_live_plan(live: Live) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE), (102, 9497, "alice", "/perf claim profile.real-cuda"))
    exported = live.sandbox.root / "exported.json"
    status, out, err = live.run("--out", str(exported), command="export-state")
    assert status == 0, err
    assert out == f"wrote {exported}: 13 issues, 5 comments of {REPO}\n"  # and perfbot's three link records
    live_plan = live.plan("--dry-run")
    assert live_plan.pop("api") == {"graphql": 1, "rest_read": 1, "rest_write": 0, "graphql_points": 1}
    argv = ["reconcile", "--config", str(live.sandbox.config), "--offline", str(exported), "--json", "--dry-run"]
    assert main([*argv, "--now", NOW.isoformat()]) == 0
    offline_plan = json.loads(live.capsys.readouterr().out)
    assert offline_plan.pop("api") == {}
    assert offline_plan == live_plan


def test_an_exported_state_with_perfbots_pr_open_is_written_on_offline(live: Live) -> None:
    """The export carries perfbot's commit and its records; offline, the branch's head is the open
    PR's, so an offline run writes the PR it decided on rather than refusing it as moved."""
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    exported = live.sandbox.root / "exported.json"
    assert live.run("--out", str(exported), command="export-state")[0] == 0
    state = json.loads(exported.read_text(encoding="utf-8"))
    assert "branch_head" not in state
    assert "Perfbot-Decision: " in state["own_commit"]["message"]
    state["comments"] = [
        {**c, "body": c["body"] + " (edited)", "edited": True} if c["id"] == 101 else c for c in state["comments"]
    ]
    state["comments"].append(
        {"id": 900, "issue": 8324, "user": "alice", "created_at": LATER, "body": "/perf review metal-resident-decode"}
    )
    exported.write_text(json.dumps(state), encoding="utf-8")
    argv = ["reconcile", "--config", str(live.sandbox.config), "--offline", str(exported), "--json"]
    assert main([*argv, "--now", NOW.isoformat()]) == 0
    plan = json.loads(live.capsys.readouterr().out)
    assert pull(plan)["operation"] == "update"
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert (snapshot.count("comment_id: 101\n"), snapshot.count("comment_id: 900\n")) == (1, 1)


@pytest.mark.parametrize(
    ("path", "holding"),
    [("/graphql", b"updateRefs"), (rf"/repos/{REPO}/pulls", b"")],
    ids=["branch", "pull"],
)
def test_a_lost_answer_to_a_branch_or_pr_creation_leaves_one_pr_after_the_rerun(
    live: Live, path: str, holding: bytes
) -> None:
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.lost_response("POST", path, holding=holding)
    status, _, err = live.run()
    assert status == 1
    assert "GitHub's answer was lost (502" in err
    assert live.run()[0] == 0
    (record,) = live.sandbox.state()["pulls"]
    assert record["state"] == "open"
    assert not [w for w in live.writes() if w.endswith(("/git/commits", "/git/trees"))]  # the head already holds it
    again = live.plan("--dry-run")
    assert pull(again)["operation"] == "none"


def deleting_branches(live: Live) -> None:
    """`pull_request.delete_branch: true`, a PR opened and merged on GitHub: its branch is left over."""
    config = live.sandbox.config.read_text(encoding="utf-8")
    live.sandbox.config.write_text(config.replace("pull_request:\n", "pull_request:\n  delete_branch: true\n", 1))
    with_commands(live.sandbox, (101, 8325, "alice", COMPLETE))
    assert live.run()[0] == 0
    (number,) = [p["number"] for p in live.sandbox.state()["pulls"] if p["state"] == "open"]
    live.double.merge_pull(number)
    assert live.double.tip("perfbot/update") is not None


def test_a_left_over_branch_a_person_pushed_to_is_not_deleted(live: Live) -> None:
    deleting_branches(live)
    pushed = live.double.push("perfbot/update", {"notes.md": "mine\n"})
    plan = live.plan()
    assert "delete_head" not in pull(plan)
    assert live.double.tip("perfbot/update") == pushed


def test_a_branch_pushed_to_between_read_and_delete_is_kept(live: Live) -> None:
    deleting_branches(live)
    moved = pushed_just_before_the_ref_moves(live)
    before = live.double.tip("perfbot/update")
    assert before is not None
    status, _, err = live.run()
    assert status == 1
    assert f"branch perfbot/update moved from {before[:12]} to {moved[0][:12]} while perfbot ran" in err
    assert live.double.tip("perfbot/update") == moved[0]
