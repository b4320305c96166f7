"""Teams without dos (issue #41): open pull requests as leases, through the CLI, offline and against
the GitHub double (whose `files` and `closingIssuesReferences` answer as GitHub's do).

A PR touching a packet's write paths makes it wait, naming the PR and the paths; the PR merged,
the packet is ready, told once; a PR that closes the packet's issue makes it running; the seed,
which reads its lease file alone, is the same whatever PRs are open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.support.backends import NOW, cli_over, double_on, live_environ
from tests.support.harness import Repo, comments, packet

AT = ["--now", NOW.isoformat()]
M1, M1_ISSUE = "mac.m1-streamed-q4k-no-copy", 8325  # docs/_witnesses/**, ready in the seed
PULLS_ONLY = "leases:\n  sources: [pull-requests]\n"
BOTH = "leases:\n  file: config/leases.json\n  sources: [file, pull-requests]\n"


def leases_from(sandbox: Repo, block: str) -> None:
    text = sandbox.config.read_text(encoding="utf-8")
    assert "\nleases: config/leases.json\n" in text
    sandbox.config.write_text(text.replace("\nleases: config/leases.json\n", "\n" + block, 1), encoding="utf-8")


def person_pr(number: int, user: str, paths: list[str], **fields: Any) -> dict[str, Any]:
    record = {"number": number, "head": f"{user}/work-{number}", "title": f"work {number}", "body": "", "state": "open"}
    return record | {"user": user, "paths": paths, "pushed_at": "2026-08-27T20:00:00Z"} | fields


def open_prs(sandbox: Repo, *records: dict[str, Any]) -> None:
    state = sandbox.state()
    state["pulls"] = [*state.get("pulls", []), *records]
    sandbox.write_state(state)


def set_pr(sandbox: Repo, number: int, **fields: Any) -> None:
    state = sandbox.state()
    for record in state["pulls"]:
        if record["number"] == number:
            record.update(fields)
    sandbox.write_state(state)


def cli(sandbox: Repo, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Another subcommand (`explain`, `status`) over the sandbox's adapter; what it printed."""
    full = [*argv, "--config", str(sandbox.config), *AT]
    if sandbox.adapter == "offline":
        assert main([*full, "--offline", str(sandbox.state_path)]) == 0
    else:
        double = double_on(sandbox.state_path, sandbox.root)
        with cli_over(double):
            assert main(full, environ=live_environ(double.world.repository)) == 0
    return capsys.readouterr().out


def ready_comments(plan: dict[str, Any], issue: int) -> list[str]:
    return [c["body"] for c in comments(plan) if c["issue"] == issue and c["topic"] == "packet-ready"]


@pytest.fixture(params=["offline", "live"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Repo:
    sandbox = Repo(tmp_path, adapter=request.param)
    sandbox.walk_one_state = request.param == "live"
    return sandbox


def test_an_open_pr_on_a_packets_paths_makes_it_wait_and_its_merge_makes_it_ready_once(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    leases_from(repo, BOTH)
    open_prs(repo, person_pr(50, "alice", ["README.md", "docs/_witnesses/m1-receipt.md"]))
    plan = repo.reconcile(capsys, *AT)
    m1 = packet(plan, M1)
    assert m1["derived_state"] == "waiting-coordination"
    assert [(r["kind"], r["subject"], r["detail"]) for r in m1["reasons"]] == [
        ("pull-overlap", "PR #50 by alice", "docs/_witnesses/m1-receipt.md")
    ]
    assert plan["leases"]["pulls"] == 1
    why = cli(repo, capsys, "explain", M1)
    assert "Open PR #50 by `alice`" in why
    assert "its path `docs/_witnesses/**` meets `docs/_witnesses/m1-receipt.md`" in why
    assert "- PR #50 by `alice` merges or closes." in why
    board = cli(repo, capsys, "status", "--format", "markdown")
    assert "On PR #50 of `alice`:" in board
    assert ready_comments(plan, M1_ISSUE) == []

    repo.merge(plan)  # the regeneration PR records waiting-coordination
    set_pr(repo, 50, state="merged", closed_at="2026-08-27T21:00:00Z")
    plan = repo.reconcile(capsys, *AT)
    assert packet(plan, M1)["derived_state"] == "ready"
    [told] = ready_comments(plan, M1_ISSUE)
    assert "`PR #50 by alice, merged`: its paths are free again" in told
    assert "a pull request that says `Closes #8325`" in told

    again = repo.reconcile(capsys, *AT)
    assert ready_comments(again, M1_ISSUE) == []


def test_a_pr_that_closes_a_packets_issue_makes_it_running(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    leases_from(repo, BOTH)
    # The double reads the keyword in the body, as GitHub does; the offline state carries GitHub's
    # answer (`closes`), as does the one-state walk, which reads the state as the offline adapter does.
    closing = person_pr(51, "bob", ["docs/_witnesses/m1.md"], body="Fixes #8325", draft=True)
    open_prs(repo, closing | ({"closes": [M1_ISSUE]} if repo.adapter == "offline" else {}))
    repo.walk_one_state = False
    plan = repo.reconcile(capsys, *AT)
    m1 = packet(plan, M1)
    assert (m1["derived_state"], m1["derived_owner"]) == ("running", "bob / PR #51")
    assert [r["kind"] for r in m1["reasons"]] == ["pull-closes"]
    assert "It is running: an open pull request closes its issue." in cli(repo, capsys, "explain", M1)
    labels = [a for a in plan["actions"] if a["kind"] == "label" and a["issue"] == M1_ISSUE and a["add"]]
    assert [a["name"] for a in labels] == ["perf/running"]

    # The PR merges and GitHub closes the issue: the work landed, no lease was lost; the issue
    # being closed while its packet is open is said, with how to complete it.
    repo.merge(plan)
    set_pr(repo, 51, state="merged", closed_at="2026-08-27T21:00:00Z", closes=[M1_ISSUE])
    repo.set_issue(M1_ISSUE, state="closed")
    plan = repo.reconcile(capsys, *AT)
    topics = [c["topic"] for c in comments(plan) if c["issue"] == M1_ISSUE]
    assert "lease-lost" not in topics
    assert "issue-mismatch" in topics


def test_a_keyword_does_not_link_a_pr_whose_base_is_not_the_default_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox = Repo(tmp_path, adapter="live")
    leases_from(sandbox, BOTH)
    open_prs(sandbox, person_pr(52, "bob", ["src/x.go"], body="Closes #8325"))
    state = sandbox.state()
    state["git"] = {"pulls": {"52": {"base": "release-1", "closed_head": None}}}
    sandbox.write_state(state)
    plan = sandbox.reconcile(capsys, *AT)
    assert packet(plan, M1)["derived_state"] == "ready"


def test_the_seed_with_its_lease_file_is_the_same_whatever_prs_are_open(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    before = repo.reconcile(capsys, *AT, dry_run=True)
    page = repo.page_path.read_text(encoding="utf-8")
    open_prs(repo, person_pr(50, "alice", ["docs/_witnesses/m1.md"], body="Closes #8325", closes=[M1_ISSUE]))
    after = repo.reconcile(capsys, *AT, dry_run=True)
    assert json.dumps(after, sort_keys=True) == json.dumps(before, sort_keys=True)
    assert repo.page_path.read_text(encoding="utf-8") == page
