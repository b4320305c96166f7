"""Issue #13's done-when items: state labels, native "blocked by" and sub-issues, each against both
adapters of the GitHub port (the state file, and the live adapter over the GitHub double).

A person's hand (a label taken off, a link added or removed) goes through the double's REST API
with a person's token, so GitHub's own record of who did it (the label events) is what it would be.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from bot.cli import main
from bot.github.actions import NATIVE_TOPICS
from tests.github_double.graphql_labels import issue_id
from tests.github_double.protocol import error_body
from tests.support.backends import cli_over, double_on, live_environ
from tests.support.harness import Repo, comments, pull

NOW = "2026-08-27T18:00:00Z"
PERSON = "alice-token"


def perf_labels(state: dict[str, Any], number: int) -> set[str]:
    issue = next(i for i in state["issues"] if i["number"] == number)
    return {name for name in issue.get("labels", []) if name.startswith("perf/")}


def links(state: dict[str, Any]) -> set[tuple[str, int, int]]:
    found = {("blocked_by", i["number"], b) for i in state["issues"] for b in i.get("blocked_by", [])}
    return found | {("sub_issue", i["number"], i["parent"]) for i in state["issues"] if i.get("parent")}


def writes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in plan["actions"] if a["kind"] != "pull_request" or a["operation"] != "none"]


@contextmanager
def by_hand(repo: Repo) -> Iterator[httpx.Client]:
    """A person (alice) using GitHub's REST API on the repository the state file holds."""
    double = double_on(repo.state_path, repo.root)
    double.tokens = {PERSON: "alice"}
    headers = {"authorization": f"token {PERSON}"}
    with httpx.Client(transport=double.transport(), base_url="https://api.github.com", headers=headers) as http:
        yield http


def released(repo: Repo) -> str:
    """A lease readback in which #9420 holds nothing any more."""
    path = repo.root / "released.json"
    path.write_text("[]\n", encoding="utf-8")
    return str(path)


def before_perfbot(repo: Repo) -> None:
    """The seed's GitHub as it was before perfbot kept labels and links: none of either, no record."""
    state = repo.state()
    for issue in state["issues"]:
        issue["labels"] = []
        issue.pop("blocked_by", None)
        issue.pop("parent", None)
    for key in ("labels", "label_events", "comments"):
        state.pop(key, None)
    repo.write_state(state)


def test_released_leases_label_the_seed_and_link_m2_to_m1(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    before_perfbot(either)
    leases = released(either)
    first = either.reconcile(capsys, "--now", NOW, "--leases", leases)
    state = either.state()
    assert perf_labels(state, 8635) == {"perf/ready"}  # the gate is ready; dp4a and routing wait on it
    assert perf_labels(state, 9420) == {"perf/ready"}  # assigned, but its lease is gone: not running
    assert ("blocked_by", 9230, 8325) in links(state)  # M2 waits on M1
    assert ("blocked_by", 8635, 9420) not in links(state)  # the gate's blocker cleared
    assert ("sub_issue", 9230, 9430) in links(state)  # mac-top10's umbrella
    created = {a["name"]: a["color"] for a in first["actions"] if a["kind"] == "create_label"}
    assert created["perf/ready"] == "1a7f37"
    assert (created["perf/waiting-dependency"], created["perf/capacity-hold"]) == ("9a6700", "cf222e")
    assert "perf/waiting-coordination" not in created  # a label is made when an issue needs it, not before
    descriptions = {label["name"]: label["description"] for label in state["labels"]}
    assert descriptions["perf/ready"].startswith("perfbot: ")  # says that perfbot manages it
    again = either.reconcile(capsys, "--now", NOW, "--leases", leases)
    assert writes(again) == []
    assert either.state() == state


def test_9420_loses_perf_running_when_its_leases_are_released(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    assert perf_labels(either.state(), 9420) == {"perf/running"}  # the example state: as perfbot left it
    plan = either.reconcile(capsys, "--now", NOW, "--leases", released(either))
    state = either.state()
    assert perf_labels(state, 9420) == {"perf/ready"}
    assert perf_labels(state, 8635) == {"perf/ready"}
    removed = [(a["issue"], a["name"]) for a in plan["actions"] if a["kind"] == "label" and not a["add"]]
    assert (9420, "perf/running") in removed
    assert ("blocked_by", 8635, 9420) not in links(state)
    assert writes(either.reconcile(capsys, "--now", NOW, "--leases", released(either))) == []


def test_completing_m1_drops_the_links_it_satisfies_and_no_other(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    before = links(either.state())
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(
        101, 8325, "alice", "/perf complete mac.m1-streamed-q4k-no-copy result: accepted. receipt: #9482"
    )
    pending = either.reconcile(capsys, "--now", NOW)
    # Links and labels show the merged state: the completion waits in the PR, so nothing moves yet.
    assert [a for a in writes(pending) if a["kind"] in ("link", "label")] == []
    assert links(either.state()) == before
    either.merge(pending)
    after_merge = either.reconcile(capsys, "--now", NOW)
    after = links(either.state())
    assert ("blocked_by", 9230, 8325) not in after
    # M1 was a hard dependency of M2, M5 and real-metal: exactly their links to #8325 go.
    assert before - after == {("blocked_by", 9230, 8325), ("blocked_by", 9430, 8325), ("blocked_by", 9495, 8325)}
    assert after - before == set()
    assert {(a["issue"], a["target"]) for a in writes(after_merge) if a["kind"] == "link"} == {
        (9230, 8325),
        (9430, 8325),
        (9495, 8325),
    }
    assert writes(either.reconcile(capsys, "--now", NOW)) == []
    assert perf_labels(either.state(), 8325) == {"perf/complete"}


def test_a_label_taken_off_by_hand_comes_back_with_one_comment(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    leases = released(either)
    either.reconcile(capsys, "--now", NOW, "--leases", leases)
    assert perf_labels(either.state(), 8635) == {"perf/ready"}
    with by_hand(either) as http:
        assert http.delete("/repos/anthony-chaudhary/fak/issues/8635/labels/perf%2Fready").status_code == 200
    assert perf_labels(either.state(), 8635) == set()
    plan = either.reconcile(capsys, "--now", NOW, "--leases", leases)
    assert perf_labels(either.state(), 8635) == {"perf/ready"}
    (said,) = comments(plan)
    assert (said["issue"], said["topic"]) == (8635, "native-restored")
    assert "the label `perf/ready` (removed by alice): `cuda.q8_1-numerical-gate` is `ready`" in said["body"]
    assert "a label never changes a packet's state" in said["body"]
    assert writes(either.reconcile(capsys, "--now", NOW, "--leases", leases)) == []


def test_a_link_perfbot_keeps_removed_by_hand_comes_back_with_one_comment(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    with by_hand(either) as http:
        gone = http.delete(f"/repos/anthony-chaudhary/fak/issues/9230/dependencies/blocked_by/{issue_id(8325)}")
        assert gone.status_code == 200
    plan = either.reconcile(capsys, "--now", NOW)
    assert ("blocked_by", 9230, 8325) in links(either.state())
    (said,) = comments(plan)
    assert (said["issue"], said["topic"]) == (9230, "native-restored")
    assert "#9230 is blocked by #8325 (`mac.m2-whole-sequence-prefill` waits on" in said["body"]
    assert writes(either.reconcile(capsys, "--now", NOW)) == []


def test_a_persons_blocked_by_between_packet_issues_is_proposed_not_applied(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    with by_hand(either) as http:
        made = http.post(
            "/repos/anthony-chaudhary/fak/issues/9497/dependencies/blocked_by", json={"issue_id": issue_id(9420)}
        )
        assert made.status_code == 201
    plan = either.reconcile(capsys, "--now", NOW)
    proposal = {"packet": "profile.real-cuda", "blocker": "cuda.cache-weight-residency", "issue": 9497, "target": 9420}
    assert plan["proposals"] == [proposal]
    action = pull(plan)
    assert action["operation"] == "create"
    block = action["files"]["config/snapshot.yaml"].split("  - id: profile.real-cuda\n")[1].split("  - id:")[0]
    assert "blocked_by_ids: [cuda.cache-weight-residency]" in block
    assert "#9497 is natively blocked by #9420" in action["body"]
    assert (
        "blocked_by_ids:"
        not in either.snapshot_path.read_text(encoding="utf-8").split("id: profile.real-cuda")[1][:900]
    )
    assert ("blocked_by", 9497, 9420) in links(either.state())  # a person's link: never removed
    assert [a for a in writes(plan) if a["kind"] == "link"] == []


def test_labels_outside_the_state_labels_are_never_touched(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    either.set_issue(8635, labels=["bug", "perf/regression", "perf/waiting-coordination"])
    either.reconcile(capsys, "--now", NOW, "--leases", released(either))
    issue = next(i for i in either.state()["issues"] if i["number"] == 8635)
    assert issue["labels"] == ["bug", "perf/regression", "perf/ready"]


def test_switched_off_nothing_is_read_or_written(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    config = either.config.read_text(encoding="utf-8")
    config = config.replace("  enabled: true\n  prefix: perf/", "  enabled: false\n  prefix: perf/")
    config = config.replace("  blocked_by: true\n  sub_issues: true", "  blocked_by: false\n  sub_issues: false")
    either.config.write_text(config, encoding="utf-8")
    before_perfbot(either)
    plan = either.reconcile(capsys, "--now", NOW, "--leases", released(either))
    kinds = {a["kind"] for a in writes(plan)}
    assert kinds.isdisjoint({"label", "create_label", "link"})
    assert "native_notes" not in plan
    state = either.state()
    assert links(state) == set()
    assert all(not i["labels"] for i in state["issues"])


def test_the_plan_says_which_packets_are_not_made_sub_issues(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    either.set_issue(9497, parent=8819)  # a person filed real-cuda under another issue
    plan = either.reconcile(capsys, "--now", NOW, dry_run=True)
    notes = {(n["kind"], n.get("packet", ""), n.get("other", 0)) for n in plan["native_notes"]}
    assert ("umbrella", "mac.m5-exact-p32t64-receipt", 0) in notes  # on #9430, mac-top10's umbrella itself
    assert ("other-parent", "profile.real-cuda", 8819) in notes
    assert ("cycle", "mac.m10-parity-reconvergence", 8395) in notes  # #8395 already waits on #9430
    assert [a for a in writes(plan) if a["kind"] == "link"] == []  # the person's parent stays


def test_the_printed_plan_says_it_and_exits_zero(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", NOW]
    assert main([*args, "--dry-run", "--leases", released(sandbox)]) == 0
    out = capsys.readouterr().out
    assert "remove label perf/running on #9420" in out
    assert "unlink #8635 blocked by #9420" in out
    assert "`mac.m5-exact-p32t64-receipt` is on #9430, its program's umbrella issue itself" in out
    json.dumps(out)


# --- refusals: said once in the plan, and the run goes on (live adapter: GitHub's answers)


def live_run(repo: Repo, capsys: pytest.CaptureFixture[str], setup: Any) -> tuple[int, dict[str, Any]]:
    double = double_on(repo.state_path, repo.root)
    setup(double)
    with cli_over(double):
        status = main(
            ["reconcile", "--config", str(repo.config), "--json", "--now", NOW],
            environ=live_environ(double.world.repository),
        )
    return status, json.loads(capsys.readouterr().out)


def test_a_refused_link_is_said_once_and_the_run_goes_on(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    before_perfbot(sandbox)
    refusal = error_body(403, "Resource not accessible by integration")
    status, plan = live_run(
        sandbox,
        capsys,
        lambda double: double.faults.answer("POST", r".*/dependencies/blocked_by", 403, refusal),
    )
    assert status == 0
    (note,) = [n for n in plan["native_notes"] if n["kind"] == "refused"]
    assert "blocked by" in note["detail"]
    assert "403 Resource not accessible by integration" in note["detail"]
    state = sandbox.state()
    assert not any(i.get("blocked_by") for i in state["issues"])  # the rest of them waited
    assert ("sub_issue", 9230, 9430) in links(state)  # sub-issues and labels went on
    assert perf_labels(state, 8325) == {"perf/ready"}
    assert not any("native-links" in c["body"] for c in state.get("comments", []))  # no record of a link not made


def test_a_github_without_native_links_is_said_once_and_labels_go_on(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    before_perfbot(sandbox)
    unknown = {"errors": [{"message": "Field 'blockedBy' doesn't exist on type 'Issue'", "path": ["query"]}]}
    status, plan = live_run(sandbox, capsys, lambda double: double.faults.answer("POST", "/graphql", 200, unknown))
    assert status == 0
    (note,) = plan["native_notes"]
    assert note["kind"] == "unavailable"
    assert "blockedBy" in note["detail"]
    assert plan["api"]["graphql"] == 2  # the first read, and the same read without the link fields
    assert links(sandbox.state()) == set()
    assert perf_labels(sandbox.state(), 8325) == {"perf/ready"}


def test_the_job_summary_says_it_too(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    summary = sandbox.root / "summary.md"
    args = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--dry-run"]
    assert main([*args, "--now", NOW], environ={"GITHUB_STEP_SUMMARY": str(summary)}) == 0
    text = summary.read_text(encoding="utf-8")
    assert "### Labels and links" in text
    assert "- `cuda.q8_1-numerical-gate` is on #8635, its program's umbrella issue itself" in text
    capsys.readouterr()


def test_a_persons_link_the_snapshot_cannot_hold_is_left_out_and_the_run_goes_on(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    # The state file allows what GitHub's own checks would not: #9230 blocked by itself.
    sandbox.set_issue(9230, blocked_by=[8325, 9230])
    sandbox.add_comment(101, 9497, "alice", "/perf why profile.real-cuda")
    plan = sandbox.reconcile(capsys, "--now", NOW)
    notes = [n for n in plan["native_notes"] if n["kind"] == "invalid-proposal"]
    assert [(n["issue"], n["packet"], n["other"]) for n in notes] == [(9230, "mac.m2-whole-sequence-prefill", 9230)]
    assert "mac.m2-whole-sequence-prefill" in notes[0]["detail"]
    assert plan.get("proposals", []) == []
    # The run goes on: the command is answered, the PR left as the default branch is.
    assert [c["topic"] for c in comments(plan)] == ["command-reply"]
    assert pull(plan)["operation"] == "none"
    main(
        ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", NOW, "--dry-run"]
    )
    printed = capsys.readouterr().out
    assert "#9230 is blocked by #9230 on GitHub" in printed
    assert "would make the snapshot invalid" in printed


# --- the record of each program's links: one living comment, edited in place


def records(state: dict[str, Any], program: str) -> list[dict[str, Any]]:
    mark = f"<!-- perfbot:native-links {program} -->"
    return [c for c in state["comments"] if c["user"] == "perfbot[bot]" and c["body"].startswith(mark)]


def test_a_lease_release_edits_the_programs_record_in_place_and_says_so(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    (before,) = records(either.state(), "cuda-cold-decode")
    plan = either.reconcile(capsys, "--now", NOW, "--leases", released(either))
    (edit,) = [a for a in writes(plan) if a["kind"] == "edit_comment"]
    assert (edit["comment_id"], edit["issue"], edit["topic"]) == (before["id"], before["issue"], "native-links")
    assert not [c for c in comments(plan) if c["topic"] == "native-links"]  # edited, not posted anew
    (after,) = records(either.state(), "cuda-cold-decode")
    assert after["id"] == before["id"]
    assert (
        "- removed: #8635 is blocked by #9420, because the blocker `cuda.cache-weight-residency` released"
        in (after["body"])
    )
    assert "the snapshot stopped implying" not in after["body"]
    assert "<!-- perfbot:native-link blocked_by:8635:9420 -->" not in after["body"]  # the header: what is kept


def test_a_run_that_changes_nothing_of_a_living_comment_writes_nothing_to_it(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    leases = released(either)
    either.reconcile(capsys, "--now", NOW, "--leases", leases)
    state = either.state()
    again = either.reconcile(capsys, "--now", NOW, "--leases", leases)
    assert writes(again) == []
    assert either.state()["comments"] == state["comments"]  # not even an edit to the same text
    # A day on, a review is overdue: that nudge is posted, and still no record is touched.
    later = either.reconcile(capsys, "--now", "2026-08-29T18:00:00Z", "--leases", leases)
    assert {a["kind"] for a in writes(later)} == {"comment"}
    assert {a["topic"] for a in writes(later)} == {"review-overdue"}
    assert [c for c in either.state()["comments"] if "native-links" in c["body"]] == [
        c for c in state["comments"] if "native-links" in c["body"]
    ]


def test_a_deleted_record_is_posted_again_once(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    state = either.state()
    (gone,) = records(state, "mac-top10")
    state["comments"] = [c for c in state["comments"] if c["id"] != gone["id"]]
    either.write_state(state)
    plan = either.reconcile(capsys, "--now", NOW)
    (posted,) = [a for a in writes(plan) if a["kind"] in ("comment", "edit_comment")]
    assert (posted["kind"], posted["issue"], posted["topic"]) == ("comment", gone["issue"], "native-links")
    assert len(records(either.state(), "mac-top10")) == 1
    assert writes(either.reconcile(capsys, "--now", NOW)) == []


# --- adoption: labels and links are opt-in, and a dry run says what turning them on costs


def switched_off(repo: Repo) -> None:
    """The config as a repository that adopted perfbot before the switches existed has it: no key."""
    config = repo.config.read_text(encoding="utf-8")
    config = config.replace("labels:\n  enabled: true\n  prefix: perf/\n", "labels:\n  prefix: perf/\n")
    config = config.replace("links:\n  blocked_by: true\n  sub_issues: true", "")
    repo.config.write_text(config, encoding="utf-8")


def test_a_config_without_the_switches_writes_no_label_or_link_and_the_plan_says_the_cost(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    before_perfbot(sandbox)
    leases = released(sandbox)
    on = sandbox.reconcile(capsys, "--now", NOW, "--leases", leases, dry_run=True)
    switched_off(sandbox)
    off = sandbox.reconcile(capsys, "--now", NOW, "--leases", leases, dry_run=True)
    assert not [a for a in writes(off) if a["kind"] in ("label", "create_label", "link")]
    assert not [a for a in writes(off) if a.get("topic") in ("native-links", "native-restored")]
    native = [
        a for a in writes(on) if a["kind"] in ("label", "create_label", "link") or a.get("topic") == "native-links"
    ]
    costs = off["switched_off"]
    assert set(costs) == {"labels.enabled", "links.blocked_by", "links.sub_issues"}
    labels = [a for a in writes(on) if a["kind"] in ("label", "create_label")]
    assert costs["labels.enabled"] == len(labels) > 0
    # Each switch alone: together they cost what the switched-on plan writes on labels and links,
    # but for the record of a program with links of both kinds, which each link switch counts.
    both = [
        a for a in native if a.get("topic") == "native-links" and "blocked by" in a["body"] and "sub-issue" in a["body"]
    ]
    assert sum(costs.values()) == len(native) + len(both)
    assert costs["links.blocked_by"] > 0
    assert costs["links.sub_issues"] > 0
    assert "switched_off" not in on
    args = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--now", NOW]
    assert main([*args, "--dry-run", "--leases", leases]) == 0
    printed = capsys.readouterr().out
    assert f"  labels.enabled: off; turning it on would add {len(labels)} writes to this run" in printed


def test_with_labels_and_links_on_the_budget_goes_to_answers_nudges_and_the_pr_first(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    before_perfbot(sandbox)
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(101, 9497, "alice", "/perf block profile.real-cuda waiting for an A100 window")
    plan = sandbox.reconcile(capsys, "--now", NOW, "--leases", released(sandbox), "--max-writes", "6", dry_run=True)
    later = {d["index"] for d in plan["deferred"]}
    made = [a for i, a in enumerate(plan["actions"]) if i not in later and a in writes(plan)]

    def native(action: dict[str, Any]) -> bool:
        return action["kind"] in ("label", "create_label", "link") or action.get("topic") in NATIVE_TOPICS

    # Every answer, nudge and the PR is made; only labels and links wait for the next runs.
    assert {"pull_request", "react"} <= {a["kind"] for a in made}
    assert later
    assert all(native(plan["actions"][i]) for i in later)
    # In the order the run writes them, labels and links come after every other write.
    order = [native(a) for a in writes(plan)]
    assert order == sorted(order)


def test_the_record_on_the_umbrella_is_the_one_edited_when_a_newer_one_is_elsewhere(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program whose umbrella moved away and back: its record on the umbrella is edited (a new one
    would stand behind it), never posted again, and then left alone."""
    state = either.state()
    (record,) = records(state, "mac-top10")
    elsewhere = {**record, "id": 9_000_001, "issue": 8922, "body": "<!-- perfbot:native-links mac-top10 -->\nold"}
    # The record on the umbrella lacks one of the links kept: it is the one brought up to date.
    record["body"] = record["body"].replace("<!-- perfbot:native-link blocked_by:9230:8325 -->\n", "")
    state["comments"].append(elsewhere)
    either.write_state(state)
    plan = either.reconcile(capsys, "--now", NOW)
    (edit,) = [a for a in writes(plan) if a.get("topic") == "native-links"]
    assert (edit["kind"], edit["comment_id"], edit["issue"]) == ("edit_comment", record["id"], 9430)
    assert "- added: #9230 is blocked by #8325" in edit["body"]
    assert writes(either.reconcile(capsys, "--now", NOW)) == []
