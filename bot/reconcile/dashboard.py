"""The dashboard issue: its body from the merged state, and the one write (or none) that keeps it true. Pure.

perfbot opens the issue once, with its label and a hidden marker that starts its body, and finds
it again by both (the marker counts only on an issue the bot's own login opened). A run edits
the body only when its content differs from what the issue shows (the time of the run, after a
hidden separator, is not compared), so a run that changes nothing writes nothing. An issue that
was deleted is opened again; one a person closed is left alone, and the plan says so.

The body fits GitHub's limit: the graphs go first, then every list shows as many items as fit,
and the body says what it left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from bot.bodies import capped
from bot.config import BotConfig
from bot.evidence import graph as packet_graph
from bot.evidence.derive import Derivation
from bot.github.actions import Action, CreateIssueAction, DashboardReport, EditIssueAction, PullRequestAction
from bot.github.markers import marker, markers_in
from bot.github.observed import Comment, Issue, Observed
from bot.reconcile.dashboard_view import Content, content
from bot.reconcile.inputs import Inputs
from bot.render import Renderer
from bot.snapshot.model import Program, Snapshot, WorkPacket, WorkState
from bot.timestamps import utc_stamp

TOPIC, KEY = "dashboard", "board"
TEMPLATE = "dashboard.md.j2"
# The line between the content and the time of the run: what follows it is not compared.
SEPARATOR = "<!-- perfbot:dashboard-updated -->"
# No mermaid block draws more packets than this: a larger program is drawn in parts.
GRAPH_NODES = 12
# GitHub refuses an issue body over this many characters.
GITHUB_BODY_LIMIT = 65_536


class ProgramGraph(NamedTuple):
    program: str
    part: int
    parts: int
    text: str


class Stamp(NamedTuple):
    """The dashboard's last line: the time of the run, and the lease readback's time and age then
    (when it was read back, for a published readback, else its newest heartbeat; None: no time)."""

    at: str
    readback_age: int | None
    readback_at: str | None = None
    published: bool = False


class Body(NamedTuple):
    text: str
    omitted: dict[str, int]


def dashboards(observed: Observed, label: str) -> list[Issue]:
    """The issues perfbot opened as its dashboard: its label, its login, its marker; oldest first."""
    return sorted(
        (
            issue
            for issue in observed.issues
            if issue.user == observed.bot_login
            and any(name.casefold() == label.casefold() for name in issue.labels)
            and (TOPIC, KEY) in markers_in(issue.body)
        ),
        key=lambda issue: issue.number,
    )


def _parts(snapshot: Snapshot) -> list[tuple[Program, list[WorkPacket]]]:
    """Each program's packets in parts of at most `GRAPH_NODES`, in the snapshot's order."""
    found = []
    for program in snapshot.programs:
        members = [p for p in snapshot.work_packets if p.program_id == program.id]
        found += [(program, members[i : i + GRAPH_NODES]) for i in range(0, len(members), GRAPH_NODES)]
    return found


class Graphs(NamedTuple):
    """The dashboard's graphs: how many blocks, and a way to draw them (only when they may fit)."""

    blocks: int
    draw: Callable[[], tuple[ProgramGraph, ...]]


def graphs(snapshot: Snapshot, merged: Sequence[Derivation], renderer: Renderer) -> Graphs:
    """A mermaid flowchart per program (its packets in merged states), in parts of `GRAPH_NODES`."""
    parts = _parts(snapshot)
    states = {d.id: d.derived_state for d in merged}

    def draw() -> tuple[ProgramGraph, ...]:
        drawn, numbers = [], {program.id: 0 for program, _ in parts}
        totals = {program.id: sum(1 for p, _ in parts if p.id == program.id) for program, _ in parts}
        for program, part in parts:
            numbers[program.id] += 1
            alone = snapshot.model_copy(update={"programs": (program,), "work_packets": tuple(part)})
            text = renderer.graph(packet_graph.build(alone, states), "mermaid")
            drawn.append(ProgramGraph(program.id, numbers[program.id], totals[program.id], text))
        return tuple(drawn)

    return Graphs(len(parts), draw)


def render(c: Content, drawing: Graphs, stamp: Stamp | None, renderer: Renderer, limit: int) -> Body:
    """The body that fits `limit`: whole, else without the graphs, else with the lists after
    *ready* and *running* cut to the most items each that fit, else with those two cut as well and
    the others empty; what it leaves out is counted, and said in the body. The graphs are drawn
    only when the body fits without them."""

    def body(cap: int, rest: int, drawn: Sequence[ProgramGraph] = ()) -> Body:
        left = {} if drawn or not drawing.blocks else {"dependency graphs": drawing.blocks}
        omitted = _omitted(c, cap, rest) | left
        text = renderer.render(
            TEMPLATE,
            c=c,
            cap=cap,
            rest=rest,
            graphs=drawn,
            graph_nodes=GRAPH_NODES,
            omitted=omitted,
            limit=f"{limit:,}",
            marker=marker(TOPIC, KEY),
            separator=SEPARATOR,
            stamp=stamp,
        )
        return Body(text, omitted)

    first, rest = max(len(c.ready), len(c.running)), max(_lengths(c))
    bare = body(first, rest)
    if len(bare.text) <= limit:
        whole = body(first, rest, drawing.draw()) if drawing.blocks else bare
        return whole if len(whole.text) <= limit else bare
    if len(body(first, 0).text) <= limit:
        found = body(first, _most(lambda n: len(body(first, n).text) <= limit, rest))
    else:
        found = body(_most(lambda n: len(body(n, 0).text) <= limit, first), 0)
    return Body(capped(found.text, limit, renderer), found.omitted)


def _most(fits: Callable[[int], bool], most: int) -> int:
    """The largest n in 0..most that `fits` (which holds for every n below one it holds for):
    a longer list renders longer, so a binary search finds it in log2(most) renders."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _lengths(c: Content) -> list[int]:
    return [
        len(c.waiting),
        *(len(g.packets) for g in c.waiting),
        len(c.complete),
        len(c.reviews),
        len(c.pending),
        len(c.commands),
        1,
    ]


def _omitted(c: Content, cap: int, rest: int) -> dict[str, int]:
    """What the lists leave out, by what they list: *ready* and *running* cut to `cap` items, the
    others to `rest`."""
    shown = sum(len(g.packets[:rest]) for g in c.waiting[:rest])
    counts = {
        "ready packets": len(c.ready) - cap,
        "running packets": len(c.running) - cap,
        "waiting packets": c.waiting_count - shown,
        "complete packets": len(c.complete) - rest,
        "reviews": len(c.reviews) - rest,
        "pending changes": len(c.pending) - rest,
        "pending commands": len(c.commands) - rest,
    }
    return {what: n for what, n in counts.items() if n > 0}


def compared(body: str) -> str:
    """The part of a body two runs compare: all but the time of the run after the separator."""
    return body.split(SEPARATOR, 1)[0]


class Planned(NamedTuple):
    actions: list[Action]
    report: DashboardReport | None


def plan(found: Sequence[Issue], body: Body, config: BotConfig) -> Planned:
    """At most one write: open the dashboard when there is none, edit the open one when its content
    differs, nothing when it is the same or when the dashboard was closed (a person's decision)."""
    settings = config.dashboard
    if not settings.enabled:
        return Planned([], None)
    chars, omitted = len(body.text), body.omitted
    open_ones = [issue for issue in found if issue.state == "open"]
    if not open_ones and found:
        closed = found[-1].number
        return Planned([], DashboardReport(status="closed", issue=closed, chars=chars, omitted=omitted))
    if not open_ones:
        action = CreateIssueAction(title=settings.title, body=body.text, labels=(settings.label,))
        return Planned([action], DashboardReport(status="created", chars=chars, omitted=omitted))
    kept, others = open_ones[0], tuple(issue.number for issue in open_ones[1:])
    if compared(kept.body) == compared(body.text):
        return Planned(
            [], DashboardReport(status="unchanged", issue=kept.number, chars=chars, omitted=omitted, others=others)
        )
    edit = EditIssueAction(issue=kept.number, body=body.text)
    return Planned(
        [edit], DashboardReport(status="edited", issue=kept.number, chars=chars, omitted=omitted, others=others)
    )


def stamp(inputs: Inputs) -> Stamp:
    """The time of the run and the readback's age then (None when the readback has no time)."""
    readback = inputs.readback
    seen = [s for lease in readback.live if (s := lease.last_seen()) is not None]
    at = readback.readback_at or (max(seen) if seen else None)
    age = None if at is None else max(0, int((inputs.now - at).total_seconds() // 60))
    return Stamp(
        at=utc_stamp(inputs.now),
        readback_age=age,
        readback_at=utc_stamp(at) if at else None,
        published=readback.readback_at is not None,
    )


def limit_of(config: BotConfig) -> int:
    return min(config.commands.max_body_chars, GITHUB_BODY_LIMIT)


def pull_of(proposal: PullRequestAction, observed: Observed, branch: str) -> tuple[int | None, bool]:
    """The regeneration PR the dashboard names: (its number, whether this run opens it); a PR this
    run closes holds nothing pending."""
    if proposal.operation == "close":
        return None, False
    existing = observed.open_pull(branch)
    return (existing.number if existing else proposal.number), proposal.operation == "create" and existing is None


def dashboard_body(
    inputs: Inputs,
    merged: Sequence[Derivation],
    pending: dict[str, WorkState],
    applied: Sequence[tuple[Comment, str]],
    proposal: PullRequestAction,
) -> Body:
    """The whole body for a run (or a preview: `perfbot status --format markdown`)."""
    config, observed = inputs.config, inputs.observed
    base = inputs.snapshot.model
    pull = pull_of(proposal, observed, config.pull_request.branch)
    c = content(base, merged, pending, applied, inputs.readback, config, inputs.now, pull, observed.repository)
    c = c.model_copy(update={"held": proposal.held})
    return render(c, graphs(base, merged, inputs.renderer), stamp(inputs), inputs.renderer, limit_of(config))


def pending_of(merged: Sequence[Derivation], working: Sequence[Derivation]) -> dict[str, WorkState]:
    """Each packet whose derived state the regeneration PR's snapshot changes, and to what."""
    after = {d.id: d.derived_state for d in working}
    return {d.id: after[d.id] for d in merged if d.id in after and after[d.id] != d.derived_state}


def planned(
    inputs: Inputs,
    merged: Sequence[Derivation],
    working: Sequence[Derivation],
    applied: Sequence[tuple[Comment, str]],
    proposal: PullRequestAction,
) -> Planned:
    """The run's dashboard write and report; nothing is rendered when the dashboard is off."""
    if not inputs.config.dashboard.enabled:
        return Planned([], None)
    body = dashboard_body(inputs, merged, pending_of(merged, working), applied, proposal)
    return plan(dashboards(inputs.observed, inputs.config.dashboard.label), body, inputs.config)
