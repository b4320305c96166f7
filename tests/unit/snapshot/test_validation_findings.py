"""perfbot's own snapshot rules (bot/snapshot/validation.py), each by its location and message."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.snapshot.cells import _SUSPECT, _name, _record_cells, _record_lists, _walked_cells
from bot.snapshot.fields import Finding
from bot.snapshot.validation import _Fields, review_issue, validate
from tests.support.property_budget import examples
from tests.unit.snapshot.values import DATA, edited, replaced, valid


def test_the_small_snapshot_is_valid() -> None:
    assert validate(valid()) == []


def test_a_packet_dependency_cycle_is_reported_at_its_first_packet() -> None:
    found = validate(edited("work_packets", 1, hard_dependency_ids=("w3",)))
    assert found == [
        Finding(("work_packets", 1, "hard_dependency_ids"), "work packet dependency cycle: w2 -> w3 -> w2")
    ]


@pytest.mark.parametrize("ident", ["metal-envelope", "", " "])
def test_a_collision_id_must_be_present_and_unique(ident: str) -> None:
    assert validate(edited("collisions", 1, id=ident)) == [
        Finding(("collisions", 1, "id"), f'collision "{ident}" has an empty or duplicate id')
    ]


def test_a_collision_member_must_be_a_packet_or_a_lever() -> None:
    assert validate(edited("collisions", 1, members=("w2", "nope", "c.y"))) == [
        Finding(("collisions", 1, "members", 1), 'collision "lease" names unknown packet or lever "nope"')
    ]


def test_a_constraint_lists_only_dependency_ready_levers() -> None:
    assert validate(edited("constraints", 0, ready_lever_ids=("m.a", "m.base"))) == [
        Finding(
            ("constraints", 0, "ready_lever_ids", 1),
            'constraint "c1" lists "m.base", which is not a dependency-ready lever',
        )
    ]


def test_a_shared_envelope_collision_lists_exactly_the_ready_levers_of_one_envelope() -> None:
    assert validate(edited("collisions", 0, members=("m.a",))) == [
        Finding(
            ("collisions", 0, "members"),
            'shared-envelope collision "metal-envelope" must list exactly the ready levers of one envelope',
        )
    ]
    assert validate(edited("collisions", 0, members=("c.x",))) == []  # the ready levers of cuda
    assert validate(edited("collisions", 1, members=("m.a",))) == []  # other kinds are not checked
    after_another_kind = [DATA["collisions"][1], {**DATA["collisions"][0], "members": ["m.b"]}]
    assert validate(replaced(collisions=after_another_kind)) == [
        Finding(
            ("collisions", 1, "members"),
            'shared-envelope collision "metal-envelope" must list exactly the ready levers of one envelope',
        )
    ]


def test_a_wave_lists_every_ready_lever_of_its_envelope() -> None:
    assert validate(edited("ready_waves", 0, ready_lever_ids=("m.a",))) == [
        Finding(("ready_waves",), 'dependency-ready lever "m.b" is missing from current waves'),
        Finding(
            ("ready_waves", 0, "ready_lever_ids"),
            'current ready wave "metal" must list every ready lever of envelope "metal"',
        ),
    ]


def test_a_wave_of_an_envelope_without_ready_levers_is_left_to_the_upstream_rules() -> None:
    waves = [*DATA["ready_waves"], {"id": "rocm", "envelope_id": "rocm", "ready_lever_ids": ["c.x"]}]
    assert validate(replaced(ready_waves=waves)) == [
        Finding(
            ("ready_waves", 2, "ready_lever_ids", 0), 'current ready wave "rocm" has unknown or duplicate lever "c.x"'
        )
    ]


def test_a_broken_lever_graph_suppresses_the_wave_and_ready_arm_checks() -> None:
    # m.a is no longer ready, so the constraint, the collision and the wave would all disagree.
    assert validate(edited("levers", 1, dependency_ids=("m.base", "ghost"))) == [
        Finding(("levers", 1, "dependency_ids", 1), "lever 'm.a' references unknown lever 'ghost'")
    ]


@pytest.mark.parametrize(("packet", "order"), [(1, 1), (2, -1)])
def test_a_program_order_is_not_repeated_in_a_program_nor_negative(packet: int, order: int) -> None:
    ident = f"w{packet + 1}"
    assert validate(edited("work_packets", packet, program_order=order)) == [
        Finding(
            ("work_packets", packet, "program_order"),
            f'work packet "{ident}" repeats program_order {order} in program "p1"',
        )
    ]


def test_order_zero_repeats_and_other_programs_reuse_orders() -> None:
    assert validate(edited("work_packets", 1, program_order=0)) == []
    programs = [*DATA["programs"], {**DATA["programs"][0], "id": "p2"}]
    packets = [dict(p) for p in DATA["work_packets"]]
    packets[1].update(program_id="p2", program_order=1)
    assert validate(replaced(programs=programs, work_packets=packets)) == []


@pytest.mark.parametrize("number", [0, -3])
def test_an_explicit_review_issue_is_positive(number: int) -> None:
    assert validate(edited("constraints", 1, review_issue=number)) == [
        Finding(("constraints", 1, "review_issue"), 'constraint "c2" review_issue must be > 0')
    ]
    assert validate(edited("constraints", 1, review_issue=1)) == []


def test_the_review_issue_is_explicit_else_the_first_issue_of_the_owner() -> None:
    assert review_issue(7, "issue #41") == 7
    assert review_issue(None, "leaves #9495/#9497 and #9498") == 9495
    assert review_issue(None, "no issue") is None


def test_a_retired_constraint_is_neither_current_nor_repeated() -> None:
    assert validate(edited("retired_constraints", 0, id="c2")) == [
        Finding(("retired_constraints", 0, "id"), 'retired constraint "c2" is duplicate or still current')
    ]
    twice = DATA["retired_constraints"] * 2
    assert validate(replaced(retired_constraints=twice)) == [
        Finding(("retired_constraints", 1, "id"), 'retired constraint "old" is duplicate or still current')
    ]


def test_a_ledger_entry_is_recorded_once() -> None:
    ledger = [*DATA["ledger"], DATA["ledger"][0]]
    assert validate(replaced(ledger=ledger)) == [
        Finding(("ledger", 2, "comment_id"), "ledger records line 1 of comment 101 twice")
    ]


def test_a_ledger_that_grows_one_entry_at_a_time_is_told_each_entry_recorded_twice() -> None:
    # As a run validates after each command: the entries so far, then one more, each time.
    clean = valid()
    entry = clean.ledger[0].model_copy(update={"comment_id": 999})
    grown = clean.model_copy(update={"ledger": (*clean.ledger, entry)})
    assert validate(grown, clean=clean) == []
    again = grown.model_copy(update={"ledger": (*grown.ledger, entry.model_copy())})
    assert validate(again, clean=grown) == [
        Finding(("ledger", 3, "comment_id"), "ledger records line 1 of comment 999 twice")
    ]
    assert validate(grown.model_copy(update={"ledger": (*clean.ledger, clean.ledger[1])}), clean=clean) == [
        Finding(("ledger", 2, "comment_id"), "ledger records line 2 of comment 101 twice")
    ]


PIPE = "'|' would break the table cell; rephrase it"
HTML = "HTML markup would break the table; rephrase it"
BREAK = "a line break would break the table cell; use one line"
CONTROL = "a control character or line separator would break the page; use plain text"
BIDI = "a bidirectional control character would reorder the text around it; remove it"
BACKSLASH = "a trailing backslash would escape the markup that follows it on the page; remove it"
WORKFLOW = "'::' at the start or '##[' would be read as a GitHub Actions command; rephrase it"


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("a|b", [PIPE]),
        ("see <b>this</b>", [HTML]),
        ("</td>", [HTML]),
        ("<!-- hidden -->", [HTML]),
        ("<?php", [HTML]),
        ("a\nb", [BREAK]),
        ("a\rb", [BREAK]),
        ("a|b <i>\n", [PIPE, HTML, BREAK]),
        ("a < b, <3, 5>4", []),
        ("a\x07b", [CONTROL]),
        ("a\u2028b", [CONTROL]),
        ("a\u202eb", [BIDI]),
        ("ends in \\", [BACKSLASH]),
        ("ends in \\\\\\", [BACKSLASH]),
        ("ends in \\\\", []),  # an escaped backslash escapes nothing
        ("a \\ inside", []),
        ("::warning::x", [WORKFLOW]),
        ("  ::x", [WORKFLOW]),
        ("a ##[group] b", [WORKFLOW]),
        ("a :: b", []),
        ("\x07 a|b", [CONTROL, PIPE]),
    ],
)
def test_a_table_cell_holds_nothing_that_breaks_the_table_the_page_or_a_log(text: str, problems: list[str]) -> None:
    found = validate(edited("constraints", 0, driver=text))
    assert found == [Finding(("constraints", 0, "driver"), f'constraints "c1" driver: {p}') for p in problems]


@pytest.mark.parametrize(
    ("section", "index", "field", "name"),
    [
        ("work_packets", 1, "lane", 'work_packets "w2" lane'),
        ("oss_states", 2, "meaning", 'oss_states "studied" meaning'),
        ("oss_routes", 0, "seam", 'oss_routes "org/repo" seam'),
        ("oss_walk", 1, "exit", 'oss_walk "1" exit'),
        ("ledger", 1, "effect", 'ledger "1" effect'),
    ],
)
def test_a_cell_finding_names_the_item_by_its_id_or_position(section: str, index: int, field: str, name: str) -> None:
    assert validate(edited(section, index, **{field: "x|y"})) == [Finding((section, index, field), f"{name}: {PIPE}")]


def test_a_nested_cell_is_named_by_its_path_inside_the_item() -> None:
    snapshot = edited("work_packets", 2, paths=("src/ok/**", "src/a|b"))
    assert validate(snapshot) == [Finding(("work_packets", 2, "paths", 1), f'work_packets "w3" paths.1: {PIPE}')]
    evidence = edited(
        "constraints", 1, evidence=(valid().constraints[1].evidence[0].model_copy(update={"ref": "<a>"}),)
    )
    assert validate(evidence) == [
        Finding(("constraints", 1, "evidence", 0, "ref"), f'constraints "c2" evidence.0.ref: {HTML}')
    ]


def test_a_top_level_text_is_named_by_its_key() -> None:
    found = validate(valid().model_copy(update={"schema_": "x|y"}))
    assert Finding(("schema",), f"schema: {PIPE}") in found


def test_every_list_of_records_and_nothing_else_is_checked_record_by_record() -> None:
    # Worked out once, as the module is imported, so only a call here sees a change to it.
    assert _record_lists() == {
        "constraints",
        "programs",
        "work_packets",
        "ready_waves",
        "collisions",
        "oss_states",
        "oss_walk",
        "oss_routes",
        "levers",
        "retired_constraints",
        "ledger",
    }


def test_the_definition_is_one_line_and_may_hold_a_pipe() -> None:
    assert validate(valid().model_copy(update={"definition": "a | b <i>"})) == []
    for text in ("a\nb", "a\rb"):
        assert validate(valid().model_copy(update={"definition": text})) == [
            Finding(("definition",), "definition must be one line")
        ]


def test_a_top_level_text_is_checked_for_what_cannot_be_printed() -> None:
    found = validate(valid().model_copy(update={"definition": "::error::x"}))
    assert found == [Finding(("definition",), f"definition: {WORKFLOW}")]


# model_copy does not validate: a list where the model keeps a tuple makes the record unhashable
# (and pydantic warns when it dumps it).
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_a_record_that_cannot_be_hashed_is_checked_all_the_same() -> None:
    packets = valid().work_packets
    packet = packets[1].model_copy(update={"paths": ["src/ok/**", "src/a|b"]})
    snapshot = valid().model_copy(update={"work_packets": (packets[0], packet, packets[2])})
    assert validate(snapshot) == [Finding(("work_packets", 1, "paths", 1), f'work_packets "w2" paths.1: {PIPE}')]


@pytest.mark.parametrize(
    ("loc", "name"),
    [
        (("schema",), "schema"),
        (("work_packets", 1, "next_action"), 'work_packets "w2" next_action'),
        (("constraints", 1, "evidence", 0, "ref"), 'constraints "c2" evidence.0.ref'),
        (("oss_routes", 0, "seam"), 'oss_routes "org/repo" seam'),  # by its source, not its state
        (("oss_states", 2, "meaning"), 'oss_states "studied" meaning'),
        (("oss_walk", 1, "exit"), 'oss_walk "1" exit'),  # no id: by its position
    ],
)
def test_a_location_is_named_for_a_message_by_section_id_and_path(loc: tuple[str | int, ...], name: str) -> None:
    assert _name(valid(), loc) == name


def test_the_same_snapshot_validated_again_gives_the_same_findings() -> None:
    snapshot = edited("work_packets", 1, next_action="x|y")
    first = validate(snapshot)
    assert first == [Finding(("work_packets", 1, "next_action"), f'work_packets "w2" next_action: {PIPE}')]
    assert validate(snapshot) == first  # the second time from what the first worked out


def test_a_record_kept_by_the_next_snapshot_is_named_at_its_new_place() -> None:
    before = edited("work_packets", 1, next_action="x|y")
    assert validate(before) == [Finding(("work_packets", 1, "next_action"), f'work_packets "w2" next_action: {PIPE}')]
    kept = before.work_packets
    after = before.model_copy(update={"work_packets": (kept[0], kept[2], kept[1])})  # the same objects, reordered
    assert validate(after) == [Finding(("work_packets", 2, "next_action"), f'work_packets "w2" next_action: {PIPE}')]


def test_a_field_is_named_by_its_key_in_the_file() -> None:
    evidence = valid().constraints[1].evidence[0].model_copy(update={"class_": "a|b"})
    found = validate(edited("constraints", 1, evidence=(evidence,)))
    assert found == [Finding(("constraints", 1, "evidence", 0, "class"), f'constraints "c2" evidence.0.class: {PIPE}')]


def test_a_record_kept_in_place_behind_a_changed_one_keeps_its_findings() -> None:
    before = edited("work_packets", 2, next_action="x|y")
    finding = Finding(("work_packets", 2, "next_action"), f'work_packets "w3" next_action: {PIPE}')
    assert validate(before) == [finding]
    kept = before.work_packets
    changed = kept[0].model_copy(update={"next_action": "a|b"})
    after = before.model_copy(update={"work_packets": (changed, *kept[1:])})
    first = Finding(("work_packets", 0, "next_action"), f'work_packets "w1" next_action: {PIPE}')
    # the first record is new, and checked anew; the third is the same object, in place
    assert validate(after) == [first, finding]


def test_a_section_that_grew_reports_the_findings_of_its_first_records_once() -> None:
    before = edited("work_packets", 0, next_action="x|y")
    finding = Finding(("work_packets", 0, "next_action"), f'work_packets "w1" next_action: {PIPE}')
    assert validate(before) == [finding]
    added = before.work_packets[1].model_copy(update={"id": "w9", "issue": 99})
    after = before.model_copy(update={"work_packets": (*before.work_packets, added)})
    assert validate(after).count(finding) == 1


# Every character a check looks for, the ones JSON escapes, and their near misses.
_RISKY = st.text(
    alphabet=st.sampled_from(
        list('ab :|<>#[]!?/\\"\t\n\r\x00\x07\x1f\x7f\x85\x9f\xa0\u2028\u2029\u061c\u200e\u202e\u2066\u3000')
    ),
    max_size=8,
)


@settings(max_examples=examples(300, bounded=100), deadline=None)
@given(lane=_RISKY, path=_RISKY, ref=_RISKY)
def test_a_record_is_passed_over_only_when_walking_its_texts_finds_nothing(lane: str, path: str, ref: str) -> None:
    """The one search over a record's JSON never hides what the walk over its texts reports."""
    packet = valid().work_packets[1].model_copy(update={"lane": lane, "paths": ("src/**", path)})
    constraint = valid().constraints[1]
    constraint = constraint.model_copy(update={"evidence": (constraint.evidence[0].model_copy(update={"ref": ref}),)})
    assert _record_cells("work_packets", 1, packet) == _walked_cells("work_packets", 1, packet)
    assert _record_cells("constraints", 1, constraint) == _walked_cells("constraints", 1, constraint)


# Every text a cell check can flag holds one of these: a character `_SUSPECT` finds alone, or a
# run it finds only together, or a trailing backslash.
_TRIGGERS = [
    *(chr(n) for n in range(0x10000) if not 0xD800 <= n < 0xE000 and _SUSPECT.search(chr(n))),
    "  ::x",
    "a ##[b",
    "<a",
    "</",
    "<!",
    "<?",
    "ends in \\",
]


@pytest.mark.parametrize("text", _TRIGGERS, ids=[f"U+{ord(t[0]):04X}-{len(t)}" for t in _TRIGGERS])
def test_no_text_a_check_flags_is_passed_over(text: str) -> None:
    packet = valid().work_packets[1].model_copy(update={"lane": f"x{text}" if text[0] != " " else text})
    found = _walked_cells("work_packets", 1, packet)
    assert found  # each trigger is one the walk reports
    assert _record_cells("work_packets", 1, packet) == found


def test_a_lone_surrogate_is_walked_rather_than_written_as_json() -> None:
    packet = valid().work_packets[1].model_copy(update={"lane": "a\ud800|b"})
    assert _record_cells("work_packets", 1, packet) == _walked_cells("work_packets", 1, packet) != ()


def test_a_clean_snapshots_own_records_are_passed_over_and_a_changed_one_is_checked() -> None:
    before = valid()
    bad_packet = before.work_packets[1].model_copy(update={"lane": "x|y"})
    changed = before.model_copy(update={"work_packets": (before.work_packets[0], bad_packet, *before.work_packets[2:])})
    # Only the changed record is read again, and it is found as a whole validation finds it.
    assert (
        validate(changed, clean=before)
        == validate(changed)
        == [Finding(("work_packets", 1, "lane"), f'work_packets "w2" lane: {PIPE}')]
    )
    # A record the clean snapshot holds (the same object) is not read again, even if it were bad:
    # the caller vouches that `clean` has no finding.
    assert validate(changed, clean=changed) == []
    # Texts outside the lists of records are checked when one of them is not `clean`'s.
    assert Finding(("schema",), f"schema: {PIPE}") in validate(
        changed.model_copy(update={"schema_": "x|y"}), clean=changed
    )


def test_a_check_none_of_whose_fields_changed_from_a_clean_snapshot_is_passed_over() -> None:
    # The caller vouches that `clean` has no finding; here it has one, in a constraint, which a
    # change to the packets alone leaves as it was (the same object), so no check reads it again.
    clean = edited("constraints", 0, driver=" ")
    packet = clean.work_packets[1].model_copy(update={"lane": "metal"})
    changed = clean.model_copy(update={"work_packets": (clean.work_packets[0], packet, *clean.work_packets[2:])})
    assert any(f.loc[0] == "constraints" for f in validate(changed))
    assert validate(changed, clean=clean) == []
    # A change to the constraints reads them again.
    moved = clean.model_copy(update={"constraints": clean.constraints[::-1]})
    assert any(f.loc[0] == "constraints" for f in validate(moved, clean=clean))


def test_a_check_may_read_only_the_fields_it_declares() -> None:
    fields = _Fields(valid(), frozenset({"levers"}))
    assert fields.levers == valid().levers
    with pytest.raises(AttributeError, match="'constraints'"):
        _ = fields.constraints


def test_a_check_declared_by_attributes_reads_only_those_of_each_record() -> None:
    fields = _Fields(valid(), frozenset({"constraints.id", "constraints.state"}))
    assert [(c.id, c.state) for c in fields.constraints] == [(c.id, c.state) for c in valid().constraints]
    with pytest.raises(AttributeError, match=r"constraints\.'driver'"):
        _ = fields.constraints[0].driver


def test_a_check_whose_attributes_are_the_clean_snapshots_is_passed_over() -> None:
    # The caller vouches that `clean` has no finding; here a packet has one. A constraint changed
    # but for its id leaves what the packets check reads of the constraints as it was.
    clean = edited("work_packets", 1, lane=" ")
    constraint = clean.constraints[0].model_copy(update={"next_action": "another next action"})
    changed = clean.model_copy(update={"constraints": (constraint, *clean.constraints[1:])})
    assert any(f.loc[0] == "work_packets" for f in validate(changed))
    assert not any(f.loc[0] == "work_packets" for f in validate(changed, clean=clean))
    # A constraint renamed is read again by every check that reads constraint ids.
    renamed = clean.model_copy(
        update={"constraints": (constraint.model_copy(update={"id": "c-other"}), *clean.constraints[1:])}
    )
    assert any(f.loc[0] == "work_packets" for f in validate(renamed, clean=clean))


def test_a_packet_another_change_left_as_it_was_is_not_read_again() -> None:
    # The caller vouches that `clean` has no finding; here packet 1 has one. A change to packet 0
    # that leaves every id and state as it was reads packet 0 alone.
    clean = edited("work_packets", 1, lane=" ")
    packet = clean.work_packets[0].model_copy(update={"next_action": "another next action"})
    changed = clean.model_copy(update={"work_packets": (packet, *clean.work_packets[1:])})
    assert any(f.loc[:2] == ("work_packets", 1) for f in validate(changed))
    assert validate(changed, clean=clean) == []
    # A packet changed to have a finding is found.
    bad = clean.model_copy(update={"work_packets": (packet.model_copy(update={"owner": " "}), *clean.work_packets[1:])})
    assert [f.loc for f in validate(bad, clean=clean)] == [("work_packets", 0, "owner")]
    # A state changed reads every packet again: another may name it as a satisfied dependency.
    moved = clean.model_copy(
        update={"work_packets": (packet.model_copy(update={"state": "running"}), *clean.work_packets[1:])}
    )
    assert any(f.loc[:2] == ("work_packets", 1) for f in validate(moved, clean=clean))
