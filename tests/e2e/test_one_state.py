"""One state, one rule (issue #25): every surface names the merged state.

Through a run of six commands (two `why`s around a `complete` in one run), the runs while the
regeneration PR is open, its merge, and issues closed afterwards, each packet's label, `why`
answer, `perfbot explain`, graph colour, dashboard section (issue #29), ready nudge and
issue-mismatch line name the same state: the default branch's snapshot with the live leases and
issues. What the PR would change is said as pending, with the PR named.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from bot.cli import main
from bot.config import load_settings
from bot.evidence.explain import explain
from bot.github.markers import markers_in
from bot.github.observed import Observed
from bot.reconcile import gather
from bot.reconcile.view import render_explanation, view
from tests.harness import Repo, comments, pull

NOW = "2026-08-27T18:00:00Z"
M1, M2, CUDA = "mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill", "profile.real-cuda"
SIX = [
    (101, 9230, "bob", f"/perf why {M2}"),
    (102, 8325, "alice", f"/perf complete {M1} result: accepted. receipt: #9482"),
    (103, 9230, "carol", f"/perf why {M2}"),
    (104, 9497, "alice", f"/perf claim {CUDA}"),
    (105, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04"),
    (106, 8635, "bob", "/perf why cuda.q8_1-numerical-gate"),
]
STATE_SAID = re.compile(
    r"`([^`]+)` \([^\n]*?, #\d+\) is recorded as `[a-z-]+`; the evidence (?:agrees: |says )`([a-z-]+)`"
)
PENDING = re.compile(r"Pending: `([^`]+)` becomes `([a-z-]+)` when (#\d+|perfbot's pull request from `[^`]+`) merges")
NODE = re.compile(r'^\s*(p\d+)\["([^"<]+)<br/>([a-z-]+) - #35;\d+', re.M)
CLASSES = re.compile(r"^\s*class ([p\d,]+) ([a-z]+)$", re.M)
MISMATCH_LINE = re.compile(r"^- `([^`]+)` \([^\n]*\): `([a-z-]+)`$", re.M)
# A packet's line on the dashboard: its id, the state it is listed with (waiting and pending lines),
# and for a pending line the state it takes when the PR merges.
DASHBOARD_LINE = re.compile(r"^- #\d+ `([^`]+)`(?: `([a-z-]+)`)?(?: → `([a-z-]+)`)?")
DASHBOARD_SECTIONS = {
    "### Ready now": "ready",
    "### Running": "running",
    "### Waiting": "waiting",
    "### Pending in the regeneration PR": "pending",
    "<details><summary>Complete": "complete",
}


def tone(state: str) -> str:
    """The graph's colour family of a state (a class of its own, not bot.evidence.graph's)."""
    return state if state in ("ready", "running", "complete") else "hold" if state == "capacity-hold" else "waiting"


class Seen:
    """What a repository shows after a run: the merged states, and each surface's word for them."""

    def __init__(self, repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
        settings = load_settings(repo.config)
        observed = Observed.model_validate(repo.state())
        inputs = gather.inputs(settings, observed, gather_now())
        seen = view(inputs)
        self.states = {d.id: d.derived_state for d in seen.derivations}
        self.pending = dict(seen.pending)
        self.snapshot = seen.snapshot
        self.issues = {i.number: i for i in observed.issues}
        self.explained = {
            p.id: render_explanation(
                inputs, explain(p.id, seen.snapshot, seen.derivations, seen.evidence, inputs.now), seen.pending
            )
            for p in seen.snapshot.work_packets
        }
        offline = ["--offline", str(repo.state_path)]
        assert main(["graph", "--config", str(repo.config), "--now", NOW, *offline]) == 0
        self.graph = capsys.readouterr().out
        status = ["status", "--format", "markdown", "--config", str(repo.config), "--now", NOW, *offline]
        assert main(status) == 0
        self.dashboard = dashboard_lines(capsys.readouterr().out)

    def labels(self, issue: int) -> set[str]:
        return {name.removeprefix("perf/") for name in self.issues[issue].labels if name.startswith("perf/")}


def dashboard_lines(body: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each packet's lines on the dashboard: (section, the state listed with it, what it becomes)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    section = ""
    for line in body.splitlines():
        heading = next((name for start, name in DASHBOARD_SECTIONS.items() if line.startswith(start)), None)
        if heading is not None or line.startswith(("### ", "<details>")):
            section = heading or ""
        elif section and (match := DASHBOARD_LINE.match(line)):
            found.setdefault(match.group(1), []).append((section, match.group(2) or "", match.group(3) or ""))
    return found


def dashboard_section(state: str) -> str:
    return state if state in ("ready", "running", "complete") else "waiting"


def gather_now() -> Any:
    import datetime as dt

    return dt.datetime.fromisoformat(NOW.replace("Z", "+00:00"))


def hold_every_surface_to_one_state(plan: dict[str, Any], seen: Seen) -> None:
    """Every packet, every surface of the run and of the repository after it."""
    by_issue = Counter(p.issue for p in seen.snapshot.work_packets)
    nodes = {key: packet for key, packet, _ in NODE.findall(seen.graph)}
    tones = {nodes[key]: name for keys, name in CLASSES.findall(seen.graph) for key in keys.split(",")}
    for packet in seen.snapshot.work_packets:
        state = seen.states[packet.id]
        # The graph: its words and its colour.
        assert (packet.id, state) in {(p, s) for _, p, s in NODE.findall(seen.graph)}, packet.id
        assert tones[packet.id] == tone(state), packet.id
        # The dashboard: the one section of its merged state (waiting lines name the state), and
        # a pending line, with the merged state and the PR's, when the PR changes it.
        listed = seen.dashboard[packet.id]
        placed = [(section, said) for section, said, _ in listed if section != "pending"]
        assert placed == [(dashboard_section(state), state if dashboard_section(state) == "waiting" else "")]
        assert [(said, becomes) for section, said, becomes in listed if section == "pending"] == (
            [(state, seen.pending[packet.id])] if packet.id in seen.pending else []
        ), packet.id
        # `perfbot explain`, and what it says is pending.
        said = dict(STATE_SAID.findall(seen.explained[packet.id]))
        assert said == {packet.id: state}, packet.id
        pending = PENDING.findall(seen.explained[packet.id])
        assert [(p, s) for p, s, _ in pending] == (
            [(packet.id, seen.pending[packet.id])] if packet.id in seen.pending else []
        )
        # The label: a packet alone on its open issue shows its state there; a closed issue keeps
        # only `complete`, and only when all of its packets are.
        issue = seen.issues.get(packet.issue)
        if issue is None:
            continue
        if issue.state == "closed":
            everyone = {seen.states[p.id] for p in seen.snapshot.work_packets if p.issue == packet.issue}
            assert seen.labels(packet.issue) == ({"complete"} if everyone == {"complete"} else set()), packet.id
        elif by_issue[packet.issue] == 1:
            assert seen.labels(packet.issue) == {state}, packet.id
        else:
            assert seen.labels(packet.issue) <= {
                seen.states[p.id] for p in seen.snapshot.work_packets if p.issue == packet.issue
            }
    for comment in comments(plan):
        body = comment["body"]
        for packet_id, state in STATE_SAID.findall(body):  # every `why` answer of the run
            assert state == seen.states[packet_id], (packet_id, body)
        for topic, key in markers_in(body):
            if topic == "packet-ready":
                assert seen.states[key.split(":")[0]] == "ready", key
        if comment["topic"] == "issue-mismatch":
            for packet_id, state in MISMATCH_LINE.findall(body):
                assert state == seen.states[packet_id], (packet_id, body)


def test_every_surface_names_the_merged_state_in_every_run(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    either.edit_state(permissions={"alice": "write"})
    for cid, issue, user, body in SIX:
        either.add_comment(cid, issue, user, body)
    first = either.reconcile(capsys, "--now", NOW)
    seen = Seen(either, capsys)
    hold_every_surface_to_one_state(first, seen)
    # M1's completion is pending in the PR: M1 and its dependents keep their merged state and labels.
    assert seen.states[M1] == "ready"
    assert seen.labels(8325) == {"ready"}
    assert seen.pending[M1] == "complete"
    assert seen.pending[M2] == "ready"
    # Both `why`s of M2 (one asked before the completion, one after) give one answer, pending included.
    whys = [c["body"] for c in comments(first) if c["topic"] == "command-reply" and M2 in c["body"]]
    assert len(whys) == 2
    assert [STATE_SAID.findall(b) for b in whys] == [[(M2, "waiting-dependency")]] * 2
    assert [PENDING.findall(b) for b in whys] == [[(M2, "ready", "perfbot's pull request from `perfbot/update`")]] * 2
    # The claim's assignment is made in this run, so the merged state has it already.
    assert seen.states[CUDA] == "running" or seen.issues[9497].assignees == ("alice",)

    either.add_comment(120, 9230, "bob", f"/perf why {M2}", at="2026-08-27T12:00:00Z")
    second = either.reconcile(capsys, "--now", NOW)
    seen = Seen(either, capsys)
    hold_every_surface_to_one_state(second, seen)
    number = pull(first).get("number") or next(p["number"] for p in either.state()["pulls"] if p["state"] == "open")
    (answer,) = [c["body"] for c in comments(second) if c["topic"] == "command-reply"]
    assert PENDING.findall(answer) == [(M2, "ready", f"#{number}")]

    either.merge(first)  # the second run left the PR as it was
    merged = either.reconcile(capsys, "--now", NOW)
    seen = Seen(either, capsys)
    hold_every_surface_to_one_state(merged, seen)
    assert seen.states[M1] == "complete"
    assert seen.labels(8325) == {"complete"}
    assert seen.states[M2] == "ready"
    assert seen.labels(9230) == {"ready"}
    assert seen.pending == {}

    # Closed issues: a complete packet's keeps `perf/complete`; an open packet's loses its label and
    # is pointed out once, naming the state the labels showed.
    either.set_issue(8325, state="closed")
    either.set_issue(9230, state="closed")
    closed = either.reconcile(capsys, "--now", NOW)
    seen = Seen(either, capsys)
    hold_every_surface_to_one_state(closed, seen)
    assert seen.labels(8325) == {"complete"}
    assert seen.labels(9230) == set()
    (mismatch,) = [c for c in comments(closed) if c["topic"] == "issue-mismatch"]
    assert mismatch["issue"] == 9230
    assert MISMATCH_LINE.findall(mismatch["body"]) == [(M2, "ready")]
    quiet = either.reconcile(capsys, "--now", NOW)
    hold_every_surface_to_one_state(quiet, Seen(either, capsys))
    assert [a for a in quiet["actions"] if a["kind"] != "pull_request"] == []
