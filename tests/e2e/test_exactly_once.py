"""Exactly once, nothing lost: crashes at every write, concurrent runs, edits on the default branch."""

from __future__ import annotations

import datetime as dt
import glob
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.config import Settings, load_settings
from bot.github.markers import markers_in
from bot.github.observed import Observed
from bot.github.port import GitHubPort
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from tests.support.backends import Backend, backend
from tests.support.faults import Crash, Faulty, Forwarding
from tests.support.harness import Repo, comments, pull

NOW = dt.datetime(2026, 8, 27, 23, tzinfo=dt.UTC)
THREE = [
    (101, 8325, "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"),
    (102, 8324, "/perf review metal-resident-decode by 2026-09-04"),
    (103, 9497, "/perf claim profile.real-cuda\n/perf block profile.real-cuda waiting for an A100 window"),
]


def state_with(repo: Repo, entries: list[tuple[int, int, str]]) -> dict[str, Any]:
    state = repo.state()
    state["permissions"] = {"alice": "write"}
    state["comments"] = [
        {"id": cid, "issue": issue, "user": "alice", "created_at": f"2026-08-27T10:0{cid % 10}:00Z", "body": body}
        for cid, issue, body in entries
    ]
    return state


def run(settings: Settings, github: GitHubPort) -> None:
    executor.apply(decide(gather.inputs(settings, github.observe(), NOW)), github, budget=1000)


def run_on(
    settings: Settings, via: Backend, path: Path, before_write: Callable[[], None] | None = None, **faults: int
) -> Faulty:
    """One run over the state file through `via`, with the port's writes counted (or faulted)."""
    with via.open(settings, path, NOW) as port:
        counted = Faulty(port, before_write=before_write, **faults)
        run(settings, counted)
    return counted


def run_file(settings: Settings, path: Path, via: Backend | None = None) -> None:
    run_on(settings, via or backend("offline"), path)


class Stale(Forwarding):
    """A run that read GitHub before the given observation went out of date: it decides on
    `seen`, and writes through `port` on GitHub as it is now."""

    def __init__(self, port: GitHubPort, seen: Observed) -> None:
        super().__init__(port)
        self.seen = seen

    def observe(self) -> Observed:
        self.port.observe()  # the adapter learns where the branches are, as a real read would
        return self.seen


def world_files(state: Path) -> dict[str, bytes]:
    """What a run over `state` leaves on disk: the state file and the files the GitHub double keeps
    beside it (named after it), by their name after the state file's."""
    return {p.name[len(state.name) :]: p.read_bytes() for p in state.parent.glob(glob.escape(state.name) + "*")}


def put_world(state: Path, files: dict[str, bytes]) -> None:
    for suffix, data in files.items():
        state.with_name(state.name + suffix).write_bytes(data)


def crash_everywhere(settings: Settings, root: Path, initial: str, via: Backend) -> int:
    """Crash after each write in turn, finish with a clean run, compare with one clean run.

    A crash after write k leaves the world as it was when write k+1 was about to start: the clean
    run keeps a copy of its files at each write, and each crash run starts from one, rather than
    running up to write k again (one real crash, halfway, shows it leaves those same files)."""
    clean = root / "clean.json"
    clean.write_text(initial, encoding="utf-8")
    left_behind: list[dict[str, bytes]] = []
    counter = run_on(settings, via, clean, before_write=lambda: left_behind.append(world_files(clean)))
    expected = clean.read_text(encoding="utf-8")
    assert len(left_behind) == counter.writes
    crashed = root / "crashed.json"
    crashed.write_text(initial, encoding="utf-8")
    with pytest.raises(Crash):
        run_on(settings, via, crashed, crash_after=counter.writes // 2)
    assert world_files(crashed) == left_behind[counter.writes // 2]
    for k, files in enumerate(left_behind):
        path = root / f"crash-{k}.json"
        put_world(path, files)
        run_on(settings, via, path)
        assert path.read_text(encoding="utf-8") == expected, f"crash after {k} writes"
    run_on(settings, via, clean)
    assert clean.read_text(encoding="utf-8") == expected  # and a further run changes nothing
    return counter.writes


def test_a_crash_after_any_write_then_a_clean_run_equals_one_clean_run(sandbox: Repo, adapter: str) -> None:
    settings = load_settings(sandbox.config)
    state = state_with(sandbox, THREE)
    writes = crash_everywhere(settings, sandbox.root, json.dumps(state, indent=2), backend(adapter))
    # The reply to 103 (a claim beside a block is recorded in a reply, before the assignment), the
    # PR (whose body records 101 and 102), the assignment, 3 x 🚀 (ready nudges, labels and links
    # wait for the merge: m1's completion is pending in the PR); and a record for each of the three
    # programs with links (the state above holds none of the bot's comments).
    assert writes == 6 + 3


def taken_off_by_hand(repo: Repo) -> dict[str, Any]:
    """The example state (with perfbot's records of its links) after a person took off a label
    perfbot set on #8324, its blocked-by link on #9230 and its sub-issue link on #8395."""
    state = repo.state()
    issues = {issue["number"]: issue for issue in state["issues"]}
    issues[8324]["labels"] = []
    issues[9230]["blocked_by"] = []
    issues[8395].pop("parent")
    state["label_events"].append(
        {
            "issue": 8324,
            "label": "perf/waiting-dependency",
            "action": "unlabeled",
            "actor": "alice",
            "created_at": "2026-08-27T17:00:00Z",
        }
    )
    return state


def test_what_a_crash_leaves_of_things_put_back_is_said_exactly_once(sandbox: Repo, adapter: str) -> None:
    """The comment on what perfbot puts back comes just before the writes it explains: a crash
    between the two leaves the next run to make the writes, and the comment is there once."""
    settings = load_settings(sandbox.config)
    writes = crash_everywhere(
        settings, sandbox.root, json.dumps(taken_off_by_hand(sandbox), indent=2), backend(adapter)
    )
    final = json.loads((sandbox.root / "clean.json").read_text(encoding="utf-8"))
    said = [c for c in final["comments"] if c["user"] == "perfbot[bot]" and "native-restored" in c["body"]]
    assert sorted(c["issue"] for c in said) == [8324, 8395, 9230]
    assert (
        "the label `perf/waiting-dependency` (removed by alice)" in next(c for c in said if c["issue"] == 8324)["body"]
    )
    # three comments, the label, two links (the records list the same links: nothing to edit)
    assert writes == 3 + 3


def bot_markers(state: Path) -> list[tuple[str, str]]:
    """Every marker in the header of the bot's comments, as often as it was posted."""
    raw = json.loads(state.read_text(encoding="utf-8"))
    return [m for c in raw["comments"] if c["user"] == raw["bot_login"] for m in sorted(markers_in(c["body"]))]


def test_with_lists_lagging_a_rerun_after_a_crash_at_any_write_posts_nothing_twice(sandbox: Repo) -> None:
    """GitHub's lists are eventually consistent: a run right after a crash may not see, in its read,
    the comments and the PR the crashed run made. It must find them before writing again; a run
    after it finishes the work, and the world is the one clean run leaves."""
    settings = load_settings(sandbox.config)
    clean = sandbox.root / "clean.json"
    clean.write_text(json.dumps(state_with(sandbox, THREE), indent=2), encoding="utf-8")
    left_behind: list[dict[str, bytes]] = []
    run_on(settings, backend("live"), clean, before_write=lambda: left_behind.append(world_files(clean)))
    expected = clean.read_text(encoding="utf-8")
    for k, files in enumerate(left_behind):
        path = sandbox.root / f"crash-{k}.json"
        put_world(path, files)
        run_on(settings, backend("live-lagging"), path)
        markers = bot_markers(path)
        assert len(markers) == len(set(markers)), f"a marker posted twice after a crash after {k} writes"
        run_on(settings, backend("live"), path)
        assert path.read_text(encoding="utf-8") == expected, f"crash after {k} writes"


def test_crash_safety_holds_for_an_assignee_without_write_access(sandbox: Repo, adapter: str) -> None:
    settings = load_settings(sandbox.config)
    state = state_with(
        sandbox, [(101, 9497, "/perf block profile.real-cuda no A100 window\n/perf unclaim profile.real-cuda")]
    )
    for comment in state["comments"]:
        comment["user"] = "carol"
    for issue in state["issues"]:
        if issue["number"] == 9497:
            issue["assignees"] = ["carol"]
    writes = crash_everywhere(settings, sandbox.root, json.dumps(state, indent=2), backend(adapter))
    # the reply recording the comment (a block beside an unclaim), the PR, then the unassignment and
    # the 🚀 (#9497's label stays until the block merges); a record for each program with links (the
    # state holds none of the bot's comments)
    assert writes == 4 + 3
    final = json.loads((sandbox.root / "clean.json").read_text(encoding="utf-8"))
    assert next(i for i in final["issues"] if i["number"] == 9497)["assignees"] == []
    assert "not applied" not in next(c for c in final["comments"] if c["user"] == "perfbot[bot]")["body"]


def test_two_concurrent_runs_then_a_third_apply_both_commands_once(sandbox: Repo, adapter: str) -> None:
    settings = load_settings(sandbox.config)
    via = backend(adapter)
    both = state_with(sandbox, THREE[:2])
    shared = sandbox.root / "shared.json"
    shared.write_text(json.dumps(both), encoding="utf-8")
    with via.open(settings, shared, NOW) as port:
        before = port.observe()  # both runs read GitHub before either wrote
    for cid, _, _ in THREE[:2]:  # and each started before the other's command arrived
        seen = before.model_copy(update={"comments": tuple(c for c in before.comments if c.id == cid)})
        with via.open(settings, shared, NOW) as port:
            run(settings, Stale(port, seen))
    run_on(settings, via, shared)
    state = json.loads(shared.read_text(encoding="utf-8"))
    (pr,) = state["pulls"]
    snapshot = pr["files"]["config/snapshot.yaml"]
    assert snapshot.count("  - comment_id: 101\n") == 1
    assert snapshot.count("  - comment_id: 102\n") == 1
    replies = [c for c in state["comments"] if c["user"] == "perfbot[bot]" and "command-reply" in c["body"]]
    assert replies == []  # both accepted: 🚀 alone, the records in the PR body
    reactions = [(r["comment_id"], r["content"]) for r in state["reactions"]]
    assert sorted(reactions) == [(101, "rocket"), (102, "rocket")]
    assert {key for topic, key in markers_in(pr["body"]) if topic == "decision"} != set()


def test_default_branch_edits_are_kept_and_lapsed_commands_reported(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox = either
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 8325, "alice", THREE[0][2])
    sandbox.add_comment(
        102, 9430, "alice", "/perf state mac.m10-parity-reconvergence capacity-hold", at="2026-08-27T10:05:00Z"
    )
    first = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert (
        "capacity-hold" in pull(first)["files"]["config/snapshot.yaml"].split("mac.m10-parity-reconvergence")[1][:400]
    )

    text = sandbox.snapshot_path.read_text(encoding="utf-8")
    start = text.index("  - id: mac.m10-parity-reconvergence\n")
    end = text.index("  - id: cuda.q8_1-numerical-gate\n")
    added = text[start:end].replace("mac.m10-parity-reconvergence", "mac.m11-by-hand").replace("order: 10", "order: 11")
    sandbox.snapshot_path.write_text(text[:start] + added + text[end:], encoding="utf-8")

    plan = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert "  - id: mac.m11-by-hand\n" in snapshot
    assert "mac.m10-parity-reconvergence" not in snapshot
    assert "comment_id: 101" in snapshot
    assert "comment_id: 102" not in snapshot
    decisions = {(c["comment_id"], c["decision"]) for c in plan["commands"]}
    assert decisions == {(101, "replayed"), (102, "lapsed")}
    (notice,) = comments(plan)
    assert notice["issue"] == 9430
    assert "no longer applies" in notice["body"]
    assert "unknown packet `mac.m10-parity-reconvergence`" in notice["body"]
    again = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert comments(again) == []


def test_merged_commands_are_compacted_out_of_the_ledger(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    sandbox = either
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 8325, "alice", THREE[0][2])
    sandbox.merge(sandbox.reconcile(capsys, "--now", NOW.isoformat()))
    assert "comment_id: 101" in sandbox.snapshot_path.read_text(encoding="utf-8")
    # Comment ids grow with time: the first run's replies took the next ones.
    sandbox.add_comment(201, 8324, "alice", THREE[1][2], at="2026-08-27T10:05:00Z")
    plan = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    snapshot = pull(plan)["files"]["config/snapshot.yaml"]
    assert "comment_id: 101" not in snapshot
    assert "comment_id: 201" in snapshot
    assert "commands_settled_through: 101" in snapshot
    sandbox.merge(plan)
    final = sandbox.reconcile(capsys, "--now", NOW.isoformat())
    assert pull(final)["operation"] == "none"
    assert comments(final) == []
    assert {(c["comment_id"], c["decision"]) for c in final["commands"]} == {(201, "merged")}


def test_a_failed_write_stops_the_run_and_the_report_keeps_what_was_done(sandbox: Repo, adapter: str) -> None:
    settings = load_settings(sandbox.config)
    via = backend(adapter)
    sandbox.write_state(state_with(sandbox, THREE[:1]))
    sandbox.reply_to_all()
    settings = load_settings(sandbox.config)
    with via.open(settings, sandbox.state_path, NOW) as github:
        port = Faulty(github, fail_at=2)
        plan = decide(gather.inputs(settings, port.observe(), NOW))
        report = executor.apply(plan, port, budget=1000)
    assert [a.kind for a in report.done] == ["react", "comment"]
    assert report.failed == plan.actions[2]
    assert report.error is not None
    assert "injected failure of write 3" in str(report.error)
    assert report.deferred == [a for a in plan.actions[3:] if a.kind != "pull_request" or a.operation != "none"]
    run_file(settings, sandbox.state_path, via)  # the next run finishes what the failed one left
    final = sandbox.state()
    assert len([c for c in final["comments"] if c["user"] == "perfbot[bot]" and "command-reply" in c["body"]]) == 1


def test_the_cli_prints_the_plan_and_what_was_done_when_a_write_fails(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.reply_to_all()
    sandbox.write_state(state_with(sandbox, THREE[:1]))
    # The state file's temporary twin is a directory: the first write cannot land.
    (sandbox.state_path.parent / f".{sandbox.state_path.name}.tmp").mkdir()
    before = sandbox.state_path.read_text(encoding="utf-8")
    status = main(["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)])
    out, err = capsys.readouterr()
    assert status == 1
    assert "Actions:" in out
    assert "comment on #8325 (command-reply)" in out
    # 15 writes: 👀, the answer, the PR, the 🚀, 8 review nudges and 3 programs' link records (no
    # label, link or ready nudge while the completion is only proposed); the first fails, 14 wait.
    assert "applied 0 actions; 14 deferred to the next run" in err
    assert "cannot write the state file" in err
    assert "Traceback" not in err
    assert sandbox.state_path.read_text(encoding="utf-8") == before


def test_a_crash_after_any_write_of_an_edited_refusal_decided_again_equals_one_clean_run(
    sandbox: Repo, adapter: str
) -> None:
    """Issue #45: a mistyped command, refused, then edited by its author: the run that decides it
    again (its reply edited in place, the PR, the claim, the 🚀) survives a crash after any write."""
    settings = load_settings(sandbox.config)
    mistyped = "/perf compelte mac.m1-streamed-q4k-no-copy result: kept"
    first = sandbox.root / "first.json"
    first.write_text(json.dumps(state_with(sandbox, [(101, 8325, mistyped)]), indent=2), encoding="utf-8")
    run_on(settings, backend(adapter), first)
    state = json.loads(first.read_text(encoding="utf-8"))
    (comment,) = [c for c in state["comments"] if c["id"] == 101]
    corrected = mistyped.replace("compelte", "complete") + "\n/perf claim profile.real-cuda"
    comment.update(body=corrected, edited=True, editor="alice")
    writes = crash_everywhere(settings, sandbox.root, json.dumps(state, indent=2), backend(adapter))
    assert writes >= 4  # the reply edited, the PR, the assignment, the 🚀
    final = json.loads((sandbox.root / "clean.json").read_text(encoding="utf-8"))
    (reply,) = [c for c in final["comments"] if c["user"] == "perfbot[bot]" and "command-reply 101" in c["body"]]
    assert "Decided again after the comment was edited" in reply["body"]
    assert next(i for i in final["issues"] if i["number"] == 9497)["assignees"] == ["alice"]
