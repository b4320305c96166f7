"""The dashboard issue: what it shows, its body, and the one write (or none) that keeps it true. Pure.

**View.** What the dashboard issue shows, as values: the merged state sorted into what a team lead
asks. Pure.

Each packet sits in the one section of its merged derived state (the state its labels and `why`
show): *ready now*, *running*, *waiting* (grouped by what it waits on, so a blocker is named
once per group) or *complete*. What the regeneration PR would change is listed apart, as pending.
Nothing here reads the clock: the run's time is an argument, and the facts that move with it
(ages) are kept out of the content, so a run that changes nothing writes nothing.

**Body and write.** The dashboard issue: its body from the merged state, and the one write (or none)
that keeps it true. Pure.

perfbot opens the issue once, with its label and a hidden marker that starts its body, and finds
it again by both (the marker counts only on an issue the bot's own login opened). A run edits
the body only when its content differs from what the issue shows (the time of the run, after a
hidden separator, is not compared), so a run that changes nothing writes nothing. An issue that
was deleted is opened again; one a person closed is left alone, and the plan says so.

The body fits GitHub's limit: the graphs go first, then every list shows as many items as fit,
and the body says what it left out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bot.bodies import capped, most
from bot.config import BotConfig
from bot.evidence import packet_graph
from bot.evidence.derive import Derivation, Reason
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.actions import (
    GITHUB_BODY_LIMIT,
    Action,
    CreateIssueAction,
    DashboardReport,
    EditIssueAction,
    PullRequestAction,
)
from bot.github.markers import DASHBOARD_MARKER, marker, markers_in
from bot.github.observed import Comment, Issue, Observed
from bot.issue_refs import IssueKey, IssueRef
from bot.reconcile.changes import Change
from bot.reconcile.inputs import Inputs
from bot.render import Renderer
from bot.snapshot.model import Program, Snapshot, WorkPacket, WorkState
from bot.snapshot.validation import review_issue, unrouted_reviews
from bot.timestamps import parse_timestamp, utc_stamp

WAITING_STATES: tuple[WorkState, ...] = (
    "waiting-dependency",
    "waiting-coordination",
    "waiting-evidence",
    "capacity-hold",
)
BlockerKind = Literal["dependency", "lease", "blocker-lease", "condition", "evidence", "hold", "unobserved", "other"]


class Row(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")


class Packet(Row):
    id: str
    issue: IssueKey
    state: WorkState
    program: str = ""
    lane: str = ""
    owner: str = ""
    # Its issue has an assignee (a claim this run made counts): a ready row then names who, and
    # tells nobody else to claim it. Without a lease or a PR, a derived owner is the assignees or
    # the unassigned wording.
    claimed: bool = False


class LeaseLine(Row):
    """A live lease as the dashboard shows it: when it was taken (a fixed time, so a heartbeat is
    no change to the dashboard) and whether it is past its time to live."""

    holder: str
    lane: str
    issue: IssueRef | None
    since: str | None
    stale: bool
    # The pull request that holds it, when it is one (`leases.sources: [pull-requests]`).
    pull: int | None = Field(default=None, exclude_if=lambda value: value is None)


class Running(Row):
    packet: Packet
    leases: tuple[LeaseLine, ...]


class Blocker(Row):
    """One thing packets wait on: a packet (with its issue and merged state), a lease, a condition."""

    kind: BlockerKind
    text: str = ""
    issue: IssueKey | None = None
    state: str = ""
    lease: LeaseLine | None = None
    # The state the regeneration PR gives the packet waited on when it merges ("" when it changes
    # none): a dependency the PR completes is shown as pending there, not as work still to do.
    becomes: str = ""


class WaitGroup(Row):
    blockers: tuple[Blocker, ...]
    packets: tuple[Packet, ...]


class DueReview(Row):
    constraint: str
    review_by: str
    issue: IssueKey | None
    overdue: bool


class Pending(Row):
    packet: Packet
    becomes: WorkState


class Recorded(Row):
    """A state the regeneration PR writes into the record that every surface shows already (the
    evidence moved it): merging it changes no surface, and it is listed so the PR is never hidden."""

    packet: Packet
    recorded: str


class PendingCommand(Row):
    comment_id: int
    issue: IssueKey
    user: str
    effect: str


class Readback(Row):
    """The lease readback as the dashboard shows it; its time and age, which move with every
    publish and heartbeat, are on the dashboard's last line, which is not compared."""

    file: str
    format: str
    live: int
    stale: int


class Content(Row):
    """Everything the dashboard says but the time of the run."""

    repository: str
    prefix: str
    ready: tuple[Packet, ...]
    running: tuple[Running, ...]
    waiting: tuple[WaitGroup, ...]
    complete: tuple[Packet, ...]
    reviews: tuple[DueReview, ...]
    # Constraints whose review nudge has nowhere to go, due or not.
    unrouted: tuple[str, ...] = ()
    # Waiting for merge: each packet whose merged state the PR changes (a ready one is listed here
    # instead of under *ready*), each command it carries, each recorded state it brings up to date
    # with the evidence, and how many other changes its body lists.
    pending: tuple[Pending, ...]
    commands: tuple[PendingCommand, ...]
    recorded: tuple[Recorded, ...] = ()
    other_changes: int = 0
    # The regeneration PR: its number, or None; `opening` when this run opens it.
    pull: int | None
    opening: bool
    # The open PR carries commits perfbot did not make: perfbot leaves it, and says what to do.
    held: bool = False
    readback: Readback
    review_days: int

    @property
    def waiting_count(self) -> int:
        return sum(len(group.packets) for group in self.waiting)

    @property
    def overdue_count(self) -> int:
        return sum(review.overdue for review in self.reviews)

    @property
    def waits_for_merge(self) -> bool:
        """Whether the regeneration PR (open, or opened by this run) holds anything to name."""
        return bool(self.pending or self.commands or self.recorded or self.other_changes)

    def section_of(self, packet_id: str) -> str:
        """The section a packet is listed in: `ready`, `running`, `waiting` or `complete` ("" if none);
        a ready packet the PR changes is listed only as waiting for merge (`merge`)."""
        if any(x.packet.id == packet_id and x.packet.state == "ready" for x in self.pending):
            return "merge"
        sections: dict[str, Sequence[Packet]] = {
            "ready": self.ready,
            "running": [r.packet for r in self.running],
            "waiting": [p for g in self.waiting for p in g.packets],
            "complete": self.complete,
        }
        return next((name for name, found in sections.items() if any(p.id == packet_id for p in found)), "")


def lease_line(lease: Lease, config: BotConfig, now: dt.datetime) -> LeaseLine:
    rules = config.leases_rules
    taken = parse_timestamp(lease.acquired_at) if lease.acquired_at else None
    return LeaseLine(
        holder=lease.holder,
        lane=lease.lane,
        issue=lease.issue(rules.holder_issue_pattern),
        pull=lease.pull,
        since=utc_stamp(taken) if taken else None,
        stale=lease.is_stale(now, rules.ttl_minutes, rules.grace_minutes),
    )


def content(
    snapshot: Snapshot,
    merged: Sequence[Derivation],
    pending: Mapping[str, WorkState],
    applied: Sequence[tuple[Comment, str]],
    readback: LeaseReadback,
    config: BotConfig,
    now: dt.datetime,
    pull: tuple[int | None, bool],
    repository: str,
    changes: Sequence[Change] = (),
) -> Content:
    """The dashboard's content for the merged state `merged` of `snapshot`; `pending` maps each
    packet the regeneration PR changes to the state it takes when the PR merges; `pull` is the PR's
    number and whether this run opens it; `changes` its diff (`reconcile.changes`).

    A ready packet the PR changes (a completion, a hold, a block waiting for the merge) is not
    listed under *ready*: nobody is told to claim what a pending change already finished."""
    packets = {p.id: p for p in snapshot.work_packets}
    states = {d.id: d.derived_state for d in merged}
    leases = {lease.describe(): lease_line(lease, config, now) for lease in readback.live}

    def row(d: Derivation) -> Packet:
        packet = packets[d.id]
        return Packet(
            id=d.id,
            issue=d.issue,
            state=d.derived_state,
            program=packet.program_id,
            lane=packet.lane,
            owner=d.derived_owner,
            claimed=d.derived_owner != config.owner.unassigned,
        )

    by_state = _by_state(merged)
    running = tuple(
        Running(packet=row(d), leases=tuple(v for v in leases.values() if v.issue == d.issue))
        for d in by_state.get("running", [])
    )
    return Content(
        repository=repository,
        prefix=config.commands.prefix,
        ready=tuple(row(d) for d in by_state.get("ready", []) if d.id not in pending),
        running=running,
        waiting=_grouped(merged, row, packets, (states, pending), leases),
        complete=tuple(row(d) for d in by_state.get("complete", [])),
        reviews=_reviews(snapshot, now, config.commands.review_days),
        unrouted=unrouted_reviews(snapshot),
        pending=tuple(Pending(packet=row(d), becomes=pending[d.id]) for d in merged if d.id in pending),
        commands=tuple(
            PendingCommand(comment_id=c.id, issue=c.issue, user=c.user, effect=effect) for c, effect in applied
        ),
        recorded=_recorded(changes, pending, merged, row),
        other_changes=sum(1 for c in changes if not (c.kind == "packet" and c.state is not None)),
        pull=pull[0],
        opening=pull[1],
        readback=_readback(readback, config, now),
        review_days=config.commands.review_days,
    )


def _by_state(merged: Sequence[Derivation]) -> dict[str, list[Derivation]]:
    found: dict[str, list[Derivation]] = {}
    for d in merged:
        found.setdefault(d.derived_state, []).append(d)
    return found


def _recorded(
    changes: Sequence[Change],
    pending: Mapping[str, WorkState],
    merged: Sequence[Derivation],
    row: Callable[[Derivation], Packet],
) -> tuple[Recorded, ...]:
    """The recorded states the PR brings up to date with what every surface shows already."""
    by_id = {d.id: d for d in merged}
    return tuple(
        Recorded(packet=row(by_id[c.id]), recorded=c.state[0])
        for c in changes
        if c.kind == "packet" and c.state is not None and c.id in by_id and c.id not in pending
    )


def _grouped(
    merged: Sequence[Derivation],
    row: Callable[[Derivation], Packet],
    packets: Mapping[str, WorkPacket],
    states: tuple[Mapping[str, str], Mapping[str, WorkState]],
    leases: Mapping[str, LeaseLine],
) -> tuple[WaitGroup, ...]:
    """The waiting packets of `merged` grouped by the exact set of things each waits on, first seen
    first; `states` holds each packet's merged state and the state the PR gives it when it merges."""
    groups: dict[tuple[Blocker, ...], list[Packet]] = {}
    for d in (d for d in merged if d.derived_state in WAITING_STATES):
        key = tuple(dict.fromkeys(b for r in d.reasons if (b := _blocker(r, d, packets, states, leases)) is not None))
        groups.setdefault(key or (Blocker(kind="other"),), []).append(row(d))
    return tuple(WaitGroup(blockers=key, packets=tuple(members)) for key, members in groups.items())


def _blocker(
    reason: Reason,
    d: Derivation,
    packets: Mapping[str, WorkPacket],
    states: tuple[Mapping[str, str], Mapping[str, WorkState]],
    leases: Mapping[str, LeaseLine],
) -> Blocker | None:
    """What one reason of a waiting packet names it waiting on (None: a reason that blocks nothing)."""
    kind = reason.kind
    if kind == "dependency-open" or kind == "blocker-holds-lease":
        other = packets.get(reason.subject)
        issue = other.issue if other is not None else None
        lease = leases.get(reason.detail) if kind == "blocker-holds-lease" else None
        return Blocker(
            kind="dependency" if kind == "dependency-open" else "blocker-lease",
            text=reason.subject,
            issue=issue,
            state=states[0].get(reason.subject, ""),
            lease=lease,
            becomes=states[1].get(reason.subject, ""),
        )
    if kind in ("lease-overlap", "pull-overlap"):
        return Blocker(kind="lease", text=reason.subject, lease=leases.get(reason.subject))
    if kind == "condition":
        return Blocker(kind="condition", text=reason.subject)
    if kind == "decided":
        return Blocker(kind="hold" if d.derived_state == "capacity-hold" else "evidence")
    if kind == "issue-unobserved":
        return Blocker(kind="unobserved", text=reason.subject)
    return None


def _reviews(snapshot: Snapshot, now: dt.datetime, review_days: int) -> tuple[DueReview, ...]:
    """Constraints past `review_by` (overdue) and those due within `review_days`, soonest first."""
    today = now.astimezone(dt.UTC).date()
    horizon = today + dt.timedelta(days=review_days)
    found = [
        DueReview(
            constraint=c.id,
            review_by=c.review_by.isoformat(),
            issue=review_issue(c.review_issue, c.authority_owner),
            overdue=today > c.review_by,
        )
        for c in snapshot.constraints
        if c.review_by <= horizon
    ]
    return tuple(sorted(found, key=lambda r: (r.review_by, r.constraint)))


def _readback(readback: LeaseReadback, config: BotConfig, now: dt.datetime) -> Readback:
    rules = config.leases_rules
    return Readback(
        file=readback.file,
        format=readback.format,
        live=len(readback.live),
        stale=len(readback.stale(now, rules.ttl_minutes, rules.grace_minutes)),
    )


TOPIC, KEY = DASHBOARD_MARKER
TEMPLATE = "dashboard.md.j2"
# The line between the content and the time of the run: what follows it is not compared.
SEPARATOR = "<!-- perfbot:dashboard-updated -->"
# No mermaid block draws more packets than this: a larger program is drawn in parts.
GRAPH_NODES = 12


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


class Caps(NamedTuple):
    """How many items each list shows, in the order a body too long gives them room: the ready
    packets, the running ones, the lanes each holder of a running packet's leases shows, and each
    of the other lists."""

    ready: int
    running: int
    lanes: int
    rest: int


def render(c: Content, drawing: Graphs, stamp: Stamp | None, renderer: Renderer, limit: int) -> Body:
    """The body that fits `limit`: whole, else without the graphs, else with its lists cut item by
    item: every list starts empty, then each in turn (`Caps`' order) shows the most items that
    still fit, so one oversized item leaves the items before it and the lists before its own in
    place. What it leaves out is counted, and said in the body. The graphs are drawn only when the
    body fits without them."""

    def body(caps: Caps, drawn: Sequence[ProgramGraph] = ()) -> Body:
        left = {} if drawn or not drawing.blocks else {"dependency graphs": drawing.blocks}
        omitted = _omitted(c, caps) | left
        text = renderer.render(
            TEMPLATE,
            c=c,
            caps=caps,
            graphs=drawn,
            graph_nodes=GRAPH_NODES,
            omitted=omitted,
            limit=f"{limit:,}",
            marker=marker(TOPIC, KEY),
            separator=SEPARATOR,
            stamp=stamp,
        )
        return Body(text, omitted)

    whole = Caps(len(c.ready), len(c.running), max(_lanes(c), default=0), max(_lengths(c)))
    bare = body(whole)
    if len(bare.text) <= limit:
        drawn = body(whole, drawing.draw()) if drawing.blocks else bare
        return drawn if len(drawn.text) <= limit else bare
    caps = Caps(0, 0, 0, 0)
    for dial, top in zip(Caps._fields, whole, strict=True):
        caps = _widened(caps, dial, top, lambda tried: len(body(tried).text) <= limit)
    found = body(caps)
    return Body(capped(found.text, limit, renderer), found.omitted)


def _widened(caps: Caps, dial: str, top: int, fits: Callable[[Caps], bool]) -> Caps:
    """`caps` with `dial` at the most items, up to `top`, that still fit."""
    return caps._replace(**{dial: most(lambda n: fits(caps._replace(**{dial: n})), top)})


def _lanes(c: Content) -> list[int]:
    """How many leases each holder of each running packet's leases has."""
    return [n for r in c.running for n in Counter(lease.holder for lease in r.leases).values()]


def _lengths(c: Content) -> list[int]:
    return [
        len(c.waiting),
        *(len(g.packets) for g in c.waiting),
        len(c.complete),
        len(c.reviews),
        len(c.pending),
        len(c.commands),
        len(c.recorded),
        1,
    ]


def _omitted(c: Content, caps: Caps) -> dict[str, int]:
    """What the lists leave out, by what they list, each cut as `caps` says."""
    rest = caps.rest
    shown = sum(len(g.packets[:rest]) for g in c.waiting[:rest])
    shown_running = c.running[: caps.running]
    held = [n for r in shown_running for n in Counter(lease.holder for lease in r.leases).values()]
    counts = {
        "ready packets": len(c.ready) - caps.ready,
        "running packets": len(c.running) - caps.running,
        "leases of running packets": sum(max(0, n - caps.lanes) for n in held),
        "waiting packets": c.waiting_count - shown,
        "complete packets": len(c.complete) - rest,
        "reviews": len(c.reviews) - rest,
        "pending changes": len(c.pending) - rest,
        "pending commands": len(c.commands) - rest,
        "recorded states": len(c.recorded) - rest,
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


# A PR this run opens has no number until the run opens it: the body names it between these two
# comments (which no outside text can hold: `untrusted.neutral` breaks `<!--`), and the run puts
# the number in their place before it writes the body, so the dashboard links the PR at once.
_OPENING = re.compile(r"<!-- perfbot:pull -->.*?<!-- /perfbot:pull -->")


def named_pull(body: str, number: int) -> str:
    """`body` with the regeneration PR this run opened named as GitHub links it: `#number`."""
    return _OPENING.sub(f"#{number}", body) if "<!-- perfbot:pull -->" in body else body


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
    changes: Sequence[Change] = (),
) -> Body:
    """The whole body for a run (or a preview: `perfbot status --format markdown`); `changes` is
    the regeneration PR's diff, named under *Waiting for merge* (none when the run closes it)."""
    config, observed = inputs.config, inputs.observed
    base = inputs.snapshot.model
    pull = pull_of(proposal, observed, config.pull_request.branch)
    if pull == (None, False):
        changes = ()
    c = content(base, merged, pending, applied, inputs.readback, config, inputs.now, pull, observed.repository, changes)
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
    changes: Sequence[Change] = (),
) -> Planned:
    """The run's dashboard write and report; nothing is rendered when the dashboard is off."""
    if not inputs.config.dashboard.enabled:
        return Planned([], None)
    body = dashboard_body(inputs, merged, pending_of(merged, working), applied, proposal, changes)
    return plan(dashboards(inputs.observed, inputs.config.dashboard.label), body, inputs.config)
