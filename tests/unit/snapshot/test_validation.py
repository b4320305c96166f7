"""Every invariant has a failing fixture: an edit of the seed, the message, and the line it names."""

from __future__ import annotations

import re

import pytest

from bot.errors import InputError
from bot.snapshot.checked import checked_text
from bot.snapshot.model import Snapshot
from bot.snapshot.store import parse_model
from bot.snapshot.validation import validate

FILE = "snapshot.yaml"
M1_LANE = "    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    next_action: 'Assign #8325"
M1_STATE = "    state: ready\n    owner: unassigned\n    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    next_action: 'Assign"
DEFINITION = (
    "definition: An active constraint is the presently evidenced condition limiting a named performance outcome."
)


def problems(text: str) -> list[str]:
    try:
        checked_text(text, FILE)
    except InputError as error:
        return [str(p) for p in error.problems]
    return []


def line_of(text: str, anchor: str) -> int:
    """Line (1-based) where `anchor` starts; the anchor must occur exactly once."""
    assert text.count(anchor) == 1, f"anchor not unique: {anchor!r}"
    return text[: text.index(anchor)].count("\n") + 1


def edit(text: str, old: str, new: str) -> str:
    assert old in text, f"edit target missing: {old!r}"
    return text.replace(old, new, 1)


# (case id, old text, new text, expected message fragment, anchor naming the reported line)
CASES = [
    (
        "1-schema",
        "schema: fak-native-performance-current/2",
        "schema: fak-native-performance-current/3",
        "current snapshot identity is incomplete",
        "schema: fak-native-performance-current/3",
    ),
    ("1-definition", DEFINITION, "definition: ' '\n#", "current snapshot identity is incomplete", "definition: ' '"),
    ("2-as_of", "as_of: 2026-08-27", "as_of: 2026-02-30", "is not a valid date", "as_of: 2026-02-30"),
    ("2-as_of-padded", "as_of: 2026-08-27", "as_of: ' 2026-08-27'", "is not a valid date", "as_of: ' 2026"),
    (
        "3-duplicate-constraint",
        "  - id: measurement-control-loop\n",
        "  - id: active-native-lane-collision\n",
        'duplicate current constraint "active-native-lane-collision"',
        "  - id: active-native-lane-collision\n    name: Real",
    ),
    (
        "4-incomplete-constraint",
        "    envelope: portfolio\n    driver: 'The live",
        "    envelope: ''\n    driver: 'The live",
        'current constraint "active-native-lane-collision" is incomplete: envelope is blank',
        "envelope: ''",
    ),
    (
        "4-enum",
        "    type: coordination\n",
        "    type: coordinate\n",
        "Input should be 'correctness'",
        "type: coordinate",
    ),
    (
        "5-review-before-observed",
        "review_by: 2026-08-28",
        "review_by: 2026-08-26",
        "has invalid observed/review dates: review_by 2026-08-26 is before observed_at 2026-08-27",
        "review_by: 2026-08-26",
    ),
    (
        "5-review-before-as-of",
        "review_by: 2026-08-27",
        "review_by: 2026-08-26",
        "review_by 2026-08-26 is before as_of 2026-08-27",
        "review_by: 2026-08-26",
    ),
    (
        "6-evidence",
        "ref: dos lease-lane live (2026-08-27T16:24:05Z readback)",
        "ref: ' '",
        'current constraint "active-native-lane-collision" has incomplete evidence: ref blank',
        "ref: ' '",
    ),
    (
        "7-program",
        "authority_issue: 9430",
        "authority_issue: 0",
        'invalid execution program "mac-top10": authority_issue must be > 0',
        "authority_issue: 0",
    ),
    (
        "8-program-constraint",
        "constraint_ids: [cuda-cache-correctness]",
        "constraint_ids: [cuda-cache-correctnes]",
        'execution program "cuda-cache-hit" references unknown constraint "cuda-cache-correctnes"',
        "constraint_ids: [cuda-cache-correctnes]",
    ),
    (
        "9-duplicate-packet",
        "  - id: mac.m3-q8-gdn-handoff\n",
        "  - id: mac.m2-whole-sequence-prefill\n",
        'duplicate or empty work packet "mac.m2-whole-sequence-prefill"',
        "  - id: mac.m2-whole-sequence-prefill\n    name: M3",
    ),
    (
        "10-packet-lane",
        "    lane: metal\n",
        "    lane: ''\n",
        'invalid work packet "mac.m3-q8-gdn-handoff": lane is blank',
        "lane: ''",
    ),
    (
        "10-packet-program",
        "    program_id: cuda-cache-hit\n",
        "    program_id: nope\n",
        'invalid work packet "cuda.cache-weight-residency": unknown program "nope"',
        "program_id: nope",
    ),
    (
        "10-packet-issue",
        "    issue: 9216\n",
        "    issue: -1\n",
        'invalid work packet "mac.m3-q8-gdn-handoff": issue must be > 0',
        "issue: -1",
    ),
    (
        "10-packet-paths",
        "paths: [internal/metalgemm/**, internal/model/**]",
        "paths: []",
        'invalid work packet "mac.m3-q8-gdn-handoff": paths is empty',
        "paths: []",
    ),
    (
        "11-packet-constraint",
        "constraint_ids: [metal-startup-capacity]",
        "constraint_ids: [metal-startup]",
        'work packet "mac.m1-streamed-q4k-no-copy" references unknown constraint "metal-startup"',
        "[metal-startup]",
    ),
    (
        "12-blocker",
        "blocked_by_ids: [cuda.cache-weight-residency]",
        "blocked_by_ids: [cuda.nope]",
        'work packet "cuda.q8_1-numerical-gate" references invalid dependency/blocker "cuda.nope"',
        "[cuda.nope]",
    ),
    (
        "12-self",
        "hard_dependency_ids: [mac.m3-q8-gdn-handoff]",
        "hard_dependency_ids: [mac.m4-coarse-resident-decode]",
        'references invalid dependency/blocker "mac.m4-coarse-resident-decode"',
        "[mac.m4-coarse-resident-decode]",
    ),
    (
        "13-complete-without-result",
        M1_STATE,
        M1_STATE.replace("state: ready", "state: complete"),
        'work packet "mac.m1-streamed-q4k-no-copy" has no accepted result',
        "  - id: mac.m1-streamed-q4k-no-copy",
    ),
    (
        "14-result-while-open",
        "    next_action: Dispatch only after M2",
        "    result: done early\n    next_action: Dispatch only after M2",
        'work packet "mac.m3-q8-gdn-handoff" needs a next action and no result',
        "result: done early",
    ),
    (
        "14-no-next-action",
        "    next_action: Dispatch only after M2 establishes the sequence owner; isolate the Q8-to-GDN handoff in that submission.\n",
        "",
        'work packet "mac.m3-q8-gdn-handoff" needs a next action and no result',
        "  - id: mac.m3-q8-gdn-handoff",
    ),
    (
        "15-related",
        "    issue: 8325\n",
        "    issue: 8325\n    related_issues: [8325]\n",
        'work packet "mac.m1-streamed-q4k-no-copy" has invalid or duplicate related issue #8325',
        "related_issues: [8325]",
    ),
    (
        "16-satisfied-open",
        "hard_dependency_ids: [mac.m2-whole-sequence-prefill]",
        "satisfied_dependency_ids: [mac.m2-whole-sequence-prefill]",
        'satisfied dependency "mac.m2-whole-sequence-prefill" is not a complete packet',
        "satisfied_dependency_ids: [mac.m2",
    ),
    (
        "17-open-and-satisfied",
        "hard_dependency_ids: [mac.m1-streamed-q4k-no-copy]\n",
        "hard_dependency_ids: [mac.m1-streamed-q4k-no-copy]\n    satisfied_dependency_ids: [mac.m1-streamed-q4k-no-copy]\n",
        'dependency "mac.m1-streamed-q4k-no-copy" is both open and satisfied',
        "satisfied_dependency_ids: [mac.m1",
    ),
    (
        "18-lever-unknown",
        "dependency_ids: [metal.paged-kv]",
        "dependency_ids: [metal.paged]",
        "lever 'metal.prefix-reuse' references unknown lever 'metal.paged'",
        "dependency_ids: [metal.paged]",
    ),
    (
        "18-lever-cycle",
        "    dependency_ids: [metal.resident-q4k-weights]\n  - id: metal.fused",
        "    dependency_ids: [metal.fused-hybrid-graph-coverage]\n  - id: metal.fused",
        "lever dependency cycle: metal.command-buffer-amortization -> metal.fused-hybrid-graph-coverage -> metal.command-buffer-amortization",
        "    dependency_ids: [metal.fused-hybrid-graph-coverage]\n  - id: metal.fused",
    ),
    (
        "18-lever-asymmetric",
        "conflict_ids: [cuda.scalar-f32-activation-baseline]",
        "conflict_ids: []",
        "lever conflict 'cuda.scalar-f32-activation-baseline' -> 'cuda.q8_1-activation-quant' is not symmetric",
        "conflict_ids: [cuda.q8_1-activation-quant]",
    ),
    (
        "18-lever-cross-envelope",
        "    dependency_ids: [cuda.dp4a-q4k-mmvq]",
        "    dependency_ids: [cuda.dp4a-q4k-mmvq, metal.paged-kv]",
        "lever 'cuda.default-decode-routing' has a cross-envelope edge to 'metal.paged-kv'",
        "[cuda.dp4a-q4k-mmvq, metal.paged-kv]",
    ),
    (
        "19-wave",
        "    envelope_id: qwen38-27b-q4k-a100-p1-decode\n    ready_lever_ids",
        "    envelope_id: ''\n    ready_lever_ids",
        'current ready wave "cuda" is invalid',
        "  - id: cuda\n",
    ),
    (
        "20-wave-lever",
        "ready_lever_ids: [cuda.q8_1-activation-quant]\n    parallel_with",
        "ready_lever_ids: [cuda.q8_1-activation-quant, metal.paged-kv]\n    parallel_with",
        'current ready wave "cuda" has unknown or duplicate lever "metal.paged-kv"',
        "[cuda.q8_1-activation-quant, metal.paged-kv]",
    ),
    (
        "21-serial-reason",
        "    serial_reason: The Q8_1 candidate",
        "    serial_reason: ''\n    #",
        'current ready wave "cuda" lacks serial reason',
        "serial_reason: ''",
    ),
    (
        "22-coverage",
        "ready_lever_ids: [metal.command-buffer-amortization, metal.paged-kv, metal.chunked-prefill]",
        "ready_lever_ids: [metal.command-buffer-amortization, metal.paged-kv]",
        'dependency-ready lever "metal.chunked-prefill" is missing from current waves',
        "ready_waves:",
    ),
    (
        "23-parallel-peer",
        "parallel_with: [metal]",
        "parallel_with: [rocm]",
        'current ready wave "cuda" has invalid parallel peer "rocm"',
        "parallel_with: [rocm]",
    ),
    (
        "24-oss-state",
        "  - state: watch\n",
        "  - state: kept\n",
        'invalid OSS state definition "kept"',
        "  - state: kept\n    meaning: The adapted",
    ),
    ("25-missing-oss-state", "  - state: watch\n", "  - state: watching\n", 'missing OSS state "watch"', "oss_states:"),
    ("26-walk", "  - order: 2\n", "  - order: 9\n", "invalid OSS walk step at index 1", "  - order: 9\n"),
    (
        "27-route",
        "revision: 536f570e6692eec0656ef9689db7591ca1d0e0a7",
        "revision: ''",
        'invalid OSS route "sgl-project/sglang"',
        "  - source: sgl-project/sglang",
    ),
    (
        "27-route-constraint",
        "proposed_constraint_ids: [native-serving-stack]",
        "proposed_constraint_ids: [native-serving]",
        'OSS route "sgl-project/sglang" references unknown constraint "native-serving"',
        "[native-serving]",
    ),
    (
        "ours-packet-cycle",
        M1_LANE,
        M1_LANE.replace("    next_action", "    hard_dependency_ids: [mac.m2-whole-sequence-prefill]\n    next_action"),
        "work packet dependency cycle: mac.m1-streamed-q4k-no-copy -> mac.m2-whole-sequence-prefill -> mac.m1-streamed-q4k-no-copy",
        "    hard_dependency_ids: [mac.m2-whole-sequence-prefill]\n    next_action: 'Assign",
    ),
    (
        "ours-collision-member",
        "members: [cuda.cache-weight-residency, cuda.q8_1-numerical-gate]",
        "members: [cuda.cache-weight-residency, cuda.q8_1-gate]",
        'collision "live-model-compute-lease" names unknown packet or lever "cuda.q8_1-gate"',
        "cuda.q8_1-gate]",
    ),
    (
        "ours-pipe",
        "name: Live model/compute lane collision",
        "name: Live model|compute lane collision",
        "constraints \"active-native-lane-collision\" name: '|' would break the table cell",
        "model|compute",
    ),
    (
        "ours-newline",
        "name: Live model/compute lane collision",
        'name: "Live model\\ncompute lane collision"',
        'constraints "active-native-lane-collision" name: a line break would break the table cell',
        "Live model\\n",
    ),
    (
        "ours-constraint-ready",
        "ready_lever_ids: [metal.command-buffer-amortization]\n",
        "ready_lever_ids: [metal.prefix-reuse]\n",
        'constraint "metal-resident-decode" lists "metal.prefix-reuse", which is not a dependency-ready lever',
        "[metal.prefix-reuse]",
    ),
    (
        "ours-envelope-collision",
        "    kind: shared-envelope\n    members: [metal.command-buffer-amortization, metal.paged-kv, metal.chunked-prefill]",
        "    kind: shared-envelope\n    members: [metal.command-buffer-amortization, metal.paged-kv]",
        'shared-envelope collision "metal-envelope" must list exactly the ready levers of one envelope',
        "    members: [metal.command-buffer-amortization, metal.paged-kv]\n",
    ),
    (
        "ours-review-issue",
        "    authority_owner: 'DOS lease WAL; issue #9420'\n",
        "    authority_owner: 'DOS lease WAL; issue #9420'\n    review_issue: 0\n",
        'constraint "active-native-lane-collision" review_issue must be > 0',
        "review_issue: 0",
    ),
    (
        "ours-program-order",
        "    issue: 9230\n    program_order: 2\n",
        "    issue: 9230\n    program_order: 1\n",
        'work packet "mac.m2-whole-sequence-prefill" repeats program_order 1 in program "mac-top10"',
        "program_order: 1\n    state: waiting-dependency\n    owner: unassigned\n    lane: hardware+docs\n    paths: [docs/_witnesses/**]\n    hard_dependency_ids: [mac.m1-streamed-q4k-no-copy]\n    next_action: 'After M1 establishes",
    ),
    (
        "load-duplicate-key",
        "    name: Live model/compute lane collision\n",
        "    name: Live model/compute lane collision\n    name: again\n",
        "duplicate key 'name'",
        "name: again",
    ),
    (
        "load-wrong-type",
        "    issue: 9420\n",
        "    issue: nine\n",
        "issue: 'nine' is not an issue: write an issue number",
        "issue: nine",
    ),
    (
        "load-unknown-key",
        "    lane: metal\n",
        "    lane: metal\n    colour: red\n",
        "colour: unknown key",
        "colour: red",
    ),
    ("load-missing-key", "    lane: metal\n", "", "lane: required key is missing", "  - id: mac.m3-q8-gdn-handoff"),
    ("load-syntax", "    lane: metal\n", "    lane: 'metal\n", "", "    lane: 'metal"),
]


@pytest.mark.parametrize(("old", "new", "message", "anchor"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_invariant_is_reported_with_its_line(
    seed_text: str, old: str, new: str, message: str, anchor: str
) -> None:
    text = edit(seed_text, old, new)
    found = problems(text)
    assert found, "the edit should make the snapshot invalid"
    if anchor == "    lane: 'metal":
        # A scanner error is reported where the scanner gave up: at or after the broken scalar.
        assert re.match(rf"{FILE}:\d+:\d+: ", found[0])
        assert int(found[0].split(":")[1]) >= line_of(text, anchor)
        return
    line = line_of(text, anchor)
    matching = [p for p in found if message in p]
    assert matching, f"no problem says {message!r}: {found}"
    assert any(p.startswith(f"{FILE}:{line}:") for p in matching), f"expected line {line}: {matching}"


def test_the_seed_and_the_newest_fixture_are_valid(seed_text: str) -> None:
    assert problems(seed_text) == []


def test_the_seed_as_schema_one_has_programs_packets_and_states_schema_one_lacks(seed_text: str) -> None:
    text = edit(seed_text, "schema: fak-native-performance-current/2", "schema: fak-native-performance-current/1")
    programs, packets = (
        line_of(text, "programs:\n  - id: mac-top10"),
        line_of(text, "work_packets:\n  - id: cuda.cache"),
    )
    found = problems(text)
    assert f"{FILE}:{programs}:1: schema fak-native-performance-current/1 has no programs" in found
    assert f"{FILE}:{packets}:1: schema fak-native-performance-current/1 has no work_packets" in found
    assert sum("is not a state of schema /1" in p for p in found) == 4  # two waiting-coordination, two -dependency


def test_a_duplicate_lever_id_is_one_problem_naming_it(seed_text: str) -> None:
    # `metal.prefix-reuse` renamed to the lever it depends on: read as written, the repeat names
    # itself and makes a cycle; only the repeated id is the mistake.
    text = edit(seed_text, "  - id: metal.prefix-reuse\n", "  - id: metal.paged-kv\n")
    line = line_of(
        text,
        "  - id: metal.paged-kv\n    envelope_id: qwen38-27b-q4km-m3pro-p32-t64\n    enabled: false\n    dependency_ids: [metal.paged-kv]",
    )
    assert problems(text) == [f"{FILE}:{line}:5: duplicate lever id 'metal.paged-kv'"]


def test_every_problem_is_reported_not_just_the_first(seed_text: str) -> None:
    text = edit(seed_text, "    lane: metal\n", "    lane: ''\n")
    text = edit(text, "authority_issue: 9430", "authority_issue: 0")
    text = edit(text, "parallel_with: [metal]", "parallel_with: [rocm]")
    found = problems(text)
    assert len(found) == 3
    assert found == sorted(found, key=lambda p: int(p.split(":")[1]))


# The cases the model refuses as the file is read (a type or a key), before any check runs.
REFUSED_AS_READ = {"2-as_of", "2-as_of-padded", "4-enum"}
CHECKED = [c for c in CASES if c[3] and c[0] not in REFUSED_AS_READ and not c[0].startswith("load-")]


@pytest.mark.parametrize(("old", "new"), [c[1:3] for c in CHECKED], ids=[c[0] for c in CHECKED])
def test_each_invariant_is_found_when_only_the_fields_it_changed_differ_from_a_clean_snapshot(
    seed_text: str, old: str, new: str
) -> None:
    """A snapshot made from a clean one shares its unchanged fields (the same objects), as a
    command's change does; `validate` passes over a check none of whose fields changed, and must
    still find every finding a whole validation finds."""
    clean = parse_model(seed_text, FILE, Snapshot).model
    edited = parse_model(edit(seed_text, old, new), FILE, Snapshot).model
    changed = {
        name: getattr(edited, name) for name in Snapshot.model_fields if getattr(edited, name) != getattr(clean, name)
    }
    made = clean.model_copy(update=changed)
    assert changed
    assert validate(made)
    assert validate(made, clean=clean) == validate(made)
