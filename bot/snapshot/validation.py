"""Every snapshot invariant: upstream's rules 1–27 (with their wording) and perfbot's own.

Unlike upstream, which stops at the first failure, every problem is reported; each finding
carries the key path of the offending value so the store can name its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bot.snapshot.findings import Finding
from bot.snapshot.levers import find_cycle, graph_findings, ready_by_envelope, ready_levers
from bot.snapshot.model import REQUIRED_OSS_STATES, SCHEMA_ID, Snapshot

ISSUE_REF = re.compile(r"#(\d+)")
# Raw HTML (a tag, a comment, a declaration) renders inside GitHub's tables and can end a cell.
_HTML_TAG = re.compile(r"<[A-Za-z/!?]")


def validate(snapshot: Snapshot) -> list[Finding]:
    """All findings, upstream parity checks first, then perfbot's additions."""
    checks = (
        _identity,
        _constraints,
        _programs,
        _packets,
        _waves,
        _oss,
        _cycles,
        _collisions,
        _ready_arms,
        _program_orders,
        _review_issues,
        _records,
        _cells,
    )
    return [finding for check in checks for finding in check(snapshot)]


def review_issue(constraint_review_issue: int | None, authority_owner: str) -> int | None:
    """The issue a constraint's review nudge goes to: explicit, else the first `#N` of its owner."""
    if constraint_review_issue is not None:
        return constraint_review_issue
    match = ISSUE_REF.search(authority_owner)
    return int(match.group(1)) if match else None


def _blank(text: str) -> bool:
    return not text.strip()


def _identity(s: Snapshot) -> Iterator[Finding]:
    if s.schema_ != SCHEMA_ID:
        yield Finding(("schema",), f"current snapshot identity is incomplete: schema must be {SCHEMA_ID!r}")
    if _blank(s.definition):
        yield Finding(("definition",), "current snapshot identity is incomplete: definition is blank")


def _constraints(s: Snapshot) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, c in enumerate(s.constraints):
        at = ("constraints", i)
        if c.id in seen:
            yield Finding((*at, "id"), f'duplicate current constraint "{c.id}"')
        seen.add(c.id)
        fields = ("id", "name", "envelope", "driver", "authority_owner", "next_action", "exit_when")
        for field in fields:
            if _blank(getattr(c, field)):
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
            missing = [f for f, v in (("class", e.class_), ("summary", e.summary), ("ref", e.ref)) if _blank(v)]
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
            ("id", "id is empty or duplicate", _blank(p.id) or p.id in seen),
            ("name", "name is blank", _blank(p.name)),
            ("authority_issue", "authority_issue must be > 0", p.authority_issue <= 0),
            ("constraint_ids", "constraint_ids is empty", not p.constraint_ids),
            ("hero_metric", "hero_metric is blank", _blank(p.hero_metric)),
            ("current_result", "current_result is blank", _blank(p.current_result)),
            ("sequence_rule", "sequence_rule is blank", _blank(p.sequence_rule)),
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


def _packets(s: Snapshot) -> Iterator[Finding]:
    constraint_ids = {c.id for c in s.constraints}
    program_ids = {p.id for p in s.programs}
    ids: set[str] = set()
    for i, w in enumerate(s.work_packets):
        if _blank(w.id) or w.id in ids:
            yield Finding(("work_packets", i, "id"), f'duplicate or empty work packet "{w.id}"')
        ids.add(w.id)
    states = {w.id: w.state for w in s.work_packets}
    for i, w in enumerate(s.work_packets):
        at = ("work_packets", i)
        problems = [
            ("name", "name is blank", _blank(w.name)),
            ("program_id", f'unknown program "{w.program_id}"', w.program_id not in program_ids),
            ("constraint_ids", "constraint_ids is empty", not w.constraint_ids),
            ("issue", "issue must be > 0", w.issue <= 0),
            ("owner", "owner is blank", _blank(w.owner)),
            ("lane", "lane is blank", _blank(w.lane)),
            ("paths", "paths is empty", not w.paths or any(_blank(p) for p in w.paths)),
            ("exit_when", "exit_when is blank", _blank(w.exit_when)),
        ]
        for field, why, failed in problems:
            if failed:
                yield Finding((*at, field), f'invalid work packet "{w.id}": {why}')
        for j, cid in enumerate(w.constraint_ids):
            if cid not in constraint_ids:
                yield Finding((*at, "constraint_ids", j), f'work packet "{w.id}" references unknown constraint "{cid}"')
        for field in ("hard_dependency_ids", "blocked_by_ids"):
            for j, dep in enumerate(getattr(w, field)):
                if dep not in ids or dep == w.id:
                    yield Finding(
                        (*at, field, j), f'work packet "{w.id}" references invalid dependency/blocker "{dep}"'
                    )
        if w.state == "complete" and _blank(w.result):
            yield Finding((*at, "result"), f'work packet "{w.id}" has no accepted result')
        if w.state != "complete" and (_blank(w.next_action) or not _blank(w.result)):
            field = "result" if not _blank(w.result) else "next_action"
            yield Finding((*at, field), f'work packet "{w.id}" needs a next action and no result')
        if w.state_revision < 0:
            yield Finding((*at, "state_revision"), f'work packet "{w.id}" has a negative state_revision')
        seen_related: set[int] = set()
        for j, n in enumerate(w.related_issues):
            if n <= 0 or n == w.issue or n in seen_related:
                yield Finding(
                    (*at, "related_issues", j), f'work packet "{w.id}" has invalid or duplicate related issue #{n}'
                )
            seen_related.add(n)
        for j, dep in enumerate(w.satisfied_dependency_ids):
            if states.get(dep) != "complete":
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
        if _blank(wave.id) or wave.id in wave_ids or _blank(wave.envelope_id) or not wave.ready_lever_ids:
            yield Finding(at, f'current ready wave "{wave.id}" is invalid')
        wave_ids.add(wave.id)
        for j, lever in enumerate(wave.ready_lever_ids):
            if lever not in ready or lever in placed:
                yield Finding(
                    (*at, "ready_lever_ids", j),
                    f'current ready wave "{wave.id}" has unknown or duplicate lever "{lever}"',
                )
            placed.add(lever)
        if wave.serial_within_wave and _blank(wave.serial_reason):
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
        if _blank(st.state) or st.state in defined or _blank(st.meaning) or _blank(st.required_evidence):
            yield Finding(("oss_states", i), f'invalid OSS state definition "{st.state}"')
        defined.add(st.state)
    for name in REQUIRED_OSS_STATES:
        if name not in defined:
            yield Finding(("oss_states",), f'missing OSS state "{name}"')
    for i, step in enumerate(s.oss_walk):
        if step.order != i + 1 or _blank(step.name) or _blank(step.requirement) or _blank(step.exit):
            yield Finding(("oss_walk", i), f"invalid OSS walk step at index {i}")
    constraint_ids = {c.id for c in s.constraints}
    sources: set[str] = set()
    for i, route in enumerate(s.oss_routes):
        at = ("oss_routes", i)
        if (
            _blank(route.source)
            or route.source in sources
            or _blank(route.revision)
            or route.state not in defined
            or _blank(route.seam)
            or _blank(route.next_action)
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
        if _blank(col.id) or col.id in seen:
            yield Finding(("collisions", i, "id"), f'collision "{col.id}" has an empty or duplicate id')
        seen.add(col.id)
        for j, member in enumerate(col.members):
            if member not in known:
                yield Finding(
                    ("collisions", i, "members", j), f'collision "{col.id}" names unknown packet or lever "{member}"'
                )


def _ready_arms(s: Snapshot) -> Iterator[Finding]:
    """Ready arms are derived from the levers; hand-kept lists must agree with them."""
    if any(True for _ in graph_findings(s.levers)):
        return
    ready = set(ready_levers(s.levers))
    grouped = {envelope: set(ids) for envelope, ids in ready_by_envelope(s.levers).items()}
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
        if c.review_issue is not None and c.review_issue <= 0:
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
    applied: set[tuple[int, int]] = set()
    for i, entry in enumerate(s.ledger):
        if entry.key in applied:
            yield Finding(
                ("ledger", i, "comment_id"), f"ledger records line {entry.line} of comment {entry.comment_id} twice"
            )
        applied.add(entry.key)


def _cells(s: Snapshot) -> Iterator[Finding]:
    """Text that lands in a table cell may not contain `|` or a line break (upstream does not escape)."""
    data = s.model_dump(by_alias=True)
    for loc, text in _strings(data, ()):
        if loc == ("definition",):
            if "\n" in text or "\r" in text:
                yield Finding(loc, "definition must be one line")
            continue
        if "|" in text:
            yield Finding(loc, f"{_name(s, loc)}: '|' would break the table cell; rephrase it")
        if _HTML_TAG.search(text):
            yield Finding(loc, f"{_name(s, loc)}: HTML markup would break the table; rephrase it")
        if "\n" in text or "\r" in text:
            yield Finding(loc, f"{_name(s, loc)}: a line break would break the table cell; use one line")


def _strings(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, (*loc, index))


def _name(s: Snapshot, loc: tuple[str | int, ...]) -> str:
    """`section "id" field` for a message, e.g. `work_packets "m1" next_action`."""
    if len(loc) >= 3 and isinstance(loc[1], int):
        item = getattr(s, str(loc[0]).rstrip("_"), ())[loc[1]]
        ident = getattr(item, "id", None) or getattr(item, "state", None) or getattr(item, "source", None)
        return f'{loc[0]} "{ident if ident is not None else loc[1]}" {".".join(map(str, loc[2:]))}'
    return ".".join(map(str, loc))
