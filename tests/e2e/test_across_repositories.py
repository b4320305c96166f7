"""A snapshot whose packets live in three repositories, run live against the GitHub double.

The seed's repository keeps most packets; `cuda.cache-weight-residency` lives in `acme/kernel`
(where the token may write) and `mac.m2-whole-sequence-prefill` in `acme/serving` (where it may
only read, as a `GITHUB_TOKEN` of another repository can). One run reads all three in one GraphQL
request, writes each comment and label in its issue's own repository, applies a command made on
`acme/kernel` once (decided by its author's permission there), and writes nothing in
`acme/serving`, saying so in one line.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

from bot.cli import main
from tests.e2e.test_pull_leases import BOTH, leases_from, open_prs, person_pr
from tests.github_double import graphql_api
from tests.support.backends import NOW, cli_over, double_on, live_environ
from tests.support.harness import Repo, packet

KERNEL, SERVING = "acme/kernel", "acme/serving"
RESIDENCY, PREFILL = "cuda.cache-weight-residency", "mac.m2-whole-sequence-prefill"
STAMP = "2026-08-27T10:00:00Z"
# A holder tag that names an issue here (`issue-9420-…`) or elsewhere (`issue-acme/kernel#12-…`).
PATTERN = "  holder_issue_pattern: 'issue-((?:[\\w.-]+/[\\w.-]+#)?\\d+)'\n"


def three_repositories(sandbox: Repo, serving_token: str = "read") -> None:
    sandbox.walk_one_state = False  # its walk reads the bot's own repository's issues by number
    sandbox.edit_snapshot("    issue: 9420\n", f"    issue: {KERNEL}#12\n")
    sandbox.edit_snapshot("    issue: 9230\n", f"    issue: https://github.com/{SERVING}/issues/7\n")
    state = sandbox.state()
    state["issues"] += [
        {"number": 12, "repository": KERNEL, "title": "weight residency", "assignees": ["alice"]},
        {"number": 7, "repository": SERVING, "title": "whole-sequence prefill"},
    ]
    state["repositories"] = {
        KERNEL: {"token": "write", "permissions": {"alice": "write"}},
        SERVING: {"token": serving_token, "permissions": {"alice": "write"}},
    }
    sandbox.write_state(state)


def command(sandbox: Repo, comment_id: int, issue: str, user: str, body: str) -> None:
    state = sandbox.state()
    state["comments"].append({"id": comment_id, "issue": issue, "user": user, "created_at": STAMP, "body": body})
    sandbox.write_state(state)


def run(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """One live run over the double: the plan JSON, the requests it made, and what it said on stderr."""
    double = double_on(sandbox.state_path, sandbox.root)
    argv = ["reconcile", "--config", str(sandbox.config), "--json", "--now", NOW.isoformat()]
    with cli_over(double):
        code = main(argv, environ=live_environ(double.world.repository))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), double.requests, err


def writes_to(requests: list[dict[str, Any]], repository: str) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in requests
        if r["kind"] == "rest_write" and f"/repos/{repository}/" in r["path"]
    ]


def first_write(requests: list[dict[str, Any]]) -> int:
    return next(i for i, r in enumerate(requests) if r["kind"] == "rest_write")


def on(state: dict[str, Any], repository: str, number: int) -> list[dict[str, Any]]:
    return [c for c in state["comments"] if c["issue"] == f"{repository}#{number}"]


def issue(state: dict[str, Any], repository: str, number: int) -> dict[str, Any]:
    found: dict[str, Any] = next(
        i for i in state["issues"] if i.get("repository") == repository and i["number"] == number
    )
    return found


def blocked_on_kernel(sandbox: Repo) -> None:
    """Three repositories, and alice's command on acme/kernel#12 (she may write there, not here)."""
    three_repositories(sandbox)
    command(sandbox, 5001, f"{KERNEL}#12", "alice", f"/perf block {RESIDENCY} waiting for the A100 window")


def test_one_run_reads_three_repositories_in_one_request_and_writes_where_each_issue_lives(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked_on_kernel(sandbox)
    plan, requests, _ = run(sandbox, capsys)

    # The read: one GraphQL request for the three repositories (then the permission of the one
    # command's author in acme/kernel); every later GraphQL request is a write's (the PR's branch
    # move, the comment headers re-read just before commenting), as on a single-repository run.
    reads = [r for r in requests[: first_write(requests)] if r["kind"] == "graphql"]
    assert len(reads) == 1
    assert requests[0]["kind"] == "graphql"

    state = sandbox.state()
    # The command on acme/kernel#12 was decided by alice's permission there (she has none in the
    # bot's own repository) and accepted: 🚀 on her comment, its change carried by the PR.
    (report,) = [c for c in plan["commands"] if c["comment_id"] == 5001]
    assert (report["issue"], report["decision"]) == (f"{KERNEL}#12", "accepted")
    assert {"comment_id": 5001, "user": "perfbot[bot]", "content": "rocket"} in state["reactions"]
    assert any(f"/repos/{KERNEL}/issues/comments/5001/reactions" in w for w in writes_to(requests, KERNEL))
    # Labels land on the issue in its own repository, the missing state label created there.
    kernel = issue(state, KERNEL, 12)
    assert [name for name in kernel["labels"] if name.startswith("perf/")]
    made = [label["name"] for label in state["repositories"][KERNEL].get("labels", [])]
    assert set(made) >= {name for name in kernel["labels"] if name.startswith("perf/")}
    assert f"POST /repos/{KERNEL}/labels" in writes_to(requests, KERNEL)
    # Comments land there too: the program's living links record on its umbrella is in the bot's
    # repository, the lease-lost nudge of the packet on acme/kernel#12.
    assert [c["body"].split("\n", 1)[0] for c in on(state, KERNEL, 12)]
    assert all(c["issue"] != 12 for c in state["comments"])  # nothing on the bot's own #12 by mistake
    # The bot's own repository's links, read in the same request with the repository of each, are
    # known as its own: none is made again, and no comment says a person took one off.
    assert not [w for w in writes_to(requests, "anthony-chaudhary/fak") if w.endswith("/dependencies/blocked_by")]
    assert not [a for a in plan["actions"] if a.get("topic") == "native-restored"]

    # acme/serving: read, never written; one line says so, and the plan JSON counts what waits.
    assert writes_to(requests, SERVING) == []
    assert on(state, SERVING, 7) == []
    assert not issue(state, SERVING, 7).get("labels")
    (barred,) = plan["unreachable"]
    assert (barred["repository"], barred["access"]) == (SERVING, "read")
    assert barred["withheld"] >= 1
    where = [str(a.get(k, "")) for a in plan["actions"] for k in ("issue", "target", "repository")]
    assert not [w for w in where if w.startswith(SERVING)]


def test_a_command_on_another_repositorys_issue_is_applied_once(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked_on_kernel(sandbox)
    first, _, _ = run(sandbox, capsys)
    second, requests, _ = run(sandbox, capsys)
    body = next(a for a in first["actions"] if a["kind"] == "pull_request")["files"]["config/snapshot.yaml"]
    assert body.count("blocked_by_condition: waiting for the A100 window") == 1
    assert f"issue: {KERNEL}#12" in body.split("ledger:", 1)[1]  # the ledger names where it was said
    # The second run replays it from perfbot's own record in the PR's body: not decided again.
    assert [c["decision"] for c in second["commands"] if c["comment_id"] == 5001] == ["replayed"]
    state = sandbox.state()
    rockets = [r for r in state["reactions"] if r["comment_id"] == 5001 and r["content"] == "rocket"]
    assert len(rockets) == 1
    replies = [c for c in on(state, KERNEL, 12) if "perfbot:command-reply 5001" in c["body"]]
    assert len(replies) <= 1
    assert not any("/issues/comments/5001/reactions" in w for w in writes_to(requests, KERNEL))


def test_a_command_is_decided_by_the_permission_in_the_repository_of_its_issue(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    three_repositories(sandbox)
    # anthony-chaudhary is an admin of the bot's repository and nobody in acme/kernel.
    command(sandbox, 5002, f"{KERNEL}#12", "anthony-chaudhary", f"/perf block {RESIDENCY} not here")
    plan, _, _ = run(sandbox, capsys)
    (report,) = [c for c in plan["commands"] if c["comment_id"] == 5002]
    assert report["decision"] == "refused"
    assert "has none" in report["reason"]


def test_a_repository_the_token_cannot_see_is_one_line_and_nothing_is_written_there(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    three_repositories(sandbox, serving_token="none")
    before = issue(sandbox.state(), SERVING, 7)
    double = double_on(sandbox.state_path, sandbox.root)
    argv = ["reconcile", "--config", str(sandbox.config), "--now", NOW.isoformat()]
    with cli_over(double):
        code = main(argv, environ=live_environ(double.world.repository))
    out, err = capsys.readouterr()
    assert code == 0
    assert "Traceback" not in out + err
    lines = [line for line in out.splitlines() if line.strip().startswith(f"{SERVING}:")]
    assert len(lines) == 1
    assert "cannot read it" in lines[0]
    assert "NOT_FOUND" in lines[0]
    assert writes_to(double.requests, SERVING) == []
    assert issue(sandbox.state(), SERVING, 7) == before
    assert len([r for r in double.requests[: first_write(double.requests)] if r["kind"] == "graphql"]) == 1


def test_the_observation_cache_keeps_each_repositorys_issues_and_sees_what_changed_there(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    three_repositories(sandbox)
    cache = sandbox.root / "observations.json"
    double = double_on(sandbox.state_path, sandbox.root)
    argv = ["reconcile", "--config", str(sandbox.config), "--json", "--now", NOW.isoformat(), "--cache", str(cache)]
    seen: list[str] = []
    answer = graphql_api.answer

    def recorded(*args: Any) -> dict[str, Any]:
        seen.append(str(args[2].json()["query"]))
        return answer(*args)

    with cli_over(double), mock.patch.object(graphql_api, "answer", recorded):
        for _ in range(2):
            assert main(argv, environ=live_environ(double.world.repository)) == 0
        kept = json.loads(cache.read_text(encoding="utf-8"))
        assert {name.casefold() for name in kept["elsewhere"]} == {KERNEL, SERVING}
        assert "12" in next(v for k, v in kept["elsewhere"].items() if k.casefold() == KERNEL)
        command(sandbox, 5003, f"{KERNEL}#12", "alice", f"/perf block {RESIDENCY} cached but not missed")
        seen.clear()
        assert main(argv, environ=live_environ(double.world.repository)) == 0
    capsys.readouterr()
    first = seen[0]
    # With the cache, each repository's block asks what changed since, and by number only its
    # first tracked issue (whose answer says what the token may do there).
    assert first.count("updated: issues(filterBy: {since: $since}") == 3
    assert "r0: repository(" in first
    assert first.count("viewerCanUpdate viewerCanLabel") == 2
    state = sandbox.state()
    assert {"comment_id": 5003, "user": "perfbot[bot]", "content": "rocket"} in state["reactions"]


def test_native_links_cross_repositories_and_a_second_run_reads_them_back(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    three_repositories(sandbox)
    _, first, _ = run(sandbox, capsys)
    # acme/kernel#12 carries a packet of the program whose umbrella is the bot's own #9420: it is made
    # a sub-issue there, on the parent's side (GitHub's sub-issue endpoint is the parent's).
    assert any(w.endswith("/issues/9420/sub_issues") for w in writes_to(first, "anthony-chaudhary/fak"))
    assert issue(sandbox.state(), KERNEL, 12).get("parent") == 9420
    _, second, _ = run(sandbox, capsys)
    # Read back through the qualified link nodes, the link is known: not made again, nor taken off.
    assert not [w for w in writes_to(second, "anthony-chaudhary/fak") if "sub_issue" in w]


def test_the_dashboard_lists_each_packet_on_its_issue_wherever_it_is(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    three_repositories(sandbox)
    state = f"--offline={sandbox.state_path}"
    assert (
        main(["status", "--config", str(sandbox.config), state, "--format", "markdown", "--now", NOW.isoformat()]) == 0
    )
    board = capsys.readouterr().out
    assert f"{KERNEL}#12 `{RESIDENCY}`" in board
    assert f"{SERVING}#7 `{PREFILL}`" in board


def test_a_receipt_is_the_issue_it_names_where_the_command_was_written(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """`#3` in a comment on acme/kernel#12 is acme/kernel#3, as GitHub links it there; another
    repository's receipt is taken as written, and the packet's own repository's as its number."""
    three_repositories(sandbox)
    command(sandbox, 5004, f"{KERNEL}#12", "alice", f"/perf complete {RESIDENCY} result: resident receipt: #3")
    command(sandbox, 5005, f"{SERVING}#7", "alice", f"/perf complete {PREFILL} result: prefilled receipt: acme/bench#9")
    plan, _, _ = run(sandbox, capsys)
    assert {c["comment_id"]: c["decision"] for c in plan["commands"]} == {5004: "accepted", 5005: "accepted"}
    body = next(a for a in plan["actions"] if a["kind"] == "pull_request")["files"]["config/snapshot.yaml"]
    packets = body.split("work_packets:", 1)[1]
    residency = packets.split(f"- id: {RESIDENCY}", 1)[1].split("- id:", 1)[0]
    assert "owner: accepted receipt acme/kernel#3" in residency
    assert "acme/kernel#3" in residency.split("related_issues:", 1)[1].split("\n", 1)[0]
    prefill = packets.split(f"- id: {PREFILL}", 1)[1].split("- id:", 1)[0]
    assert "owner: accepted receipt acme/bench#9" in prefill


def test_an_evidence_ref_written_as_hash_n_on_another_repositorys_issue_is_that_repositorys(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page lives in the bot's repository, where `#4` would link its own issue 4: evidence
    given on acme/kernel#12 as `(#4)` is recorded as `acme/kernel#4`; other text is kept."""
    three_repositories(sandbox)
    command(sandbox, 5007, f"{KERNEL}#12", "alice", "/perf evidence cuda-cold-decode measurement hit rate 98% (#4)")
    command(sandbox, 5008, f"{KERNEL}#12", "alice", "/perf evidence cuda-cold-decode measurement tail (acme/bench#5)")
    plan, _, _ = run(sandbox, capsys)
    assert {c["comment_id"]: c["decision"] for c in plan["commands"]} == {5007: "accepted", 5008: "accepted"}
    body = next(a for a in plan["actions"] if a["kind"] == "pull_request")["files"]["config/snapshot.yaml"]
    assert "ref: acme/kernel#4\n" in body
    assert "ref: acme/bench#5\n" in body


def test_a_recorded_command_whose_comment_is_gone_is_checked_in_its_issues_repository(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The permission of a command replayed from the PR's record is read again where its issue
    is, even when its comment was deleted (no comment read names that author any more)."""
    three_repositories(sandbox)
    state = sandbox.state()
    state["repositories"][KERNEL]["permissions"]["bob"] = "write"  # not assigned: his write permission decides
    sandbox.write_state(state)
    command(sandbox, 5006, f"{KERNEL}#12", "bob", f"/perf complete {RESIDENCY} result: resident")
    first, _, _ = run(sandbox, capsys)
    assert [c["decision"] for c in first["commands"] if c["comment_id"] == 5006] == ["accepted"]
    state = sandbox.state()
    state["comments"] = [c for c in state["comments"] if c["id"] != 5006]
    sandbox.write_state(state)
    again, requests, _ = run(sandbox, capsys)
    assert f"GET /repos/{KERNEL}/collaborators/bob/permission" in [f"{r['method']} {r['path']}" for r in requests]
    assert [c["decision"] for c in again["commands"] if c["comment_id"] == 5006] == ["replayed"]
    assert next(a for a in again["actions"] if a["kind"] == "pull_request")["operation"] == "none"


def test_an_open_pr_that_closes_another_repositorys_issue_is_the_lease_of_its_packet(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """`Fixes acme/kernel#12` in a PR of the bot's repository is GitHub's closing reference to an
    issue elsewhere: the PR is the lease of the packet on that issue, which runs."""
    three_repositories(sandbox)
    leases_from(sandbox, BOTH)
    (sandbox.root / "config" / "leases.json").write_text("[]\n", encoding="utf-8")
    open_prs(sandbox, person_pr(70, "alice", ["internal/model/residency.go"], body=f"Fixes {KERNEL}#12"))
    plan, _, _ = run(sandbox, capsys)
    residency = packet(plan, RESIDENCY)
    assert residency["derived_state"] == "running"
    assert [(r["kind"], r["detail"]) for r in residency["reasons"]] == [("pull-closes", f"{KERNEL}#12")]


def test_a_dos_holder_may_name_an_issue_of_another_repository(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a holder pattern whose group takes `owner/repo#N`, a dos lease held for acme/kernel#12
    is the lease of the packet there (assigned to alice): it runs; no lease is lost."""
    three_repositories(sandbox)
    text = sandbox.config.read_text(encoding="utf-8")
    assert "  holder_issue_pattern: issue-(\\d+)\n" in text
    sandbox.config.write_text(text.replace("  holder_issue_pattern: issue-(\\d+)\n", PATTERN, 1), encoding="utf-8")
    leases = sandbox.root / "config" / "leases.json"
    held = leases.read_text(encoding="utf-8").replace("issue-9420-cache", f"issue-{KERNEL}#12-cache")
    leases.write_text(held, encoding="utf-8")
    plan, _, _ = run(sandbox, capsys)
    residency = packet(plan, RESIDENCY)
    assert (residency["derived_state"], residency["own_lease"]) == ("running", True)
    assert not [a for a in plan["actions"] if a.get("topic") == "lease-lost"]
