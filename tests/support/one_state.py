"""One state, one rule (issue #25), as a check any end-to-end run can be held to.

After a run, each packet's label, `perfbot explain` answer (what `/perf why` replies), graph node
and colour, its place in `perfbot status` and on the dashboard (`status --format markdown`), and every nudge or issue-mismatch comment the run wrote
must name one state: the
merged state (the default branch's snapshot with the live leases and issues). What the
regeneration PR would change is said as pending. `tests/support/harness.Repo.reconcile` walks this after
every run of every e2e scenario; `tests/e2e/test_one_state.py` walks it through the runs of its own.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.cli import main
from bot.config import load_settings
from bot.evidence import packet_graph
from bot.evidence.explain import explain
from bot.github.markers import markers_in
from bot.github.observed import Observed
from bot.issue_refs import IssueKey, number_of
from bot.reconcile import gather
from bot.reconcile.decide import decide
from bot.reconcile.status import status
from bot.reconcile.view import dashboard_preview, render_explanation, view
from bot.snapshot.model import WORK_STATES
from bot.timestamps import parse_timestamp

STATE_SAID = re.compile(
    r"`([^`]+)` \([^\n]*?, #\d+\) is recorded as `[a-z-]+`; the evidence (?:agrees: |says )`([a-z-]+)`"
)
OPENING_COMMENTS = re.compile(r"<!-- /?perfbot:pull -->")
PENDING = re.compile(r"Pending: `([^`]+)` becomes `([a-z-]+)` when (#\d+|perfbot's pull request from `[^`]+`) merges")
NODE = re.compile(r'^\s*(p\d+)\["([^"<]+)<br/>([a-z-]+) - #35;\d+', re.M)
CLASSES = re.compile(r"^\s*class ([p\d,]+) ([a-z]+)$", re.M)
MISMATCH_LINE = re.compile(r"^- `([^`]+)` \([^\n]*\): `([a-z-]+)`$", re.M)
LEASE_LOST = re.compile(
    r"work packet `([^`]+)` \(.*?\) is recorded as `running`, .*?its derived state is now `([a-z-]+)`"
)
READY_NUDGE = re.compile(r"work packet `([^`]+)` \(.*?\) is now \*\*ready\*\*")
# A packet's line on the dashboard (issue #29): its id, the state it is listed with (waiting and
# pending lines), and for a pending line the state it takes when the PR merges.
DASHBOARD_LINE = re.compile(r"^- #\d+ `([^`]+)`(?: `([a-z-]+)`)?(?: → `([a-z-]+)`)?")
# A recorded state the regeneration PR brings up to date (issue #45): the merged state it shows already.
RECORDED_LINE = re.compile(r"^- #\d+ `([^`]+)` recorded `([a-z-]+)` → `([a-z-]+)`$")
# A packet waited on, in a *Waiting* group's "On …" line: its id, merged state, and what the PR makes it.
WAITED_ON = re.compile(
    r"`([^`]+)` \(#\d+, `([a-z-]+)`(?:; `([a-z-]+)` when (#\d+|the regeneration PR this run opens) merges)?\)"
)
# Words that tell a person to take a packet: never said of one a pending change moves away from ready.
CLAIM = re.compile(r"claim[: ]")
DASHBOARD_SECTIONS = {  # the first heading a line starts with names its section
    "### Waiting for merge": "pending",
    "### Ready now": "ready",
    "### Running": "running",
    "### Waiting": "waiting",
    "<details><summary>Complete": "complete",
}
# The contradiction of found item 9: a packet called ready while a dependency is not complete.
READY_SAID = "It is ready: nothing blocks it."
OPEN_DEPENDENCY = re.compile(r"^- Hard dependency `[^`]+` .* is `[a-z-]+`, not complete\.$", re.M)


def tone(state: str) -> str:
    """The graph's colour family of a state (a class of its own, not bot.evidence.packet_graph's)."""
    return state if state in ("ready", "running", "complete") else "hold" if state == "capacity-hold" else "waiting"


class Seen:
    """What a repository shows after a run: the merged states, and each surface's word for them."""

    def __init__(self, repo: Any, now: str, leases: str | Path | None = None, through_cli: bool = False) -> None:
        """`through_cli` reads the graph and status as `perfbot graph` and `perfbot status --json`
        print them; else from the same inputs, by the functions those commands call (`cli.run.show`):
        a walk of the seed then costs about 52 ms of CPU instead of 87 (three gathers fewer)."""
        settings = load_settings(repo.config)
        observed = Observed.model_validate(repo.state())
        at = parse_timestamp(now)
        assert at is not None, now
        inputs = gather.inputs(settings, observed, at, leases)
        seen = view(inputs)
        self.states = {d.id: d.derived_state for d in seen.derivations}
        self.pending = dict(seen.pending)
        self.snapshot = seen.snapshot
        self.issues = {i.number: i for i in observed.issues}
        self.label_prefix = settings.config.labels.prefix if settings.config.labels.enabled else None
        self.explained = {
            p.id: render_explanation(
                inputs, explain(p.id, seen.snapshot, seen.derivations, seen.evidence, inputs.now), seen.pending
            )
            for p in seen.snapshot.work_packets
        }
        if through_cli:
            argv = ["graph", "--config", str(repo.config), "--now", now, "--offline", str(repo.state_path)]
            flags = ["--leases", str(leases)] if leases is not None else []
            self.graph = _printed([*argv, *flags])
            self.status = json.loads(_printed(["status", "--json", *argv[1:], *flags]))
            board = _printed(["status", "--format", "markdown", *argv[1:], *flags])
        else:
            rules = settings.config.leases_rules
            drawn = packet_graph.of_derivations(seen.snapshot, seen.derivations, inputs.readback.live, rules)
            self.graph = inputs.renderer.graph(drawn, "mermaid")
            plan = decide(inputs)
            self.status = json.loads(
                status(plan, inputs.readback, observed, settings.config, inputs.now).model_dump_json()
            )
            # As a reader sees it: the comments around the PR this run would open are not shown.
            board = OPENING_COMMENTS.sub("", dashboard_preview(inputs, plan.pull_request(), plan.changes))
        self.board = board
        self.dashboard = dashboard_lines(board)
        own = observed.open_pull(settings.config.pull_request.branch)
        self.pull = own.number if own is not None else None
        # A body fitted to a small limit says what it left out; a packet left out is not checked.
        self.dashboard_cut = "Left out to fit GitHub's limit" in board

    def labels(self, issue: int) -> set[str]:
        """The issue's state labels (perfbot touches no other label, `perf/regression` included)."""
        prefix = self.label_prefix or "perf/"
        return {name.removeprefix(prefix) for name in self.issues[issue].labels} & set(WORK_STATES)


def dashboard_lines(body: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each packet's lines on the dashboard: (section, the state listed with it, what it becomes)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    section = ""
    for line in body.splitlines():
        heading = next((name for start, name in DASHBOARD_SECTIONS.items() if line.startswith(start)), None)
        if heading is not None or line.startswith(("### ", "<details>")):
            section = heading or ""
        elif section == "pending" and (match := RECORDED_LINE.match(line)):
            found.setdefault(match.group(1), []).append(("recorded", match.group(2), match.group(3)))
        elif section and (match := DASHBOARD_LINE.match(line)):
            found.setdefault(match.group(1), []).append((section, match.group(2) or "", match.group(3) or ""))
    return found


def dashboard_section(state: str) -> str:
    return state if state in ("ready", "running", "complete") else "waiting"


def _printed(argv: list[str]) -> str:
    """What `perfbot ARGV` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


def hold_every_surface_to_one_state(plan: dict[str, Any], seen: Seen, labels_settled: bool = True) -> None:
    """Every packet, every surface of the run and of the repository after it. `labels_settled` is
    false when the run deferred writes (its budget): the labels catch up on a later run."""
    nodes = {key: packet for key, packet, _ in NODE.findall(seen.graph)}
    tones = {nodes[key]: name for keys, name in CLASSES.findall(seen.graph) for key in keys.split(",")}
    drawn = {(p, s) for _, p, s in NODE.findall(seen.graph)}
    for packet in seen.snapshot.work_packets:
        state = seen.states[packet.id]
        # The graph: its words and its colour.
        assert (packet.id, state) in drawn, packet.id
        assert tones[packet.id] == tone(state), packet.id
        _hold_dashboard(packet.id, state, seen)
        _hold_explanation(packet.id, state, seen)
        if labels_settled and seen.label_prefix is not None:
            _hold_label(packet.issue, packet.id, seen)
    _hold_comments(plan, seen)
    _hold_pull_named(seen)
    _hold_waited_on(seen)
    # `perfbot status`: its counts and its ready packets, less those a pending change takes away
    # from ready, which it lists as waiting for the merge.
    assert seen.status["counts"] == {s: list(seen.states.values()).count(s) for s in WORK_STATES}
    assert [r["id"] for r in seen.status["ready"]] == [
        p for p, s in seen.states.items() if s == "ready" and p not in seen.pending
    ]
    assert [(r["id"], r["state"], r["becomes"]) for r in seen.status["waiting_for_merge"]] == [
        (p, seen.states[p], s) for p, s in seen.pending.items()
    ]


def _hold_dashboard(packet_id: str, state: str, seen: Seen) -> None:
    """The dashboard: the one section of the merged state (waiting lines name the state), and a
    pending line, with the merged state and the PR's, when the PR changes it."""
    if packet_id not in seen.dashboard and seen.dashboard_cut:
        return
    listed = seen.dashboard[packet_id]
    placed = [(section, said) for section, said, _ in listed if section not in ("pending", "recorded")]
    # A ready packet a pending change moves (a completion, a hold) is not offered under *Ready now*:
    # it is listed only as waiting for the merge.
    taken_away = state == "ready" and seen.pending.get(packet_id, "ready") != "ready"
    expected = (
        [] if taken_away else [(dashboard_section(state), state if dashboard_section(state) == "waiting" else "")]
    )
    assert placed == expected, packet_id
    assert [(said, becomes) for section, said, becomes in listed if section == "pending"] == (
        [(state, seen.pending[packet_id])] if packet_id in seen.pending else []
    ), packet_id
    for _, recorded, shown in (line for line in listed if line[0] == "recorded"):
        assert packet_id not in seen.pending, packet_id
        assert (shown, recorded != state) == (state, True), packet_id


def _hold_waited_on(seen: Seen) -> None:
    """A packet others wait on is named in its merged state, and as pending in the PR (named) when
    the PR changes it: a wait on a completion the PR carries does not read as work still to do."""
    waiting = seen.board.split("\n### Waiting\n", 1)[1].split("\n### ", 1)[0]
    for line in (line for line in waiting.splitlines() if line.startswith("On ")):
        for packet, state, becomes, pull in WAITED_ON.findall(line):
            assert state == seen.states[packet], line
            assert becomes == seen.pending.get(packet, ""), line
            if becomes:
                assert pull == (f"#{seen.pull}" if seen.pull is not None else "the regeneration PR this run opens"), (
                    line
                )


def _hold_pull_named(seen: Seen) -> None:
    """An open regeneration PR is named under *Waiting for merge*, with what it changes; none is
    named when none is open."""
    if seen.dashboard_cut:
        return
    waiting = seen.board.split("### Waiting for merge", 1)[1].split("\n### ", 1)[0]
    if seen.pull is None:  # none open, or one the run would open (a run whose budget deferred it)
        assert "no regeneration PR is open." in waiting or "The regeneration PR this run opens" in waiting, waiting
    else:
        assert f"#{seen.pull} " in waiting, waiting
        assert "Nothing waits" not in waiting, waiting


def _hold_explanation(packet_id: str, state: str, seen: Seen) -> None:
    """`perfbot explain` (and `/perf why`): the state, what is pending, and no ready while waiting."""
    text = seen.explained[packet_id]
    assert dict(STATE_SAID.findall(text)) == {packet_id: state}, packet_id
    pending = [(p, s) for p, s, _ in PENDING.findall(text)]
    assert pending == ([(packet_id, seen.pending[packet_id])] if packet_id in seen.pending else []), packet_id
    assert not (READY_SAID in text and OPEN_DEPENDENCY.search(text)), (packet_id, text)
    assert (READY_SAID in text) == (state == "ready"), (packet_id, text)
    if seen.pending.get(packet_id, "ready") != "ready":
        assert not CLAIM.search(text), (packet_id, text)


def _hold_label(key: IssueKey, packet_id: str, seen: Seen) -> None:
    """A packet alone on its open issue shows its state there; a closed issue keeps only
    `complete`, and only when all of its packets are; an issue of several shows only their states."""
    number = number_of(key)
    issue = seen.issues.get(number)
    if issue is None:
        return
    states = {seen.states[p.id] for p in seen.snapshot.work_packets if p.issue == number}
    if issue.state == "closed":
        assert seen.labels(number) == ({"complete"} if states == {"complete"} else set()), packet_id
    elif Counter(p.issue for p in seen.snapshot.work_packets)[number] == 1:
        assert seen.labels(number) == {seen.states[packet_id]}, packet_id
    else:
        assert seen.labels(number) <= states, packet_id


def _hold_comments(plan: dict[str, Any], seen: Seen) -> None:
    """Every `why` answer, ready and lease-lost nudge and issue-mismatch line the run wrote."""
    for comment in (a for a in plan["actions"] if a["kind"] == "comment"):
        body = comment["body"]
        for packet_id, state in STATE_SAID.findall(body):
            if packet_id in seen.states:  # a packet only the PR has is not in the merged state
                assert state == seen.states[packet_id], (packet_id, body)
        for topic, key in markers_in(body):
            if topic == "packet-ready":
                assert seen.states[key.split(":")[0]] == "ready", key
        for packet_id in READY_NUDGE.findall(body):
            assert seen.states[packet_id] == "ready", (packet_id, body)
        for packet_id, state in LEASE_LOST.findall(body):
            assert state == seen.states[packet_id], (packet_id, body)
        if comment["topic"] == "issue-mismatch":
            for packet_id, state in MISMATCH_LINE.findall(body):
                assert state == seen.states[packet_id], (packet_id, body)


def walk_after_run(repo: Any, args: Sequence[str], plan: dict[str, Any]) -> None:
    """The walk after one `Repo.reconcile`, with the clock and the leases that run was given. A run
    that decided on the default branch's tip on GitHub (`decided_on`: a merge the checkout lacks)
    is not walked: the walk reads the checkout's files."""
    if plan.get("decided_on"):
        return
    now = _flag(args, "--now") or dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    seen = Seen(repo, now, _flag(args, "--leases"))
    hold_every_surface_to_one_state(plan, seen, labels_settled=not plan.get("deferred"))


def _flag(args: Sequence[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None
