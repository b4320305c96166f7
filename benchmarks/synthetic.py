"""Synthetic snapshots N times the seed's size, with ids suffixed so every copy stays valid."""

from __future__ import annotations

from bot.issue_refs import number_of
from bot.snapshot.model import Snapshot


def place(path: str, copy: int) -> str:
    """Each copy writes its own region, so copies do not contend for leases."""
    return path if copy == 0 else f"copy{copy}/{path}"


def scaled(seed: Snapshot, factor: int) -> Snapshot:
    """`factor` copies of constraints, programs, packets and routes; levers and waves stay as in the seed."""

    def suffix(value: str, copy: int) -> str:
        return value if copy == 0 else f"{value}.x{copy}"

    constraints, programs, packets, routes = [], [], [], []
    for n in range(factor):
        constraints += [c.model_copy(update={"id": suffix(c.id, n)}) for c in seed.constraints]
        programs += [
            p.model_copy(
                update={"id": suffix(p.id, n), "constraint_ids": tuple(suffix(c, n) for c in p.constraint_ids)}
            )
            for p in seed.programs
        ]
        packets += [
            w.model_copy(
                update={
                    "id": suffix(w.id, n),
                    "program_id": suffix(w.program_id, n),
                    "issue": number_of(w.issue) + 100_000 * n,
                    "paths": tuple(place(path, n) for path in w.paths),
                    "constraint_ids": tuple(suffix(c, n) for c in w.constraint_ids),
                    "hard_dependency_ids": tuple(suffix(d, n) for d in w.hard_dependency_ids),
                    "satisfied_dependency_ids": tuple(suffix(d, n) for d in w.satisfied_dependency_ids),
                    "blocked_by_ids": tuple(suffix(d, n) for d in w.blocked_by_ids),
                }
            )
            for w in seed.work_packets
        ]
        routes += [
            r.model_copy(
                update={
                    "source": suffix(r.source, n),
                    "proposed_constraint_ids": tuple(suffix(c, n) for c in r.proposed_constraint_ids),
                }
            )
            for r in seed.oss_routes
        ]
    return seed.model_copy(
        update={
            "constraints": tuple(constraints),
            "programs": tuple(programs),
            "work_packets": tuple(packets),
            "oss_routes": tuple(routes),
        }
    )
