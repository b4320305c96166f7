"""Upstream's snapshot rules 1–27 (bot/snapshot/upstream_rules.py), each by its location and message."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.snapshot.fields import Finding
from bot.snapshot.model import REQUIRED_OSS_STATES, SCHEMA_ID, SCHEMA_ONE, Snapshot
from bot.snapshot.upstream_rules import blank
from bot.snapshot.validation import validate
from tests.unit.snapshot.values import DATA, edited, replaced, valid


def only(found: list[Finding]) -> Finding:
    assert len(found) == 1, found
    return found[0]


def test_blank_means_only_whitespace() -> None:
    assert blank("")
    assert blank(" \t\n")
    assert not blank(" x ")


def test_identity() -> None:
    assert validate(valid().model_copy(update={"schema_": "fak-native-performance-current/3"})) == [
        Finding(
            ("schema",),
            f"current snapshot identity is incomplete: schema must be {SCHEMA_ID!r} or {SCHEMA_ONE!r}",
        )
    ]
    assert validate(valid().model_copy(update={"definition": " "})) == [
        Finding(("definition",), "current snapshot identity is incomplete: definition is blank")
    ]


def schema_one(**changes: object) -> Snapshot:
    """The small snapshot as schema /1 has it: no programs, no packets, no collision with a packet."""
    snapshot = valid()
    kept = {"schema_": SCHEMA_ONE, "programs": (), "work_packets": (), "collisions": snapshot.collisions[:1]}
    return snapshot.model_copy(update={**kept, **changes})


def test_schema_one_without_programs_and_packets_is_valid() -> None:
    assert validate(schema_one()) == []


def test_schema_one_has_no_programs_or_packets() -> None:
    snapshot = valid()
    assert validate(schema_one(programs=snapshot.programs)) == [
        Finding(("programs",), f"schema {SCHEMA_ONE} has no programs")
    ]
    assert validate(schema_one(work_packets=snapshot.work_packets[:1])) == [
        Finding(("work_packets",), f"schema {SCHEMA_ONE} has no work_packets"),
        Finding(("work_packets", 0, "program_id"), 'invalid work packet "w1": unknown program "p1"'),
    ]


@pytest.mark.parametrize("state", ["ready", "waiting-evidence", "held-correctness", "capacity-bound"])
def test_schema_one_takes_its_four_constraint_states(state: str) -> None:
    constraints = tuple(c.model_copy(update={"state": state}) for c in valid().constraints)
    assert validate(schema_one(constraints=constraints)) == []


@pytest.mark.parametrize("state", ["waiting-dependency", "waiting-coordination"])
def test_schema_one_refuses_the_states_schema_two_added(state: str) -> None:
    snapshot = valid()
    constraints = (snapshot.constraints[0], snapshot.constraints[1].model_copy(update={"state": state}))
    assert validate(schema_one(constraints=constraints)) == [
        Finding(
            ("constraints", 1, "state"),
            f'current constraint "c2" is incomplete: state "{state}" is not a state of schema /1',
        )
    ]
    assert validate(snapshot.model_copy(update={"constraints": constraints})) == []


def test_a_duplicate_constraint() -> None:
    assert validate(edited("constraints", 1, id="c1")) == [
        Finding(("constraints", 1, "id"), 'duplicate current constraint "c1"')
    ]


@pytest.mark.parametrize("field", ["id", "name", "envelope", "driver", "authority_owner", "next_action", "exit_when"])
def test_each_blank_constraint_field(field: str) -> None:
    ident = " " if field == "id" else "c2"
    assert validate(edited("constraints", 1, **{field: " "})) == [
        Finding(("constraints", 1, field), f'current constraint "{ident}" is incomplete: {field} is blank')
    ]


def test_a_constraint_without_evidence() -> None:
    assert validate(edited("constraints", 1, evidence=())) == [
        Finding(("constraints", 1, "evidence"), 'current constraint "c2" is incomplete: no evidence')
    ]


def test_review_dates() -> None:
    early = edited("constraints", 1, review_by=dt.date(2026, 8, 19))
    assert validate(early) == [
        Finding(
            ("constraints", 1, "review_by"),
            'current constraint "c2" has invalid observed/review dates: review_by 2026-08-19 is before observed_at 2026-08-20',
        )
    ]
    stale = edited("constraints", 1, review_by=dt.date(2026, 8, 26))
    assert validate(stale) == [
        Finding(
            ("constraints", 1, "review_by"),
            'current constraint "c2" has invalid observed/review dates: review_by 2026-08-26 is before as_of 2026-08-27',
        )
    ]
    # Review on the day it was observed, and on the snapshot's own day, is allowed.
    same = edited("constraints", 1, observed_at=dt.date(2026, 8, 27), review_by=dt.date(2026, 8, 27))
    assert validate(same) == []


def test_incomplete_evidence_names_every_blank_part_and_points_at_the_first() -> None:
    item = valid().constraints[1].evidence[0]
    broken = (item, item.model_copy(update={"summary": " ", "ref": ""}))
    assert validate(edited("constraints", 1, evidence=broken)) == [
        Finding(
            ("constraints", 1, "evidence", 1, "summary"),
            'current constraint "c2" has incomplete evidence: summary, ref blank',
        )
    ]
    no_class = (item.model_copy(update={"class_": ""}),)
    assert only(validate(edited("constraints", 1, evidence=no_class))).loc == ("constraints", 1, "evidence", 0, "class")


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        ({"id": " "}, "id", "id is empty or duplicate"),
        ({"name": ""}, "name", "name is blank"),
        ({"authority_issue": 0}, "authority_issue", "authority_issue must be > 0"),
        ({"hero_metric": " "}, "hero_metric", "hero_metric is blank"),
        ({"current_result": " "}, "current_result", "current_result is blank"),
        ({"sequence_rule": " "}, "sequence_rule", "sequence_rule is blank"),
    ],
)
def test_each_invalid_program_field(change: dict[str, object], field: str, why: str) -> None:
    programs = [*DATA["programs"], {**DATA["programs"][0], "id": "p2", **change}]
    ident = change.get("id", "p2")
    assert validate(replaced(programs=programs)) == [
        Finding(("programs", 1, field), f'invalid execution program "{ident}": {why}')
    ]


def test_a_duplicate_program_and_its_constraints() -> None:
    programs = [*DATA["programs"], {**DATA["programs"][0], "constraint_ids": []}]
    assert validate(replaced(programs=programs)) == [
        Finding(("programs", 1, "id"), 'invalid execution program "p1": id is empty or duplicate'),
        Finding(("programs", 1, "constraint_ids"), 'invalid execution program "p1": constraint_ids is empty'),
    ]
    assert validate(edited("programs", 0, authority_issue=1)) == []
    assert validate(edited("programs", 0, constraint_ids=("c1", "gone"))) == [
        Finding(("programs", 0, "constraint_ids", 1), 'execution program "p1" references unknown constraint "gone"')
    ]


@pytest.mark.parametrize("ident", ["w1", "", " "])
def test_a_packet_id_is_present_and_unique(ident: str) -> None:
    found = validate(edited("work_packets", 2, id=ident))
    assert found[0] == Finding(("work_packets", 2, "id"), f'duplicate or empty work packet "{ident}"')


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        ({"name": " "}, "name", "name is blank"),
        ({"program_id": "p9"}, "program_id", 'unknown program "p9"'),
        ({"constraint_ids": ()}, "constraint_ids", "constraint_ids is empty"),
        ({"issue": 0}, "issue", "issue must be > 0"),
        ({"owner": " "}, "owner", "owner is blank"),
        ({"lane": ""}, "lane", "lane is blank"),
        ({"paths": ()}, "paths", "paths is empty"),
        ({"paths": ("src/**", " ")}, "paths", "paths is empty"),
        ({"exit_when": " "}, "exit_when", "exit_when is blank"),
    ],
)
def test_each_invalid_packet_field(change: dict[str, object], field: str, why: str) -> None:
    assert validate(edited("work_packets", 1, **change)) == [
        Finding(("work_packets", 1, field), f'invalid work packet "w2": {why}')
    ]


def test_a_packet_issue_of_one_is_valid() -> None:
    assert validate(edited("work_packets", 1, issue=1)) == []


def test_a_packet_constraint_must_exist() -> None:
    assert validate(edited("work_packets", 1, constraint_ids=("c1", "gone"))) == [
        Finding(("work_packets", 1, "constraint_ids", 1), 'work packet "w2" references unknown constraint "gone"')
    ]


@pytest.mark.parametrize("field", ["hard_dependency_ids", "blocked_by_ids"])
@pytest.mark.parametrize("other", ["gone", "w3"])
def test_a_dependency_or_blocker_is_another_known_packet(field: str, other: str) -> None:
    found = validate(edited("work_packets", 2, **{field: ("w1", other)}))
    assert (
        Finding(("work_packets", 2, field, 1), f'work packet "w3" references invalid dependency/blocker "{other}"')
        in found
    )
    # A packet named later in the list is known too.
    assert validate(edited("work_packets", 0, blocked_by_ids=("w3",))) == []


def test_a_complete_packet_needs_a_result() -> None:
    assert validate(edited("work_packets", 0, result=" ")) == [
        Finding(("work_packets", 0, "result"), 'work packet "w1" has no accepted result')
    ]


def test_an_open_packet_needs_a_next_action_and_no_result() -> None:
    assert validate(edited("work_packets", 1, next_action=" ")) == [
        Finding(("work_packets", 1, "next_action"), 'work packet "w2" needs a next action and no result')
    ]
    assert validate(edited("work_packets", 1, result="early")) == [
        Finding(("work_packets", 1, "result"), 'work packet "w2" needs a next action and no result')
    ]
    assert validate(edited("work_packets", 1, result="early", next_action="")) == [
        Finding(("work_packets", 1, "result"), 'work packet "w2" needs a next action and no result')
    ]


def test_a_negative_state_revision() -> None:
    assert validate(edited("work_packets", 1, state_revision=-1)) == [
        Finding(("work_packets", 1, "state_revision"), 'work packet "w2" has a negative state_revision')
    ]
    assert validate(edited("work_packets", 1, state_revision=0)) == []


@pytest.mark.parametrize(("related", "position"), [((21, 0), 1), ((21, -4), 1), ((12, 21), 0), ((21, 22, 21), 2)])
def test_related_issues_are_positive_distinct_and_not_the_packets_own(related: tuple[int, ...], position: int) -> None:
    number = related[position]
    assert validate(edited("work_packets", 1, related_issues=related)) == [
        Finding(
            ("work_packets", 1, "related_issues", position),
            f'work packet "w2" has invalid or duplicate related issue #{number}',
        )
    ]
    assert validate(edited("work_packets", 1, related_issues=(1,))) == []


def test_a_satisfied_dependency_must_be_a_complete_packet() -> None:
    for dependency in ("w3", "gone"):
        assert validate(edited("work_packets", 1, satisfied_dependency_ids=("w1", dependency))) == [
            Finding(
                ("work_packets", 1, "satisfied_dependency_ids", 1),
                f'work packet "w2" satisfied dependency "{dependency}" is not a complete packet',
            )
        ]


def test_a_dependency_is_not_both_open_and_satisfied() -> None:
    assert validate(edited("work_packets", 1, hard_dependency_ids=("w1",))) == [
        Finding(
            ("work_packets", 1, "satisfied_dependency_ids", 0),
            'work packet "w2" dependency "w1" is both open and satisfied',
        )
    ]


def test_the_lever_graph_findings_come_with_the_wave_rules() -> None:
    assert validate(edited("levers", 3, id="m.a")) == [Finding(("levers", 3, "id"), "duplicate lever id 'm.a'")]


@pytest.mark.parametrize(
    ("index", "change", "ident"),
    [
        (0, {"id": " "}, " "),
        (1, {"id": "metal"}, "metal"),
        (0, {"envelope_id": " "}, "metal"),
        (0, {"ready_lever_ids": ()}, "metal"),
    ],
)
def test_an_invalid_wave(index: int, change: dict[str, object], ident: str) -> None:
    found = validate(edited("ready_waves", index, **change))
    assert Finding(("ready_waves", index), f'current ready wave "{ident}" is invalid') in found
    assert len([f for f in found if f.message.endswith("is invalid")]) == 1


def test_a_wave_lever_is_ready_and_placed_once() -> None:
    twice = edited("ready_waves", 1, ready_lever_ids=("c.x", "m.a"))
    assert validate(twice) == [
        Finding(
            ("ready_waves", 1, "ready_lever_ids", 1), 'current ready wave "cuda" has unknown or duplicate lever "m.a"'
        ),
        Finding(
            ("ready_waves", 1, "ready_lever_ids"),
            'current ready wave "cuda" must list every ready lever of envelope "cuda"',
        ),
    ]
    assert validate(edited("ready_waves", 1, ready_lever_ids=("c.x", "c.y"))) == [
        Finding(
            ("ready_waves", 1, "ready_lever_ids", 1), 'current ready wave "cuda" has unknown or duplicate lever "c.y"'
        ),
        Finding(
            ("ready_waves", 1, "ready_lever_ids"),
            'current ready wave "cuda" must list every ready lever of envelope "cuda"',
        ),
    ]


def test_a_serial_wave_gives_its_reason() -> None:
    assert validate(edited("ready_waves", 0, serial_reason=" ")) == [
        Finding(("ready_waves", 0, "serial_reason"), 'current ready wave "metal" lacks serial reason')
    ]
    assert validate(edited("ready_waves", 1, serial_reason="")) == []  # not serial


def test_every_ready_lever_is_in_a_wave() -> None:
    assert validate(edited("ready_waves", 1, ready_lever_ids=())) == [
        Finding(("ready_waves", 1), 'current ready wave "cuda" is invalid'),
        Finding(("ready_waves",), 'dependency-ready lever "c.x" is missing from current waves'),
        Finding(
            ("ready_waves", 1, "ready_lever_ids"),
            'current ready wave "cuda" must list every ready lever of envelope "cuda"',
        ),
    ]


@pytest.mark.parametrize("peer", ["rocm", "metal"])
def test_a_parallel_peer_is_another_wave(peer: str) -> None:
    assert validate(edited("ready_waves", 0, parallel_with=("cuda", peer))) == [
        Finding(
            ("ready_waves", 0, "parallel_with", 1), f'current ready wave "metal" has invalid parallel peer "{peer}"'
        )
    ]
    # A peer listed after the wave is known too.
    assert validate(edited("ready_waves", 0, parallel_with=("cuda",))) == []


@pytest.mark.parametrize("change", [{"state": " "}, {"state": "kept"}, {"meaning": ""}, {"required_evidence": " "}])
def test_an_invalid_oss_state(change: dict[str, str]) -> None:
    found = validate(edited("oss_states", 7, **change))
    state = change.get("state", REQUIRED_OSS_STATES[7])
    assert found[0] == Finding(("oss_states", 7), f'invalid OSS state definition "{state}"')


def test_every_required_oss_state_is_defined() -> None:
    states = [s for s in DATA["oss_states"] if s["state"] not in ("watch", "kept")]
    assert validate(replaced(oss_states=states, oss_routes=[{**DATA["oss_routes"][0], "state": "candidate"}])) == [
        Finding(("oss_states",), 'missing OSS state "watch"'),
        Finding(("oss_states",), 'missing OSS state "kept"'),
    ]


@pytest.mark.parametrize(
    ("index", "change"),
    [(1, {"order": 3}), (0, {"order": 0}), (1, {"name": " "}), (1, {"requirement": ""}), (1, {"exit": " "})],
)
def test_an_invalid_walk_step(index: int, change: dict[str, object]) -> None:
    assert validate(edited("oss_walk", index, **change)) == [
        Finding(("oss_walk", index), f"invalid OSS walk step at index {index}")
    ]


@pytest.mark.parametrize(
    "change",
    [{"source": " "}, {"revision": ""}, {"state": "unknown"}, {"seam": " "}, {"next_action": ""}],
)
def test_an_invalid_route(change: dict[str, str]) -> None:
    source = change.get("source", "org/repo")
    assert validate(edited("oss_routes", 0, **change)) == [Finding(("oss_routes", 0), f'invalid OSS route "{source}"')]


def test_a_route_source_is_unique() -> None:
    routes = DATA["oss_routes"] * 2
    assert validate(replaced(oss_routes=routes)) == [Finding(("oss_routes", 1), 'invalid OSS route "org/repo"')]


def test_a_route_names_known_constraints_and_positive_issues() -> None:
    assert validate(edited("oss_routes", 0, proposed_constraint_ids=("c1", "gone"), deduped_issues=(5, 0, -1))) == [
        Finding(
            ("oss_routes", 0, "proposed_constraint_ids", 1), 'OSS route "org/repo" references unknown constraint "gone"'
        ),
        Finding(("oss_routes", 0, "deduped_issues", 1), 'OSS route "org/repo" has invalid issue #0'),
        Finding(("oss_routes", 0, "deduped_issues", 2), 'OSS route "org/repo" has invalid issue #-1'),
    ]
    assert validate(edited("oss_routes", 0, deduped_issues=(1,))) == []
