"""Labels and links: state labels, native links, why a kept link went, and the comments that account for them. Pure.

**State labels.** State labels: one `perf/<state>` label per distinct state on each packet issue.
Pure.

An issue that carries a sequence of packets is labelled by where the sequence stands: a packet
that waits only on earlier packets of the same issue adds no label, and neither does a complete
one while another packet of the issue is open. perfbot touches only the labels named by its
prefix and a state; every other label, `perf/regression` included, is a person's.

A label is *restored* when perfbot puts back a label that it had set and that a person then took
off: GitHub's timeline (the label events) says who removed it. The snapshot and the evidence
decide the label, never the other way round: the default branch's snapshot with the live leases
and issues, as every other surface shows it (what the regeneration PR would change is labelled
once it merges). A closed issue keeps `perf/complete` when all of its packets are complete and
loses every other state label.

**Native links.** Native links: GitHub's "blocked by" dependencies and sub-issues, kept in line with
the snapshot. Pure.

perfbot wants a link when the next snapshot implies it: a packet's open hard dependency or
blocker on another issue (blocked by), a program's packet issue under the program's umbrella
(sub-issue). It owns the links the snapshot implies (the default branch's, satisfied
dependencies included, or the next one's) and the links it recorded: one marker comment on each
program's umbrella issue lists every link kept for the program, edited in place whenever that
list changes (posted again once if it was deleted), so a link stays perfbot's after an edit of
the snapshot drops it. A link perfbot wants
and finds in place is kept (and recorded) whoever made it; a link perfbot owns and no longer
wants is removed; any other link is a person's and is never touched. A person's "blocked by"
between two packet issues is proposed for the snapshot instead.

**Link causes.** Why a native link perfbot kept is no longer kept: the cause its record names for
each change. Pure.

A link goes for one reason, read from the snapshots the run decides on (`base`, the default
branch's, and `following`, the merged state labels and links show): a dependency met, a blocker
that released its lease, a packet complete, a packet moved to another program, a dependency the
snapshot no longer names; or, for a link the snapshot still implies, a note of the plan (the
issue not read, a loop, another parent) that kept perfbot from keeping it.

**Together.** Labels and links together: their writes and the comments that account for them. Pure.

An explanation of what perfbot puts back (native-restored) comes just before the writes it
explains, one marker per thing put back: a run stopped between the two leaves the next run to
make the writes, and it finds the marker and says nothing twice (said after them, a stop in
between lost it: the next run sees nothing to put back). The record of each program's links
(native-links) comes last, written only when every label and link write of the run landed (the
executor sees to that), so it never names a link that is not in place. It is one living comment
per program, edited in place when the program's links change, naming the cause of each link that
went; a run that changes none of them writes nothing to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from bot.bodies import capped
from bot.config import BotConfig, LabelSettings, LinkSettings
from bot.evidence.derive import Derivation
from bot.github.actions import (
    TOPICS,
    Action,
    CommentAction,
    CreateLabelAction,
    EditCommentAction,
    LabelAction,
    LinkAction,
    LinkRelation,
    NativeNote,
    Proposal,
)
from bot.github.markers import header, markers_in, markers_of
from bot.github.observed import Issue, LabelEvent, Observed
from bot.issue_refs import IssueKey, issue_order, parse_issue, repository_of, sorted_issues
from bot.render import Renderer
from bot.snapshot.model import WORK_STATES, Snapshot, WorkPacket, WorkState


@dataclass
class LabelPlan:
    """The label writes of a run (creations first), and the labels each issue gets back."""

    actions: list[Action] = field(default_factory=list)
    restored: dict[IssueKey, list[str]] = field(default_factory=dict)
    # Each restored label's removal, (issue, label) -> when and by whom: it keys the explaining comment.
    removals: dict[tuple[IssueKey, str], LabelEvent] = field(default_factory=dict)


def issue_states(snapshot: Snapshot, derivations: Iterable[Derivation]) -> dict[IssueKey, tuple[WorkState, ...]]:
    """The distinct states each packet issue shows, in the order of `WORK_STATES`."""
    derived = {d.id: d.derived_state for d in derivations}
    by_issue: dict[IssueKey, list[WorkPacket]] = {}
    for packet in snapshot.work_packets:
        by_issue.setdefault(packet.issue, []).append(packet)
    issue_of = {p.id: p.issue for p in snapshot.work_packets}
    shown: dict[IssueKey, tuple[WorkState, ...]] = {}
    for number, packets in by_issue.items():
        states = [derived[p.id] for p in packets if _current(p, packets, derived, issue_of)]
        states = states or [derived[p.id] for p in packets]
        shown[number] = tuple(s for s in WORK_STATES if s in states)
    return shown


def _current(
    packet: WorkPacket, siblings: list[WorkPacket], derived: dict[str, WorkState], issue_of: dict[str, IssueKey]
) -> bool:
    state = derived[packet.id]
    if state == "complete":
        return all(derived[s.id] == "complete" for s in siblings)
    if state == "waiting-dependency":
        open_deps = [d for d in packet.hard_dependency_ids if derived.get(d) != "complete"]
        return any(issue_of.get(d) != packet.issue for d in open_deps)
    return True


def plan_labels(
    snapshot: Snapshot,
    derivations: Iterable[Derivation],
    observed: Observed,
    settings: LabelSettings,
    pulls: bool = False,
) -> LabelPlan:
    """Remove the state labels an issue should not carry, add those it lacks, create missing ones."""
    found = LabelPlan()
    if not settings.enabled:
        return found
    managed = {settings.name(state): state for state in WORK_STATES}
    folded = {name.casefold() for name in managed}
    shown = issue_states(snapshot, derivations)
    existing = {label.name.casefold() for label in observed.labels}
    removals, additions = [], []
    for issue in sorted(observed.issues, key=lambda i: issue_order(i.key)):
        states = shown.get(issue.key, ())
        if issue.state == "closed":
            # A closed issue keeps only `complete`, and only when all of its packets are.
            states = tuple(s for s in states if s == "complete" and states == ("complete",))
        wanted = {settings.name(state) for state in states}
        # GitHub's label names are case-insensitive: `Perf/Ready` on an issue is `perf/ready`.
        present = {name.casefold(): name for name in issue.labels if name.casefold() in folded}
        wanted_folded = {name.casefold() for name in wanted}
        removals += [
            LabelAction(issue=issue.key, name=present[n], add=False) for n in sorted(present.keys() - wanted_folded)
        ]
        for name in sorted(n for n in wanted if n.casefold() not in present):
            additions.append(LabelAction(issue=issue.key, name=name, add=True))
            removal = _removed_by_hand(issue, name, observed)
            if removal is not None:
                found.restored.setdefault(issue.key, []).append(name)
                found.removals[(issue.key, name)] = removal
    # Each label is made in the repository of the issue it goes on (the bot's own first).
    created = sorted(
        {
            (where, a.name)
            for a in additions
            if a.name.casefold()
            not in (existing if (where := repository_of(a.issue)) is None else _labels_in(observed, where))
        },
        key=lambda made: (made[0] or "", made[1]),
    )
    found.actions += [
        CreateLabelAction(
            name=n,
            color=settings.style(managed[n]).color,
            description=settings.style(managed[n], pulls).description,
            repository=where,
        )
        for where, n in created
    ]
    found.actions += removals + additions
    return found


def _labels_in(observed: Observed, repository: str) -> set[str]:
    """The state labels another repository has (case folded), as the read found them."""
    access = observed.repository_access(repository)
    return {label.name.casefold() for label in access.labels} if access else set()


def _removed_by_hand(issue: Issue, name: str, observed: Observed) -> LabelEvent | None:
    """The event of a person taking off a label that perfbot had put on, when that is its last event."""
    events = sorted(
        (e for e in observed.label_events if e.issue == issue.key and e.label.casefold() == name.casefold()),
        key=lambda e: e.created_at,
    )
    if not events or events[-1].action != "unlabeled" or events[-1].actor == observed.bot_login:
        return None
    set_by_bot = any(e.action == "labeled" and e.actor == observed.bot_login for e in events[:-1])
    return events[-1] if set_by_bot else None


# GitHub: "You can add up to 100 sub-issues per parent issue" (docs.github.com, "Adding
# sub-issues"); the REST endpoint refuses one more with a 422.
SUB_ISSUE_LIMIT = 100
RECORD_TOPIC = "native-links"
LINK_TOPIC = "native-link"
# A record is one living comment, edited whenever its list changes; a repository may still hold
# the older records that earlier versions posted anew on each change (the latest counts): these
# markers on an earlier comment never mean that another run wrote this one.
REPOSTED_TOPICS = frozenset({RECORD_TOPIC, LINK_TOPIC})

Link = tuple[LinkRelation, IssueKey, IssueKey]


def link_key(link: Link) -> str:
    relation, issue, target = link
    return f"{relation}:{issue}:{target}"


def parse_key(key: str) -> Link | None:
    relation, _, rest = key.partition(":")
    issue, _, target = rest.partition(":")
    if relation not in ("blocked_by", "sub_issue"):
        return None
    try:
        return (relation, parse_issue(issue), parse_issue(target))  # type: ignore[return-value]
    except ValueError:
        return None


class RecordComment(NamedTuple):
    """A program's record as GitHub holds it: the latest of the bot's comments with its marker."""

    id: int
    issue: IssueKey
    body: str
    links: frozenset[Link]


class LinksRecord(NamedTuple):
    """The links kept for one program after this run, those its last record kept that are gone,
    those it adds, and the comment to edit (None: post one, as there is none on the umbrella)."""

    program: str
    umbrella: IssueKey
    kept: tuple[Link, ...]
    dropped: tuple[Link, ...]
    added: tuple[Link, ...] = ()
    comment: RecordComment | None = None


@dataclass
class LinkPlan:
    actions: list[LinkAction] = field(default_factory=list)
    notes: list[NativeNote] = field(default_factory=list)
    restored: dict[IssueKey, list[Link]] = field(default_factory=dict)
    records: list[LinksRecord] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    # Why each wanted link is wanted: (packet, the packet it waits on, or "" for a sub-issue).
    why: dict[Link, list[tuple[str, str]]] = field(default_factory=dict)


def record_comments(observed: Observed) -> dict[tuple[str, IssueKey], RecordComment]:
    """The latest of the bot's record comments for each program on each issue it is on."""
    latest: dict[tuple[str, IssueKey], RecordComment] = {}
    for comment in observed.bot_comments():
        found = markers_in(comment.body)
        programs = [key for topic, key in found if topic == RECORD_TOPIC]
        where = (programs[0], comment.issue) if programs else None
        if where is None or (where in latest and comment.id < latest[where].id):
            continue
        links = frozenset(link for topic, key in found if topic == LINK_TOPIC and (link := parse_key(key)))
        latest[where] = RecordComment(comment.id, comment.issue, comment.body, links)
    return latest


def newest(records: Mapping[tuple[str, IssueKey], RecordComment]) -> dict[str, RecordComment]:
    """Each program's record: the newest of its comments, wherever its umbrella was."""
    found: dict[str, RecordComment] = {}
    for (program, _), record in records.items():
        if program not in found or record.id > found[program].id:
            found[program] = record
    return found


def recorded(observed: Observed) -> dict[str, frozenset[Link]]:
    """Each program's kept links, from its record."""
    return {program: record.links for program, record in newest(record_comments(observed)).items()}


class _Wanted:
    """The links the next snapshot implies, in snapshot order, each under the program that records it."""

    def __init__(self) -> None:
        self.program: dict[Link, str] = {}
        self.why: dict[Link, list[tuple[str, str]]] = {}
        self.blocked: dict[IssueKey, set[IssueKey]] = {}

    def add(self, link: Link, program: str, reason: tuple[str, str]) -> None:
        self.program.setdefault(link, program)
        self.why.setdefault(link, []).append(reason)
        if link[0] == "blocked_by":
            self.blocked.setdefault(link[1], set()).add(link[2])

    def closes_cycle(self, issue: IssueKey, target: IssueKey) -> bool:
        """Whether `issue` blocked by `target` closes a loop: `target` already waits on `issue`."""
        seen, stack = set(), [target]
        while stack:
            current = stack.pop()
            if current == issue:
                return True
            if current not in seen:
                seen.add(current)
                stack += self.blocked.get(current, ())
        return False


def _blocked_by(
    following: Snapshot, issues: Mapping[IssueKey, Issue], wanted: _Wanted, notes: list[NativeNote]
) -> None:
    issue_of = {p.id: p.issue for p in following.work_packets}
    for packet in following.work_packets:
        if packet.state == "complete" or packet.issue not in issues:
            continue
        for dep in (*packet.hard_dependency_ids, *packet.blocked_by_ids):
            target = issue_of.get(dep)
            if target is None or target == packet.issue or target not in issues:
                continue
            link: Link = ("blocked_by", packet.issue, target)
            if link not in wanted.program and wanted.closes_cycle(packet.issue, target):
                note = NativeNote(kind="cycle", issue=packet.issue, packet=packet.id, other=target)
                if not any(n.kind == "cycle" and (n.issue, n.other) == (note.issue, note.other) for n in notes):
                    notes.append(note)
                continue
            wanted.add(link, packet.program_id, (packet.id, dep))


def _sub_issues(
    following: Snapshot,
    issues: Mapping[IssueKey, Issue],
    owned: frozenset[Link],
    wanted: _Wanted,
    notes: list[NativeNote],
) -> None:
    parent_of: dict[IssueKey, IssueKey] = {}
    packets_of: dict[str, list[WorkPacket]] = {}  # in the snapshot's order, grouped once
    for packet in following.work_packets:
        packets_of.setdefault(packet.program_id, []).append(packet)
    for program in following.programs:
        umbrella = program.authority_issue
        if umbrella not in issues:
            continue
        for packet in packets_of.get(program.id, ()):
            child = issues.get(packet.issue)
            if child is None:
                continue
            if child.key == umbrella:
                notes.append(NativeNote(kind="umbrella", issue=umbrella, packet=packet.id))
                continue
            other = parent_of.get(child.key)
            # A parent perfbot set and no longer wants gives way; a person's does not.
            persons = child.parent not in (None, umbrella) and ("sub_issue", child.key, child.parent) not in owned
            if other is None and persons:
                other = child.parent
            if other is not None and other != umbrella:
                notes.append(NativeNote(kind="other-parent", issue=child.key, packet=packet.id, other=other))
                continue
            parent_of[child.key] = umbrella
            wanted.add(("sub_issue", child.key, umbrella), program.id, (packet.id, ""))


def implied(snapshot: Snapshot) -> set[Link]:
    """Every link a snapshot implies, satisfied dependencies and complete packets included."""
    issue_of = {p.id: p.issue for p in snapshot.work_packets}
    umbrella = {program.id: program.authority_issue for program in snapshot.programs}
    found: set[Link] = set()
    for packet in snapshot.work_packets:
        for dep in (*packet.hard_dependency_ids, *packet.satisfied_dependency_ids, *packet.blocked_by_ids):
            if issue_of.get(dep, packet.issue) != packet.issue:
                found.add(("blocked_by", packet.issue, issue_of[dep]))
        if umbrella.get(packet.program_id, packet.issue) != packet.issue:
            found.add(("sub_issue", packet.issue, umbrella[packet.program_id]))
    return found


def _present(issues: Mapping[IssueKey, Issue]) -> set[Link]:
    found: set[Link] = {("blocked_by", i.key, b) for i in issues.values() for b in i.blocked_by}
    return found | {("sub_issue", i.key, i.parent) for i in issues.values() if i.parent is not None}


def plan_links(base: Snapshot, following: Snapshot, observed: Observed, settings: LinkSettings) -> LinkPlan:
    """The link writes that bring GitHub in line with `following`, the records and the proposals;
    `base` is the default branch's snapshot."""
    found = LinkPlan()
    if not (settings.blocked_by or settings.sub_issues):
        return found
    if observed.links_unavailable:
        found.notes.append(NativeNote(kind="unavailable", detail=observed.links_unavailable))
        return found
    issues = observed.issues_by_number()
    comments = record_comments(observed)
    # Each program's record: the one on its umbrella, else (the umbrella moved) its newest.
    umbrella = {program.id: program.authority_issue for program in following.programs}
    previous = {
        program: comments.get((program, umbrella.get(program, 0)), record)
        for program, record in newest(comments).items()
    }
    # Links perfbot set (its records say so); it also owns every link the snapshot implies.
    was_set = frozenset(link for record in previous.values() for link in record.links)
    owned = was_set | implied(base) | implied(following)
    wanted = _Wanted()
    if settings.blocked_by:
        _blocked_by(following, issues, wanted, found.notes)
    if settings.sub_issues:
        _sub_issues(following, issues, owned, wanted, found.notes)
    present = _present(issues)
    removed = sorted((link for link in present - wanted.program.keys() if link in owned), key=_removal_order)
    added = [link for link in wanted.program if link not in present]
    added = _within_sub_issue_limit(added, removed, issues, wanted, found.notes)
    found.actions = [LinkAction(relation=r, issue=i, target=t, add=False) for r, i, t in removed]
    found.actions += [LinkAction(relation=r, issue=i, target=t, add=True) for r, i, t in added]
    for link in added:
        if link in was_set:  # taken off by hand after perfbot set it: say why it is back
            found.restored.setdefault(link[1], []).append(link)
    found.why = wanted.why
    found.records = _records(following, issues, comments, previous, wanted)
    if settings.blocked_by:
        people = sorted(
            (link for link in present - wanted.program.keys() - owned if link[0] == "blocked_by"), key=link_order
        )
        found.proposals = _proposals(following, people)
    return found


def _within_sub_issue_limit(
    added: list[Link], removed: list[Link], issues: Mapping[IssueKey, Issue], wanted: _Wanted, notes: list[NativeNote]
) -> list[Link]:
    """The links to add, but no sub-issue past GitHub's 100 per parent: those left out are one note
    per parent (every run would otherwise get a 422 for each of them), and no record claims them."""
    held: dict[IssueKey, set[IssueKey]] = {}
    for issue in issues.values():
        if issue.parent is not None:
            held.setdefault(issue.parent, set()).add(issue.key)
        held.setdefault(issue.key, set()).update(issue.sub_issues)
    for _, child, parent in (link for link in removed if link[0] == "sub_issue"):
        held.get(parent, set()).discard(child)
    kept: list[Link] = []
    over: dict[IssueKey, list[Link]] = {}
    for link in added:
        relation, child, parent = link
        children = held.setdefault(parent, set())
        if relation == "sub_issue" and len(children) >= SUB_ISSUE_LIMIT:
            over.setdefault(parent, []).append(link)
            del wanted.program[link]
            continue
        children.add(child)
        kept.append(link)
    for parent, left in over.items():
        first = wanted.why.get(left[0], [("", "")])[0][0]
        notes.append(NativeNote(kind="sub-issue-cap", issue=parent, packet=first, other=len(left)))
    return kept


def link_order(link: Link) -> tuple[str, tuple[str, int], tuple[str, int]]:
    """Links in a stable order: this repository's issues first, by number (as they always were)."""
    return (link[0], issue_order(link[1]), issue_order(link[2]))


def _removal_order(link: Link) -> tuple[int, tuple[str, tuple[str, int], tuple[str, int]]]:
    # A sub-issue leaves its old parent before it is given its new one.
    return (0 if link[0] == "sub_issue" else 1, link_order(link))


def _records(
    following: Snapshot,
    issues: Mapping[IssueKey, Issue],
    comments: Mapping[tuple[str, IssueKey], RecordComment],
    previous: Mapping[str, RecordComment],
    wanted: _Wanted,
) -> list[LinksRecord]:
    """A record for each program whose kept links differ from what its record says: the
    program's comment on its umbrella to edit, or none (deleted, or never on this umbrella), and
    one is posted."""
    records = []
    links_of: dict[str, list[Link]] = {}  # in the order they were wanted, grouped once
    for link, owner in wanted.program.items():
        links_of.setdefault(owner, []).append(link)
    for program in following.programs:
        if program.authority_issue not in issues:
            continue
        kept = tuple(links_of.get(program.id, ()))
        comment = previous.get(program.id)
        before = comment.links if comment is not None else frozenset()
        on_umbrella = comments.get((program.id, program.authority_issue))
        if set(kept) != before and (kept or before):
            dropped = tuple(sorted((link for link in before if link not in wanted.program), key=link_order))
            added = tuple(link for link in kept if link not in before)
            records.append(LinksRecord(program.id, program.authority_issue, kept, dropped, added, on_umbrella))
    return records


def _proposals(following: Snapshot, people: list[Link]) -> list[Proposal]:
    """For each person's link between packet issues: each open packet of the blocked issue, blocked
    by the first open packet of the other."""
    by_issue: dict[IssueKey, list[WorkPacket]] = {}
    for packet in following.work_packets:
        if packet.state != "complete":
            by_issue.setdefault(packet.issue, []).append(packet)
    proposals = []
    for _, issue, target in people:
        blockers = sorted(by_issue.get(target, []), key=lambda p: p.program_order)
        if not blockers:
            continue
        blocker = blockers[0]
        for packet in by_issue.get(issue, []):
            known = (*packet.hard_dependency_ids, *packet.blocked_by_ids, *packet.satisfied_dependency_ids)
            if blocker.id not in known:
                proposals.append(Proposal(packet=packet.id, blocker=blocker.id, issue=issue, target=target))
    return proposals


def with_proposals(snapshot: Snapshot, proposals: list[Proposal]) -> Snapshot:
    """The snapshot with each proposed blocker added to its packet's `blocked_by_ids`."""
    if not proposals:
        return snapshot
    extra: dict[str, list[str]] = {}
    known = {
        p.id: {*p.hard_dependency_ids, *p.blocked_by_ids, *p.satisfied_dependency_ids} for p in snapshot.work_packets
    }
    for proposal in proposals:
        # A blocker the snapshot names already (a command of this run added it) is not added twice.
        if proposal.blocker not in known.get(proposal.packet, {proposal.blocker}):
            extra.setdefault(proposal.packet, []).append(proposal.blocker)
    packets = tuple(
        p.model_copy(update={"blocked_by_ids": (*p.blocked_by_ids, *extra[p.id])}) if p.id in extra else p
        for p in snapshot.work_packets
    )
    return snapshot.model_copy(update={"work_packets": packets})


CauseKind = Literal["dependency-met", "lease-released", "packet-complete", "moved", "not-implied", "not-kept"]


class Cause(NamedTuple):
    """Why a link went: its kind, the packet it was kept for, and the packet (or program) it named."""

    kind: CauseKind
    packet: str = ""
    other: str = ""


def cause_of(link: Link, base: Snapshot, following: Snapshot) -> Cause:
    relation, issue, target = link
    if relation == "blocked_by":
        return _blocked_by_cause(issue, target, base, following)
    return _sub_issue_cause(issue, target, following)


def _blocked_by_cause(issue: IssueKey, target: IssueKey, base: Snapshot, following: Snapshot) -> Cause:
    """The first cause the evidence gives among the packets of `issue` that waited on `target`."""
    on_target = {p.id for p in base.work_packets if p.issue == target}
    after = {p.id: p for p in following.work_packets}
    causes = [
        _one(packet, dep, after.get(packet.id))
        for packet in base.work_packets
        if packet.issue == issue
        for dep in _deps(packet)
        if dep in on_target
    ]
    return next((c for c in causes if c.kind != "not-kept"), causes[0] if causes else Cause("not-implied"))


def _deps(packet: WorkPacket) -> tuple[str, ...]:
    return (*packet.hard_dependency_ids, *packet.blocked_by_ids, *packet.satisfied_dependency_ids)


def _one(packet: WorkPacket, dep: str, now: WorkPacket | None) -> Cause:
    if now is None:
        return Cause("not-implied", packet.id, dep)
    if now.state == "complete":
        return Cause("packet-complete", packet.id, dep)
    if dep in now.satisfied_dependency_ids:
        return Cause("dependency-met", packet.id, dep)
    if dep in packet.blocked_by_ids and dep not in now.blocked_by_ids:
        return Cause("lease-released", packet.id, dep)
    if dep not in (*now.hard_dependency_ids, *now.blocked_by_ids):
        return Cause("not-implied", packet.id, dep)
    return Cause("not-kept", packet.id, dep)


def _sub_issue_cause(child: IssueKey, umbrella: IssueKey, following: Snapshot) -> Cause:
    umbrellas = {program.id: program.authority_issue for program in following.programs}
    packets = [p for p in following.work_packets if p.issue == child]
    if not packets:
        return Cause("not-implied")
    if all(umbrellas.get(p.program_id) != umbrella for p in packets):
        return Cause("moved", packets[0].id, packets[0].program_id)
    return Cause("not-kept", packets[0].id)


RESTORED_TOPIC = "native-restored"


# Each switch of labels and links in the config, as `docs/reference.md` names it.
SWITCHES = ("labels.enabled", "links.blocked_by", "links.sub_issues")


@dataclass
class NativePlan:
    actions: list[Action] = field(default_factory=list)
    notes: list[NativeNote] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    # For each switch that is off: how many more writes this run would plan with it on.
    costs: dict[str, int] = field(default_factory=dict)


def plan_native(
    base: Snapshot,
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
) -> NativePlan:
    """`base` is the default branch's snapshot, `following` the one labels and links show (the
    merged state: `base` with its derived states written in) and `derivations` its packets'.
    For each switch that is off, the plan says what turning it on would cost in writes."""
    found = _planned(base, following, derivations, observed, config, renderer)
    for switch in SWITCHES:
        if not _is_on(config, switch):
            with_it = _planned(base, following, derivations, observed, _switched_on(config, switch), renderer)
            found.costs[switch] = max(0, len(with_it.actions) - len(found.actions))
    return found


def _is_on(config: BotConfig, switch: str) -> bool:
    section, _, key = switch.partition(".")
    return bool(getattr(getattr(config, section), key))


def _switched_on(config: BotConfig, switch: str) -> BotConfig:
    section, _, key = switch.partition(".")
    settings = getattr(config, section)
    return config.model_copy(update={section: settings.model_copy(update={key: True})})


def _planned(
    base: Snapshot,
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
) -> NativePlan:
    labels = plan_labels(following, derivations, observed, config.labels, config.pull_leases is not None)
    links = plan_links(base, following, observed, config.links)
    found = NativePlan(notes=links.notes, proposals=links.proposals)
    found.actions += _restored(following, derivations, observed, labels, links, config, renderer)
    found.actions += [*labels.actions, *links.actions]
    limit = config.commands.max_body_chars
    for record in links.records:
        written = _record(record, base, following, links, renderer, limit)
        if written is not None:
            found.actions.append(written)
    return found


def _restored(
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    labels: LabelPlan,
    links: LinkPlan,
    config: BotConfig,
    renderer: Renderer,
) -> list[CommentAction]:
    """One comment per issue on which perfbot puts back what a person took off, with a marker for
    each thing put back (a label by the removal it undoes, a link by its key); what an earlier
    comment names already is not said again."""
    said, prefix = markers_of(observed.bot_comments()), config.labels.prefix
    states = {d.id: d.derived_state for d in derivations}
    comments = []
    for issue in sorted_issues({*labels.restored, *links.restored}):
        names, restored_links, keys = _unsaid(issue, labels, links, said)
        if not keys:
            continue
        label_packets = {
            name: [p for p in following.work_packets if p.issue == issue and name == prefix + states[p.id]]
            for name in names
        }
        body = renderer.render(
            TOPICS["native-restored"].template,
            marker=header(*((RESTORED_TOPIC, key) for key in keys)),
            labels=label_packets,
            removals={name: labels.removals[(issue, name)] for name in names},
            links=[(link, links.why.get(link, [])) for link in restored_links],
            states=states,
        )
        body = capped(body, config.commands.max_body_chars, renderer)
        comments.append(CommentAction(issue=issue, topic="native-restored", body=body))
    return comments


def _unsaid(
    issue: IssueKey, labels: LabelPlan, links: LinkPlan, said: frozenset[tuple[str, str]]
) -> tuple[list[str], list[Link], list[str]]:
    """The labels and links put back on `issue` that no comment of the bot names yet, and their keys."""
    stamp = {name: labels.removals[(issue, name)].created_at.isoformat() for name in labels.restored.get(issue, [])}
    names = [name for name in stamp if (RESTORED_TOPIC, _label_key(issue, name, stamp[name])) not in said]
    found = [link for link in links.restored.get(issue, []) if (RESTORED_TOPIC, _link_key(issue, link)) not in said]
    keys = [*(_label_key(issue, name, stamp[name]) for name in names), *(_link_key(issue, link) for link in found)]
    return names, found, keys


def _record(
    record: LinksRecord, base: Snapshot, following: Snapshot, links: LinkPlan, renderer: Renderer, limit: int
) -> CommentAction | EditCommentAction | None:
    """The record's living comment: edited when it holds other text, posted when there is none on
    the umbrella, left alone when it says this already. Its header lists every kept link (what
    the next run reads); the text may be cut."""
    markers = [(RECORD_TOPIC, record.program), *((LINK_TOPIC, link_key(link)) for link in record.kept)]
    program = next(p for p in following.programs if p.id == record.program)
    body = renderer.render(
        TOPICS["native-links"].template,
        header=header(*markers),
        program=program,
        kept=[(link, links.why.get(link, [])) for link in record.kept],
        added=record.added,
        dropped=[(link, cause_of(link, base, following)) for link in record.dropped],
    )
    body = capped(body, limit, renderer)
    if record.comment is None:
        return CommentAction(issue=record.umbrella, topic="native-links", body=body)
    if record.comment.body == body:
        return None
    return EditCommentAction(issue=record.umbrella, comment_id=record.comment.id, topic="native-links", body=body)


def _label_key(issue: IssueKey, name: str, removed_at: str) -> str:
    return f"{issue}:label:{name}:{removed_at}"


def _link_key(issue: IssueKey, link: Link) -> str:
    return f"{issue}:link:{link_key(link)}"
