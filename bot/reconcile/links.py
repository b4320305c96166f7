"""Native links: GitHub's "blocked by" dependencies and sub-issues, kept in line with the snapshot. Pure.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.config import LinkSettings
from bot.github.actions import LinkAction, LinkRelation, NativeNote, Proposal
from bot.github.markers import markers_in
from bot.github.observed import Issue, Observed
from bot.snapshot.model import Snapshot, WorkPacket

# GitHub: "You can add up to 100 sub-issues per parent issue" (docs.github.com, "Adding
# sub-issues"); the REST endpoint refuses one more with a 422.
SUB_ISSUE_LIMIT = 100
RECORD_TOPIC = "native-links"
LINK_TOPIC = "native-link"
# A record is one living comment, edited whenever its list changes; a repository may still hold
# the older records that earlier versions posted anew on each change (the latest counts): these
# markers on an earlier comment never mean that another run wrote this one.
REPOSTED_TOPICS = frozenset({RECORD_TOPIC, LINK_TOPIC})

Link = tuple[LinkRelation, int, int]


def link_key(link: Link) -> str:
    relation, issue, target = link
    return f"{relation}:{issue}:{target}"


def parse_key(key: str) -> Link | None:
    relation, _, rest = key.partition(":")
    issue, _, target = rest.partition(":")
    if relation not in ("blocked_by", "sub_issue") or not issue.isdigit() or not target.isdigit():
        return None
    return (relation, int(issue), int(target))  # type: ignore[return-value]


class RecordComment(NamedTuple):
    """A program's record as GitHub holds it: the latest of the bot's comments with its marker."""

    id: int
    issue: int
    body: str
    links: frozenset[Link]


class Record(NamedTuple):
    """The links kept for one program after this run, those its last record kept that are gone,
    those it adds, and the comment to edit (None: post one, as there is none on the umbrella)."""

    program: str
    umbrella: int
    kept: tuple[Link, ...]
    dropped: tuple[Link, ...]
    added: tuple[Link, ...] = ()
    comment: RecordComment | None = None


@dataclass
class LinkPlan:
    actions: list[LinkAction] = field(default_factory=list)
    notes: list[NativeNote] = field(default_factory=list)
    restored: dict[int, list[Link]] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    # Why each wanted link is wanted: (packet, the packet it waits on, or "" for a sub-issue).
    why: dict[Link, list[tuple[str, str]]] = field(default_factory=dict)


def record_comments(observed: Observed) -> dict[tuple[str, int], RecordComment]:
    """The latest of the bot's record comments for each program on each issue it is on."""
    latest: dict[tuple[str, int], RecordComment] = {}
    for comment in observed.bot_comments():
        found = markers_in(comment.body)
        programs = [key for topic, key in found if topic == RECORD_TOPIC]
        where = (programs[0], comment.issue) if programs else None
        if where is None or (where in latest and comment.id < latest[where].id):
            continue
        links = frozenset(link for topic, key in found if topic == LINK_TOPIC and (link := parse_key(key)))
        latest[where] = RecordComment(comment.id, comment.issue, comment.body, links)
    return latest


def newest(records: Mapping[tuple[str, int], RecordComment]) -> dict[str, RecordComment]:
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
        self.blocked: dict[int, set[int]] = {}

    def add(self, link: Link, program: str, reason: tuple[str, str]) -> None:
        self.program.setdefault(link, program)
        self.why.setdefault(link, []).append(reason)
        if link[0] == "blocked_by":
            self.blocked.setdefault(link[1], set()).add(link[2])

    def closes_cycle(self, issue: int, target: int) -> bool:
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


def _blocked_by(following: Snapshot, issues: Mapping[int, Issue], wanted: _Wanted, notes: list[NativeNote]) -> None:
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
    issues: Mapping[int, Issue],
    owned: frozenset[Link],
    wanted: _Wanted,
    notes: list[NativeNote],
) -> None:
    parent_of: dict[int, int] = {}
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
            if child.number == umbrella:
                notes.append(NativeNote(kind="umbrella", issue=umbrella, packet=packet.id))
                continue
            other = parent_of.get(child.number)
            # A parent perfbot set and no longer wants gives way; a person's does not.
            persons = child.parent not in (None, umbrella) and ("sub_issue", child.number, child.parent) not in owned
            if other is None and persons:
                other = child.parent
            if other is not None and other != umbrella:
                notes.append(NativeNote(kind="other-parent", issue=child.number, packet=packet.id, other=other))
                continue
            parent_of[child.number] = umbrella
            wanted.add(("sub_issue", child.number, umbrella), program.id, (packet.id, ""))


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


def _present(issues: Mapping[int, Issue]) -> set[Link]:
    found: set[Link] = {("blocked_by", i.number, b) for i in issues.values() for b in i.blocked_by}
    return found | {("sub_issue", i.number, i.parent) for i in issues.values() if i.parent is not None}


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
        people = sorted(link for link in present - wanted.program.keys() - owned if link[0] == "blocked_by")
        found.proposals = _proposals(following, people)
    return found


def _within_sub_issue_limit(
    added: list[Link], removed: list[Link], issues: Mapping[int, Issue], wanted: _Wanted, notes: list[NativeNote]
) -> list[Link]:
    """The links to add, but no sub-issue past GitHub's 100 per parent: those left out are one note
    per parent (every run would otherwise get a 422 for each of them), and no record claims them."""
    held: dict[int, set[int]] = {}
    for issue in issues.values():
        if issue.parent is not None:
            held.setdefault(issue.parent, set()).add(issue.number)
        held.setdefault(issue.number, set()).update(issue.sub_issues)
    for _, child, parent in (link for link in removed if link[0] == "sub_issue"):
        held.get(parent, set()).discard(child)
    kept: list[Link] = []
    over: dict[int, list[Link]] = {}
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


def _removal_order(link: Link) -> tuple[int, Link]:
    # A sub-issue leaves its old parent before it is given its new one.
    return (0 if link[0] == "sub_issue" else 1, link)


def _records(
    following: Snapshot,
    issues: Mapping[int, Issue],
    comments: Mapping[tuple[str, int], RecordComment],
    previous: Mapping[str, RecordComment],
    wanted: _Wanted,
) -> list[Record]:
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
            dropped = tuple(sorted(link for link in before if link not in wanted.program))
            added = tuple(link for link in kept if link not in before)
            records.append(Record(program.id, program.authority_issue, kept, dropped, added, on_umbrella))
    return records


def _proposals(following: Snapshot, people: list[Link]) -> list[Proposal]:
    """For each person's link between packet issues: each open packet of the blocked issue, blocked
    by the first open packet of the other."""
    by_issue: dict[int, list[WorkPacket]] = {}
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
