"""Upstream's snapshot rules 1–27, with upstream's wording, each finding located by its key path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from bot.issue_refs import IssueKey, issue_text, not_a_number, parse_issue
from bot.snapshot.fields import EachRecord, Finding
from bot.snapshot.levers import graph_findings, ready_levers
from bot.snapshot.model import REQUIRED_OSS_STATES, SCHEMA_ID, SCHEMA_ONE, Snapshot, WorkPacket

# The constraint states of schema /1; /2 added `waiting-dependency` and `waiting-coordination`.
SCHEMA_ONE_STATES = frozenset({"ready", "waiting-evidence", "held-correctness", "capacity-bound"})


def blank(text: str) -> bool:
    return not text.strip()


def _identity(s: Snapshot) -> Iterator[Finding]:
    if s.schema_ not in (SCHEMA_ID, SCHEMA_ONE):
        yield Finding(
            ("schema",), f"current snapshot identity is incomplete: schema must be {SCHEMA_ID!r} or {SCHEMA_ONE!r}"
        )
    if blank(s.definition):
        yield Finding(("definition",), "current snapshot identity is incomplete: definition is blank")


def _schema_one(s: Snapshot) -> Iterator[Finding]:
    """Schema /1 has no programs or packets and four constraint states (its page shows no others)."""
    if s.schema_ != SCHEMA_ONE:
        return
    for key in ("programs", "work_packets"):
        if getattr(s, key):
            yield Finding((key,), f"schema {SCHEMA_ONE} has no {key}")
    for i, c in enumerate(s.constraints):
        if c.state not in SCHEMA_ONE_STATES:
            yield Finding(
                ("constraints", i, "state"),
                f'current constraint "{c.id}" is incomplete: state "{c.state}" is not a state of schema /1',
            )


def _constraints(s: Snapshot) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, c in enumerate(s.constraints):
        at = ("constraints", i)
        if c.id in seen:
            yield Finding((*at, "id"), f'duplicate current constraint "{c.id}"')
        seen.add(c.id)
        fields = ("id", "name", "envelope", "driver", "authority_owner", "next_action", "exit_when")
        for field in fields:
            if blank(getattr(c, field)):
                yield Finding((*at, field), f'current constraint "{c.id}" is incomplete: {field} is blank')
        if not c.evidence:
            yield Finding((*at, "evidence"), f'current constraint "{c.id}" is incomplete: no evidence')
        if c.review_by < c.observed_at:
            yield Finding(
                (*at, "review_by"),
                f'current constraint "{c.id}" has invalid observed/review dates: '
                f"review_by {c.review_by} is before observed_at {c.observed_at}",
            )
        elif c.review_by < s.as_of:
            yield Finding(
                (*at, "review_by"),
                f'current constraint "{c.id}" has invalid observed/review dates: '
                f"review_by {c.review_by} is before as_of {s.as_of}",
            )
        for j, e in enumerate(c.evidence):
            missing = [f for f, v in (("class", e.class_), ("summary", e.summary), ("ref", e.ref)) if blank(v)]
            if missing:
                yield Finding(
                    (*at, "evidence", j, missing[0]),
                    f'current constraint "{c.id}" has incomplete evidence: {", ".join(missing)} blank',
                )


def _programs(s: Snapshot) -> Iterator[Finding]:
    constraint_ids = {c.id for c in s.constraints}
    seen: set[str] = set()
    for i, p in enumerate(s.programs):
        at = ("programs", i)
        problems = [
            ("id", "id is empty or duplicate", blank(p.id) or p.id in seen),
            ("name", "name is blank", blank(p.name)),
            ("authority_issue", "authority_issue must be > 0", not_a_number(p.authority_issue)),
            ("constraint_ids", "constraint_ids is empty", not p.constraint_ids),
            ("hero_metric", "hero_metric is blank", blank(p.hero_metric)),
            ("current_result", "current_result is blank", blank(p.current_result)),
            ("sequence_rule", "sequence_rule is blank", blank(p.sequence_rule)),
        ]
        seen.add(p.id)
        for field, why, failed in problems:
            if failed:
                yield Finding((*at, field), f'invalid execution program "{p.id}": {why}')
        for j, cid in enumerate(p.constraint_ids):
            if cid not in constraint_ids:
                yield Finding(
                    (*at, "constraint_ids", j), f'execution program "{p.id}" references unknown constraint "{cid}"'
                )


def _issue_hint(written: str, s: Snapshot) -> str:
    """For a dependency written as an issue (`#N`, `owner/repo#N`, its URL), which packet that is:
    dependencies name packets, whose issues may be in any repository."""
    if written in {w.id for w in s.work_packets}:
        return ""
    try:
        issue = parse_issue(written)
    except ValueError:
        return ""
    on = [f'"{w.id}"' for w in s.work_packets if w.issue == issue]
    if not on:
        return f"; a dependency names a packet id, and no packet is on {issue_text(issue)}"
    return f"; a dependency names a packet id: the packet on {issue_text(issue)} is {' or '.join(on)}"


def _packet_problems(w: WorkPacket, program_ids: set[str]) -> list[tuple[str, str]]:
    """The fields of a packet that are blank, empty or unknown, and why, in the order upstream
    checks them; each reason is worded only for a field that fails (a packet almost never does,
    and a run validates the packets after every command it applies)."""
    problems: list[tuple[str, str]] = []
    if blank(w.name):
        problems.append(("name", "name is blank"))
    if w.program_id not in program_ids:
        problems.append(("program_id", f'unknown program "{w.program_id}"'))
    if not w.constraint_ids:
        problems.append(("constraint_ids", "constraint_ids is empty"))
    if not_a_number(w.issue):
        problems.append(("issue", "issue must be > 0"))
    if blank(w.owner):
        problems.append(("owner", "owner is blank"))
    if blank(w.lane):
        problems.append(("lane", "lane is blank"))
    if not w.paths or any(blank(p) for p in w.paths):
        problems.append(("paths", "paths is empty"))
    if blank(w.exit_when):
        problems.append(("exit_when", "exit_when is blank"))
    return problems


class PacketContext(NamedTuple):
    """What the findings on one packet read of the rest of the snapshot."""

    constraint_ids: set[str]
    program_ids: set[str]
    ids: set[str]
    states: dict[str, str]


def _packet_context(s: Snapshot) -> PacketContext:
    packets = s.work_packets
    return PacketContext(
        {c.id for c in s.constraints},
        {p.id for p in s.programs},
        {w.id for w in packets},
        {w.id: w.state for w in packets},
    )


def _packet_ids(s: Snapshot) -> Iterator[Finding]:
    ids: set[str] = set()
    for i, w in enumerate(s.work_packets):
        if blank(w.id) or w.id in ids:
            yield Finding(("work_packets", i, "id"), f'duplicate or empty work packet "{w.id}"')
        ids.add(w.id)


def _packet(s: Snapshot, context: PacketContext, i: int, w: WorkPacket) -> Iterator[Finding]:
    """The findings on one packet: its fields, and what it names of the rest (`context`)."""
    at = ("work_packets", i)
    for field, why in _packet_problems(w, context.program_ids):
        yield Finding((*at, field), f'invalid work packet "{w.id}": {why}')
    for j, cid in enumerate(w.constraint_ids):
        if cid not in context.constraint_ids:
            yield Finding((*at, "constraint_ids", j), f'work packet "{w.id}" references unknown constraint "{cid}"')
    for field in ("hard_dependency_ids", "blocked_by_ids"):
        for j, dep in enumerate(getattr(w, field)):
            if dep not in context.ids or dep == w.id:
                why = f'work packet "{w.id}" references invalid dependency/blocker "{dep}"'
                yield Finding((*at, field, j), why + _issue_hint(dep, s))
    if w.state == "complete" and blank(w.result):
        yield Finding((*at, "result"), f'work packet "{w.id}" has no accepted result')
    if w.state != "complete" and (blank(w.next_action) or not blank(w.result)):
        field = "result" if not blank(w.result) else "next_action"
        yield Finding((*at, field), f'work packet "{w.id}" needs a next action and no result')
    if w.state_revision < 0:
        yield Finding((*at, "state_revision"), f'work packet "{w.id}" has a negative state_revision')
    seen_related: set[IssueKey] = set()
    for j, n in enumerate(w.related_issues):
        if not_a_number(n) or n == w.issue or n in seen_related:
            yield Finding(
                (*at, "related_issues", j),
                f'work packet "{w.id}" has invalid or duplicate related issue {issue_text(n)}',
            )
        seen_related.add(n)
    for j, dep in enumerate(w.satisfied_dependency_ids):
        if context.states.get(dep) != "complete":
            yield Finding(
                (*at, "satisfied_dependency_ids", j),
                f'work packet "{w.id}" satisfied dependency "{dep}" is not a complete packet',
            )
        if dep in w.hard_dependency_ids:
            yield Finding(
                (*at, "satisfied_dependency_ids", j),
                f'work packet "{w.id}" dependency "{dep}" is both open and satisfied',
            )


def _waves(s: Snapshot) -> Iterator[Finding]:
    graph = list(graph_findings(s.levers))
    yield from graph
    if graph:
        return
    ready = ready_levers(s.levers)
    placed: set[str] = set()
    wave_ids: set[str] = set()
    for i, wave in enumerate(s.ready_waves):
        at = ("ready_waves", i)
        if blank(wave.id) or wave.id in wave_ids or blank(wave.envelope_id) or not wave.ready_lever_ids:
            yield Finding(at, f'current ready wave "{wave.id}" is invalid')
        wave_ids.add(wave.id)
        for j, lever in enumerate(wave.ready_lever_ids):
            if lever not in ready or lever in placed:
                yield Finding(
                    (*at, "ready_lever_ids", j),
                    f'current ready wave "{wave.id}" has unknown or duplicate lever "{lever}"',
                )
            placed.add(lever)
        if wave.serial_within_wave and blank(wave.serial_reason):
            yield Finding((*at, "serial_reason"), f'current ready wave "{wave.id}" lacks serial reason')
    for lever in ready:
        if lever not in placed:
            yield Finding(("ready_waves",), f'dependency-ready lever "{lever}" is missing from current waves')
    for i, wave in enumerate(s.ready_waves):
        for j, peer in enumerate(wave.parallel_with):
            if peer not in wave_ids or peer == wave.id:
                yield Finding(
                    ("ready_waves", i, "parallel_with", j),
                    f'current ready wave "{wave.id}" has invalid parallel peer "{peer}"',
                )


def _oss(s: Snapshot) -> Iterator[Finding]:
    defined: set[str] = set()
    for i, st in enumerate(s.oss_states):
        if blank(st.state) or st.state in defined or blank(st.meaning) or blank(st.required_evidence):
            yield Finding(("oss_states", i), f'invalid OSS state definition "{st.state}"')
        defined.add(st.state)
    for name in REQUIRED_OSS_STATES:
        if name not in defined:
            yield Finding(("oss_states",), f'missing OSS state "{name}"')
    for i, step in enumerate(s.oss_walk):
        if step.order != i + 1 or blank(step.name) or blank(step.requirement) or blank(step.exit):
            yield Finding(("oss_walk", i), f"invalid OSS walk step at index {i}")
    constraint_ids = {c.id for c in s.constraints}
    sources: set[str] = set()
    for i, route in enumerate(s.oss_routes):
        at = ("oss_routes", i)
        if (
            blank(route.source)
            or route.source in sources
            or blank(route.revision)
            or route.state not in defined
            or blank(route.seam)
            or blank(route.next_action)
        ):
            yield Finding(at, f'invalid OSS route "{route.source}"')
        sources.add(route.source)
        for j, cid in enumerate(route.proposed_constraint_ids):
            if cid not in constraint_ids:
                yield Finding(
                    (*at, "proposed_constraint_ids", j),
                    f'OSS route "{route.source}" references unknown constraint "{cid}"',
                )
        for j, n in enumerate(route.deduped_issues):
            if n <= 0:
                yield Finding((*at, "deduped_issues", j), f'OSS route "{route.source}" has invalid issue #{n}')


# perfbot's own checks (not in upstream) follow.


# Each check with what it reads, a field or one attribute of its records (`validation.validate`
# lets it read no other, and passes over it when none of them changed since a snapshot known to
# have no finding).
UPSTREAM_CHECKS: tuple[tuple[Callable[[Snapshot], Iterator[Finding]], frozenset[str]] | EachRecord, ...] = (
    (_identity, frozenset({"schema_", "definition"})),
    (_schema_one, frozenset({"schema_", "constraints.id", "constraints.state", "programs.id", "work_packets.id"})),
    (_constraints, frozenset({"constraints", "as_of"})),
    (_programs, frozenset({"constraints.id", "programs"})),
    (_packet_ids, frozenset({"work_packets.id"})),
    EachRecord(
        "work_packets",
        _packet_context,
        _packet,
        reads=frozenset({"constraints.id", "programs.id", "work_packets"}),
        context=frozenset({"constraints.id", "programs.id", "work_packets.id", "work_packets.state"}),
    ),
    (_waves, frozenset({"levers", "ready_waves"})),
    (_oss, frozenset({"oss_states", "oss_walk", "oss_routes", "constraints.id"})),
)
