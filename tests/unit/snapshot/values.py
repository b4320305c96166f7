"""A small valid snapshot in memory, and edits of it, for the snapshot rules' unit tests.

Its shape: constraints `c1` and `c2`; program `p1`; packets `w1` (complete), `w2` (ready, `w1`
satisfied) and `w3` (waiting on `w2`); levers in two envelopes, where `m.a`, `m.b` and `c.x` are
dependency-ready and sit in the waves `metal` and `cuda`; every OSS state, a two-step walk, one
route, one retired constraint and two ledger entries.
"""

from __future__ import annotations

from typing import Any

from bot.snapshot.model import REQUIRED_OSS_STATES, SCHEMA_ID, Snapshot


def _constraint(ident: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "name": f"{ident} name",
        "type": "evidence",
        "horizon": "transient",
        "state": "ready",
        "observed_at": "2026-08-20",
        "review_by": "2026-08-30",
        "evidence": [{"class": "issue", "summary": "seen", "ref": "#1"}],
        "envelope": "portfolio",
        "driver": "a driver",
        "authority_owner": "issue #41",
        "next_action": "act",
        "exit_when": "done",
        **extra,
    }


def _packet(ident: str, issue: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "name": f"{ident} name",
        "program_id": "p1",
        "constraint_ids": ["c1"],
        "issue": issue,
        "state": "ready",
        "owner": "unassigned",
        "lane": "lane",
        "paths": [f"src/{ident}/**"],
        "next_action": "go",
        "exit_when": "merged",
        **extra,
    }


def _lever(ident: str, envelope: str, **extra: Any) -> dict[str, Any]:
    return {"id": ident, "envelope_id": envelope, **extra}


DATA: dict[str, Any] = {
    "schema": SCHEMA_ID,
    "as_of": "2026-08-27",
    "definition": "One line.",
    "constraints": [_constraint("c1", ready_lever_ids=["m.a"]), _constraint("c2")],
    "programs": [
        {
            "id": "p1",
            "name": "program",
            "authority_issue": 40,
            "constraint_ids": ["c1"],
            "hero_metric": "tok/s",
            "current_result": "2.3",
            "sequence_rule": "one at a time",
        }
    ],
    "work_packets": [
        _packet("w1", 11, state="complete", result="accepted", next_action="", program_order=1),
        _packet("w2", 12, satisfied_dependency_ids=["w1"], related_issues=[21, 22], program_order=2),
        _packet("w3", 13, state="waiting-dependency", hard_dependency_ids=["w2"], blocked_by_ids=["w1"]),
    ],
    "ready_waves": [
        {
            "id": "metal",
            "envelope_id": "metal",
            "ready_lever_ids": ["m.a", "m.b"],
            "parallel_with": ["cuda"],
            "serial_within_wave": True,
            "serial_reason": "one lever at a time",
        },
        {"id": "cuda", "envelope_id": "cuda", "ready_lever_ids": ["c.x"], "parallel_with": ["metal"]},
    ],
    "collisions": [
        {"id": "metal-envelope", "kind": "shared-envelope", "members": ["m.a", "m.b"], "reason": "one envelope"},
        {"id": "lease", "kind": "live-lease", "members": ["w2", "c.y"], "reason": "shared paths"},
    ],
    "oss_states": [{"state": s, "meaning": f"{s} means", "required_evidence": "a note"} for s in REQUIRED_OSS_STATES],
    "oss_walk": [
        {"order": 1, "name": "source", "requirement": "named", "exit": "seam"},
        {"order": 2, "name": "seam", "requirement": "mapped", "exit": "constraint"},
    ],
    "oss_routes": [
        {
            "source": "org/repo",
            "revision": "abc123",
            "state": "watch",
            "seam": "decode",
            "proposed_constraint_ids": ["c1"],
            "deduped_issues": [5],
            "next_action": "study",
        }
    ],
    "levers": [
        _lever("m.base", "metal", enabled=True),
        _lever("m.a", "metal", dependency_ids=["m.base"]),
        _lever("m.b", "metal"),
        _lever("m.done", "metal", witnessed=True),
        _lever("c.x", "cuda", conflict_ids=["c.y"]),
        _lever("c.y", "cuda", conflict_ids=["c.x"], enabled=True),
    ],
    "retired_constraints": [{"id": "old", "name": "old one", "retired_on": "2026-08-01", "ref": "#7"}],
    "ledger": [
        {"comment_id": 101, "line": 1, "issue": 11, "author": "alice", "at": "2026-08-26T10:00:00Z", "effect": "a"},
        {"comment_id": 101, "line": 2, "issue": 11, "author": "alice", "at": "2026-08-26T10:00:00Z", "effect": "b"},
    ],
}


def valid() -> Snapshot:
    return Snapshot.model_validate(DATA)


def edited(section: str, index: int, **changes: Any) -> Snapshot:
    """The valid snapshot with one item of a list section changed (`work_packets`, 1, state=...)."""
    snapshot = valid()
    items = list(getattr(snapshot, section))
    items[index] = items[index].model_copy(update=changes)
    return snapshot.model_copy(update={section: tuple(items)})


def replaced(**sections: Any) -> Snapshot:
    """The valid snapshot with whole fields replaced, validated again from data."""
    return Snapshot.model_validate({**DATA, **sections})
