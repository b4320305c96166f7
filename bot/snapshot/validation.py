"""Every snapshot invariant: upstream's rules 1–27 (`upstream_rules`) and perfbot's own (here).

Unlike upstream, which stops at the first failure, every problem is reported; each finding
carries the key path of the offending value so the store can name its line and column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter, is_not
from typing import Any, cast

from bot.issue_refs import ForeignIssue, IssueKey, first_issue, not_a_number
from bot.snapshot.cells import table_cells
from bot.snapshot.fields import EachRecord, Finding
from bot.snapshot.levers import find_cycle, graph_findings, ready_by_envelope, ready_levers
from bot.snapshot.model import LedgerEntry, Lever, Snapshot
from bot.snapshot.upstream_rules import UPSTREAM_CHECKS, blank

_LEDGER_KEY = attrgetter("comment_id", "line")  # `LedgerEntry.key`, read in C


def validate(snapshot: Snapshot, clean: Snapshot | None = None) -> list[Finding]:
    """All findings, upstream parity checks first, then perfbot's additions.

    `clean` is a snapshot with no finding that `snapshot` was made from. A frozen snapshot's copy
    shares every field it does not change with the original (the same object), so a check none of
    whose reads (`CHECKS`) changed from `clean` would find there what it found in `clean`,
    nothing, and is passed over: a run applying a thousand commands checks what each one changed
    rather than the whole snapshot a thousand times. A check that reads only some attributes of a
    list's records (`constraints.id`) is passed over while those are equal, record by record, to
    `clean`'s: a new review date changes no constraint id. The table-cell check, the one that
    reads every text, passes over the records of `clean` in the same way (`cells.table_cells`)."""
    findings: list[Finding] = []
    changed = _Changes(snapshot, clean) if clean is not None else None
    for entry in CHECKS:
        if isinstance(entry, EachRecord):
            findings.extend(_each_record(entry, snapshot, changed))
            continue
        check, reads = entry
        if changed is not None and not any(map(changed.differs, reads)):
            continue
        findings.extend(check(cast(Snapshot, _Fields(snapshot, reads))))
    return findings + list(table_cells(snapshot, clean))


def _each_record(entry: EachRecord, snapshot: Snapshot, changed: _Changes | None) -> list[Finding]:
    """A check made one record at a time: every record, or, after a change that left what the
    check's context reads as it was, the records the change made (the others' findings are
    `clean`'s: none)."""
    if changed is not None and not any(map(changed.differs, entry.reads)):
        return []
    view = _Fields(snapshot, entry.reads)
    records = getattr(view, entry.field)
    context = entry.prepare(view)
    indices: Iterable[int] = range(len(records))
    if changed is not None and not any(map(changed.differs, entry.context)):
        indices = changed.made(entry.field)
    return [finding for i in indices for finding in entry.record(view, context, i, records[i])]


class _Changes:
    """Which reads of a snapshot differ from a clean one's, each told once per validation."""

    def __init__(self, snapshot: Snapshot, clean: Snapshot) -> None:
        self._snapshot, self._clean = snapshot, clean
        self._told: dict[str, bool] = {}

    def differs(self, read: str) -> bool:
        told = self._told.get(read)
        if told is None:
            told = self._told[read] = self._differs(read)
        return told

    def made(self, field: str) -> list[int]:
        """The places of the records of `field` that are not `clean`'s records there. Asked only
        when the check's context, which names an attribute of those records, is unchanged: the
        two lists are as long."""
        now, before = getattr(self._snapshot, field), getattr(self._clean, field)
        return [i for i, moved in enumerate(map(is_not, now, before)) if moved]

    def _differs(self, read: str) -> bool:
        field, _, attribute = read.partition(".")
        now, before = getattr(self._snapshot, field), getattr(self._clean, field)
        if now is before:
            return False
        if not attribute:
            return True
        return len(now) != len(before) or any(
            a is not b and getattr(a, attribute) != getattr(b, attribute) for a, b in zip(now, before, strict=True)
        )


class _Fields:
    """A snapshot as one check sees it: only the fields the check declares it reads, and of a
    field declared by attributes (`constraints.id`), records that show only those. Reading any
    other is an error in every run, so a declaration cannot leave out what the check must see
    changed (which would let `validate` pass the check over when that changed)."""

    __slots__ = ("_names", "_parts", "_snapshot")

    def __init__(self, snapshot: Snapshot, names: frozenset[str]) -> None:
        self._snapshot = snapshot
        self._names = names
        parts: dict[str, set[str]] = {}
        for read in names:
            field, _, attribute = read.partition(".")
            if attribute:
                parts.setdefault(field, set()).add(attribute)
        self._parts = parts

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            return getattr(self._snapshot, name)
        if name in self._parts:
            return tuple(_Record(record, name, self._parts[name]) for record in getattr(self._snapshot, name))
        raise AttributeError(f"a snapshot check reads {name!r} but does not declare it (validation.CHECKS)")


class _Record:
    """A record of a field a check declares by attributes: only those can be read."""

    __slots__ = ("_attributes", "_field", "_record")

    def __init__(self, record: object, field: str, attributes: set[str]) -> None:
        self._record, self._field, self._attributes = record, field, attributes

    def __getattr__(self, name: str) -> Any:
        if name in self._attributes:
            return getattr(self._record, name)
        raise AttributeError(
            f"a snapshot check reads {self._field}.{name!r} but does not declare it (validation.CHECKS)"
        )


def review_issue(constraint_review_issue: IssueKey | None, authority_owner: str) -> IssueKey | None:
    """The issue a constraint's review nudge goes to: explicit, else the first issue reference of its
    owner (`#N`, `owner/repo#N` or an issue URL)."""
    if constraint_review_issue is not None:
        return constraint_review_issue
    return first_issue(authority_owner)


def _issue_fields(s: Snapshot) -> Iterator[tuple[tuple[str | int, ...], IssueKey]]:
    """Every issue the snapshot names, at its place: the review issue of a constraint without
    `review_issue` is the first reference of its `authority_owner`."""
    for i, c in enumerate(s.constraints):
        field = "review_issue" if c.review_issue is not None else "authority_owner"
        if (issue := review_issue(c.review_issue, c.authority_owner)) is not None:
            yield ("constraints", i, field), issue
    for i, p in enumerate(s.programs):
        yield ("programs", i, "authority_issue"), p.authority_issue
    for i, w in enumerate(s.work_packets):
        yield ("work_packets", i, "issue"), w.issue
        yield from ((("work_packets", i, "related_issues", j), n) for j, n in enumerate(w.related_issues))
    for i, e in enumerate(s.ledger):
        yield ("ledger", i, "issue"), e.issue


def own_repository_findings(snapshot: Snapshot, repository: str) -> list[Finding]:
    """Issues of the bot's own repository written as another's (`owner/repo#N`, its URL). perfbot
    keys this repository's issues by number, as its comments, labels and page name them; the same
    issue under two names would be read, nudged and labelled twice, so the run asks for `#N`."""
    return [
        Finding(loc, f"{loc[2]}: {issue} is an issue of this repository ({repository}): write it #{issue.number}")
        for loc, issue in _issue_fields(snapshot)
        if isinstance(issue, ForeignIssue) and issue.key == repository.casefold()
    ]


def unrouted_reviews(snapshot: Snapshot) -> tuple[str, ...]:
    """The constraints whose review nudge has nowhere to go: no `review_issue`, no `#N` in the owner."""
    return tuple(c.id for c in snapshot.constraints if review_issue(c.review_issue, c.authority_owner) is None)


def _cycles(s: Snapshot) -> Iterator[Finding]:
    cycle = find_cycle({w.id: w.hard_dependency_ids for w in s.work_packets})
    if cycle:
        index = next(i for i, w in enumerate(s.work_packets) if w.id == cycle[0])
        yield Finding(
            ("work_packets", index, "hard_dependency_ids"), "work packet dependency cycle: " + " -> ".join(cycle)
        )


def _collisions(s: Snapshot) -> Iterator[Finding]:
    known = {w.id for w in s.work_packets} | {lever.id for lever in s.levers}
    seen: set[str] = set()
    for i, col in enumerate(s.collisions):
        if blank(col.id) or col.id in seen:
            yield Finding(("collisions", i, "id"), f'collision "{col.id}" has an empty or duplicate id')
        seen.add(col.id)
        for j, member in enumerate(col.members):
            if member not in known:
                yield Finding(
                    ("collisions", i, "members", j), f'collision "{col.id}" names unknown packet or lever "{member}"'
                )


def _ready_arms(s: Snapshot) -> Iterator[Finding]:
    """Ready arms are derived from the levers; hand-kept lists must agree with them."""
    derived = _ready_of(s.levers)
    if derived is None:
        return
    ready, grouped = derived
    for i, c in enumerate(s.constraints):
        for j, lever in enumerate(c.ready_lever_ids):
            if lever not in ready:
                yield Finding(
                    ("constraints", i, "ready_lever_ids", j),
                    f'constraint "{c.id}" lists "{lever}", which is not a dependency-ready lever',
                )
    for i, col in enumerate(s.collisions):
        if col.kind != "shared-envelope":
            continue
        members = set(col.members)
        if members not in grouped.values():
            yield Finding(
                ("collisions", i, "members"),
                f'shared-envelope collision "{col.id}" must list exactly the ready levers of one envelope',
            )
    for i, wave in enumerate(s.ready_waves):
        expected = grouped.get(wave.envelope_id)
        if expected is not None and set(wave.ready_lever_ids) != expected:
            yield Finding(
                ("ready_waves", i, "ready_lever_ids"),
                f'current ready wave "{wave.id}" must list every ready lever of envelope "{wave.envelope_id}"',
            )


def _ready_of(levers: tuple[Lever, ...]) -> tuple[frozenset[str], dict[str, frozenset[str]]] | None:
    """The dependency-ready levers, and those of each envelope; None when the lever graph has findings."""
    if any(True for _ in graph_findings(levers)):
        return None
    grouped = {envelope: frozenset(ids) for envelope, ids in ready_by_envelope(levers).items()}
    return frozenset(ready_levers(levers)), grouped


def _program_orders(s: Snapshot) -> Iterator[Finding]:
    seen: set[tuple[str, int]] = set()
    for i, w in enumerate(s.work_packets):
        key = (w.program_id, w.program_order)
        if w.program_order < 0 or (w.program_order and key in seen):
            yield Finding(
                ("work_packets", i, "program_order"),
                f'work packet "{w.id}" repeats program_order {w.program_order} in program "{w.program_id}"',
            )
        seen.add(key)


def _review_issues(s: Snapshot) -> Iterator[Finding]:
    for i, c in enumerate(s.constraints):
        if c.review_issue is not None and not_a_number(c.review_issue):
            yield Finding(("constraints", i, "review_issue"), f'constraint "{c.id}" review_issue must be > 0')


def _records(s: Snapshot) -> Iterator[Finding]:
    live = {c.id for c in s.constraints}
    retired: set[str] = set()
    for i, r in enumerate(s.retired_constraints):
        if r.id in live or r.id in retired:
            yield Finding(
                ("retired_constraints", i, "id"), f'retired constraint "{r.id}" is duplicate or still current'
            )
        retired.add(r.id)
    if _distinct_keys(s.ledger):
        return  # the usual case: validated after each command, the ledger only grows
    applied: set[tuple[int, int]] = set()
    for i, entry in enumerate(s.ledger):
        if entry.key in applied:
            yield Finding(
                ("ledger", i, "comment_id"), f"ledger records line {entry.line} of comment {entry.comment_id} twice"
            )
        applied.add(entry.key)


class _LastLedger:
    """The last ledger found with distinct keys, and its keys: a run validates after each command
    a ledger that only grew by one entry, whose keys are then those and the new one's."""

    entries: tuple[LedgerEntry, ...] = ()
    keys: frozenset[tuple[int, int]] = frozenset()


def _distinct_keys(ledger: tuple[LedgerEntry, ...]) -> bool:
    """Whether no two entries record the same line of the same comment (keys read in C)."""
    known = len(_LastLedger.entries)
    if known and len(ledger) >= known and ledger[:known] == _LastLedger.entries:  # equal entries, equal keys
        added = list(map(_LEDGER_KEY, ledger[known:]))
        keys = _LastLedger.keys.union(added)
    else:
        keys = frozenset(map(_LEDGER_KEY, ledger))
    if len(keys) != len(ledger):
        return False
    _LastLedger.entries, _LastLedger.keys = ledger, keys
    return True


Check = Callable[[Snapshot], Iterator[Finding]]
# Each check with what it reads, upstream's first: a field, or one attribute of a field's records
# (`field.attribute`); `_Fields` holds each to its own.
CHECKS: tuple[tuple[Check, frozenset[str]] | EachRecord, ...] = (
    *UPSTREAM_CHECKS,
    (_cycles, frozenset({"work_packets.id", "work_packets.hard_dependency_ids"})),
    (_collisions, frozenset({"work_packets.id", "levers.id", "collisions"})),
    (_ready_arms, frozenset({"levers", "constraints.id", "constraints.ready_lever_ids", "collisions", "ready_waves"})),
    (_program_orders, frozenset({"work_packets.id", "work_packets.program_id", "work_packets.program_order"})),
    (_review_issues, frozenset({"constraints.id", "constraints.review_issue"})),
    (_records, frozenset({"constraints.id", "retired_constraints", "ledger"})),
)
