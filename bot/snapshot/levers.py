"""The lever graph: which arms are dependency-ready, and whether the graph itself holds together."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from bot.snapshot.fields import Finding
from bot.snapshot.model import Lever


def ready_levers(levers: Iterable[Lever]) -> list[str]:
    """Ids of levers that are not enabled, not witnessed, and whose dependencies are all enabled.

    Graph order is kept; conflicts do not affect readiness (upstream `ReadyLevers`).
    """
    levers = list(levers)
    enabled = {lever.id for lever in levers if lever.enabled}
    return [
        lever.id
        for lever in levers
        if not lever.enabled and not lever.witnessed and all(d in enabled for d in lever.dependency_ids)
    ]


def ready_by_envelope(levers: Iterable[Lever]) -> dict[str, list[str]]:
    levers = list(levers)
    ready = set(ready_levers(levers))
    grouped: dict[str, list[str]] = {}
    for lever in levers:
        if lever.id in ready:
            grouped.setdefault(lever.envelope_id, []).append(lever.id)
    return grouped


def graph_findings(levers: tuple[Lever, ...]) -> Iterator[Finding]:
    """Structural problems of the lever graph (upstream `Validate(graph)`, reduced to what we keep).

    A repeated id is one finding, at its first repeat; the first lever of that id is the one the
    graph means, so a repeat's own references and edges are not read (they would report the
    mistake again, as a lever that names itself and a cycle through itself)."""
    by_id: dict[str, Lever] = {}
    repeats: set[int] = set()
    repeated: set[str] = set()
    for index, lever in enumerate(levers):
        if not lever.id.strip():
            yield Finding(("levers", index, "id"), f"lever {lever.id!r} has an empty id")
        elif lever.id in by_id:
            if lever.id not in repeated:
                yield Finding(("levers", index, "id"), f"duplicate lever id {lever.id!r}")
            repeated.add(lever.id)
            repeats.add(index)
            continue
        elif not lever.envelope_id.strip():
            yield Finding(("levers", index, "envelope_id"), f"lever {lever.id!r} has no envelope")
        by_id.setdefault(lever.id, lever)
    yield from _reference_findings(levers, by_id, repeats)
    for index, lever in enumerate(levers):
        yield from _state_findings(index, lever)
    cycle = find_cycle({lever.id: lever.dependency_ids for lever in by_id.values()})
    if cycle:
        index = next(i for i, lever in enumerate(levers) if lever.id == cycle[0])
        yield Finding(("levers", index, "dependency_ids"), "lever dependency cycle: " + " -> ".join(cycle))


def _reference_findings(levers: tuple[Lever, ...], by_id: dict[str, Lever], repeats: set[int]) -> Iterator[Finding]:
    for index, lever in enumerate(levers):
        if index in repeats:
            continue
        seen: set[str] = set()
        for field in ("dependency_ids", "conflict_ids"):
            for position, other_id in enumerate(getattr(lever, field)):
                loc: tuple[str | int, ...] = ("levers", index, field, position)
                other = by_id.get(other_id)
                if other_id in seen:
                    yield Finding(loc, f"lever {lever.id!r} repeats dependency/conflict reference {other_id!r}")
                elif other is None or other_id == lever.id:
                    yield Finding(loc, f"lever {lever.id!r} references unknown lever {other_id!r}")
                elif other.envelope_id != lever.envelope_id:
                    yield Finding(loc, f"lever {lever.id!r} has a cross-envelope edge to {other_id!r}")
                elif field == "conflict_ids" and lever.id not in other.conflict_ids:
                    yield Finding(loc, f"lever conflict {lever.id!r} -> {other_id!r} is not symmetric")
                elif field == "conflict_ids" and lever.enabled and other.enabled and lever.id < other_id:
                    yield Finding(loc, f"conflicting levers {lever.id!r} and {other_id!r} are both enabled")
                seen.add(other_id)


def _state_findings(index: int, lever: Lever) -> Iterator[Finding]:
    """Upstream's checks of a lever's state and effects (`Validate(graph)`): its status agrees with
    `enabled`, an expectation is a hypothesis and a witness is witnessed (upstream issue #8738:
    checks that fail when the two are mixed up), each with what it needs."""
    at: tuple[str | int, ...] = ("levers", index)
    if lever.enabled and lever.status == "absent":
        yield Finding((*at, "status"), f"lever {lever.id!r} is enabled but its status is absent")
    elif not lever.enabled and lever.status == "present":
        yield Finding((*at, "status"), f"lever {lever.id!r} is not enabled but its status is present")
    expected, witness = lever.expected, lever.witness
    if expected is not None and expected.classification != "hypothesis":
        yield Finding(
            (*at, "expected", "classification"),
            f"lever {lever.id!r} expected effect must be a hypothesis; witnessed evidence belongs in witness",
        )
    if witness is not None and witness.classification != "witnessed":
        yield Finding(
            (*at, "witness", "classification"),
            f"lever {lever.id!r} witness must be witnessed; projections belong in expected",
        )
    for name, effect, needs in (("expected", expected, ("summary", "provenance")), ("witness", witness, _WITNESS)):
        for field in needs if effect is not None else ():
            if not getattr(effect, field).strip():
                yield Finding((*at, name, field), f"lever {lever.id!r} {name} has no {field}")
    if witness is not None and not lever.witnessed:
        yield Finding((*at, "witnessed"), f"lever {lever.id!r} has a witness but is not witnessed")


# What a witness needs besides its classification.
_WITNESS = ("summary", "provenance", "receipt")


def find_cycle(edges: dict[str, tuple[str, ...]]) -> list[str]:
    """The first dependency cycle found by depth-first search in insertion order, or [].

    Iterative, so long dependency chains cannot exhaust the interpreter stack.
    """
    done: set[str] = set()
    for root in edges:
        if root in done:
            continue
        path: list[str] = [root]
        on_path = {root}
        pending: list[list[str]] = [[n for n in edges[root] if n in edges]]
        while path:
            if not pending[-1]:
                node = path.pop()
                done.add(node)
                on_path.discard(node)
                pending.pop()
                continue
            nxt = pending[-1].pop(0)
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt in done:
                continue
            path.append(nxt)
            on_path.add(nxt)
            pending.append([n for n in edges[nxt] if n in edges])
    return []
