"""Generators of malformed inputs for every reader: each draws a text perfbot must refuse with exit 1.

Every strategy starts from a valid input and breaks it in a way no reader may accept: JSON past its
bounds (deep nesting, long integers, NaN), duplicate keys, truncation, wrong types where the schema
names one, invalid UTF-8; for YAML also anchors, aliases, merge keys, tags, and text no page can show.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from bot.snapshot.model import WORK_STATES
from tests.support.paths import ROOT
from tests.support.words import LOWER, words

# A small snapshot that passes every check; `{style}` is the `result` of its one complete packet.
SMALL_SNAPSHOT = """\
# a comment that must survive
schema: fak-native-performance-current/2
as_of: 2026-08-27
definition: One line.
constraints:
  - id: c1
    name: C one
    type: evidence
    horizon: transient
    state: ready
    observed_at: 2026-08-27
    review_by: 2026-08-28
    evidence:
      - class: issue
        summary: s
        ref: r
    envelope: portfolio
    driver: d
    authority_owner: o
    next_action: n
    exit_when: e
programs:
  - id: p1
    name: P one
    authority_issue: 1
    constraint_ids: [c1]
    hero_metric: h
    current_result: c
    sequence_rule: s
work_packets:
  - id: w1
    name: W one
    program_id: p1
    constraint_ids: [c1]
    issue: 5
    state: complete
    owner: o
    lane: l
    paths: [a/**]
    result:{style}
    exit_when: e
  - id: w2
    name: W two
    program_id: p1
    constraint_ids: [c1]
    issue: 6
    state: ready
    owner: o
    lane: l
    paths: [b/**]
    next_action: n
    exit_when: e
oss_states:
  - state: watch
    meaning: m
    required_evidence: r
  - state: candidate
    meaning: m
    required_evidence: r
  - state: studied
    meaning: m
    required_evidence: r
  - state: mapped
    meaning: m
    required_evidence: r
  - state: mapped-needs-limiter
    meaning: m
    required_evidence: r
  - state: experimenting
    meaning: m
    required_evidence: r
  - state: kept
    meaning: m
    required_evidence: r
  - state: rejected
    meaning: m
    required_evidence: r
# trailing comment
"""
VALID_SNAPSHOT = SMALL_SNAPSHOT.format(style=" old value")

_SENTINEL = "\x00poison\x00"


ISSUES = frozenset(
    issue["number"]
    for issue in json.loads((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))["issues"]
)


def base_state() -> dict[str, Any]:
    state: dict[str, Any] = json.loads((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    state["comments"] = [
        {"id": 101, "issue": 8325, "user": "alice", "created_at": "2026-08-27T10:00:00Z", "body": "/perf help"}
    ]
    state["pulls"] = [{"number": 9999, "state": "open", "head": "perfbot/update", "files": {}}]
    return state


def base_event() -> dict[str, Any]:
    event: dict[str, Any] = json.loads(
        (ROOT / "tests" / "events" / "issue_comment.created.json").read_text(encoding="utf-8")
    )
    return event


def base_leases() -> list[Any]:
    leases: list[Any] = json.loads((ROOT / "config" / "leases.json").read_text(encoding="utf-8"))
    return leases


# --- JSON past its bounds ---------------------------------------------------------------------

deep = st.tuples(st.sampled_from(["[", '{"a": ']), st.integers(65, 3000) | st.just(100_000), st.booleans()).map(
    lambda t: t[0] * t[1] + ("1" + ("]" if t[0] == "[" else "}") * t[1] if t[2] else "")
)
long_integer = st.tuples(st.sampled_from(["", "-"]), st.integers(41, 6000), st.sampled_from("123456789")).map(
    lambda t: t[0] + t[2] * t[1]
)
not_a_number = st.sampled_from(["NaN", "Infinity", "-Infinity"])
POISON = deep | long_integer | not_a_number


def every_path(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the root included)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += every_path(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += every_path(item, (*path, index))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with `new` at `path` (whose last key may be new)."""
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _set(value[path[0]] if len(path) > 1 else None, path[1:], new)
    return copy


def value_at(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


@st.composite
def poisoned(draw: st.DrawFn, base: Any) -> str:
    """`base` with one value anywhere replaced by JSON past the reader's bounds."""
    path = draw(st.sampled_from(every_path(base)))
    text = json.dumps(_set(base, path, _SENTINEL), indent=draw(st.sampled_from([None, 2])))
    return text.replace(json.dumps(_SENTINEL), draw(POISON))


@st.composite
def duplicated_key(draw: st.DrawFn, base: Any) -> str:
    """`base` with one key of one object written twice."""
    objects = [p for p in every_path(base) if isinstance(value_at(base, p), dict) and value_at(base, p)]
    path = draw(st.sampled_from(objects))
    obj = value_at(base, path)
    key = draw(st.sampled_from(sorted(obj)))
    text = json.dumps(_set(base, path, {_SENTINEL: 0, **obj}))
    pair = f"{json.dumps(key)}: {json.dumps(draw(JSON_VALUES))}"
    return text.replace(f"{json.dumps(_SENTINEL)}: 0", pair)


@st.composite
def truncated(draw: st.DrawFn, base: Any, shortest: int = 0) -> str:
    """A strict prefix of a JSON container: never valid JSON."""
    text = json.dumps(base, indent=draw(st.sampled_from([None, 2])))
    return text[: draw(st.integers(shortest, len(text) - 1))]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
NOT_TEXT = st.none() | st.booleans() | st.integers() | st.lists(st.integers(), max_size=2) | st.just({"a": 1})
NOT_INTEGER = st.none() | st.booleans() | st.text(max_size=5) | st.floats(allow_nan=False) | st.just([1])


@st.composite
def wrong_field(draw: st.DrawFn, base: Any, fields: list[tuple[tuple[Any, ...], st.SearchStrategy[Any]]]) -> str:
    """`base` with one field the schema types set to a value of the wrong type or range."""
    path, values = draw(st.sampled_from(fields))
    return json.dumps(_set(base, path, draw(values)))


def not_utf8(base_text: str) -> st.SearchStrategy[bytes]:
    raw = base_text.encode("utf-8")
    return st.tuples(st.integers(0, len(raw)), st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"])).map(
        lambda t: raw[: t[0]] + t[1] + raw[t[0] :]
    )


def json_breakers(
    base: Any, fields: list[tuple[tuple[Any, ...], st.SearchStrategy[Any]]], shortest: int = 0
) -> st.SearchStrategy[str | bytes]:
    """Every way to break a JSON document `base` that a reader must refuse (`shortest`: of a prefix;
    an empty lease file is read as no leases, with a warning)."""
    return st.one_of(
        poisoned(base),
        duplicated_key(base),
        truncated(base, shortest),
        wrong_field(base, fields),
        not_utf8(json.dumps(base)),
    )


STATE_FIELDS: list[tuple[tuple[Any, ...], st.SearchStrategy[Any]]] = [
    (("issues",), st.just({"a": 1}) | st.integers() | st.text(max_size=3)),
    (("issues", 0, "number"), NOT_INTEGER | st.integers(-5, 0)),
    (("issues", 0, "state"), st.text(max_size=5).filter(lambda s: s not in ("open", "closed"))),
    (("issues", 1, "number"), st.just(8324)),  # the number of issues.0: a duplicate
    (("comments", 0, "id"), NOT_INTEGER | st.integers(-5, 0)),
    (("comments", 0, "issue"), st.integers(1, 10**6).filter(lambda n: n not in ISSUES)),
    (
        ("comments", 0, "created_at"),
        # Not numbers: pydantic reads those as Unix times.
        st.sampled_from(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "2026-08-27T10:00:00", "soon"])
        | st.none()
        | st.just([1])
        | st.just({"a": 1}),
    ),
    (("comments", 0, "user"), NOT_TEXT),
    (
        ("permissions", "alice"),
        st.text(max_size=8).filter(lambda s: s not in ("none", "read", "triage", "write", "maintain", "admin")),
    ),
    (("pulls", 0, "head"), NOT_TEXT),
    (("pulls", 0, "files"), st.just([1]) | st.just({"a": 1})),
    (("bot_login",), NOT_TEXT),
]
EVENT_FIELDS: list[tuple[tuple[Any, ...], st.SearchStrategy[Any]]] = [
    (("action",), NOT_TEXT.filter(lambda v: v is not None)),
    (("issue", "number"), NOT_INTEGER.filter(lambda v: v is not None) | st.integers(-5, 0)),
    (("comment", "id"), NOT_INTEGER.filter(lambda v: v is not None)),
    (("comment", "user"), st.booleans() | st.integers() | st.text(max_size=3) | st.just([1])),
    (("comment", "user", "login"), NOT_TEXT.filter(lambda v: v is not None)),
    (("sender", "type"), NOT_TEXT.filter(lambda v: v is not None)),
    ((), st.lists(JSON_VALUES, max_size=2) | st.integers() | st.text(max_size=4).map(json.dumps)),
]
LEASE_FIELDS: list[tuple[tuple[Any, ...], st.SearchStrategy[Any]]] = [
    ((0,), NOT_TEXT.filter(lambda v: not isinstance(v, dict))),
    ((0, "lane"), NOT_TEXT | st.text(min_size=501, max_size=600)),
    ((1, "tree"), st.just([]) | st.just([""]) | st.just(["  "]) | st.just([5]) | st.text(max_size=4)),
    ((0, "holder"), NOT_TEXT.filter(lambda v: v is not None) | st.just("issue-" + "9" * 5000)),
    ((1, "ttl_minutes"), st.integers(10**9 + 1, 10**14) | st.integers(-(10**14), -1) | st.just("x")),
    ((0, "heartbeat_at"), NOT_TEXT.filter(lambda v: v is not None) | st.text(min_size=101, max_size=120)),
]

# --- the lease journal ------------------------------------------------------------------------

T0 = "2026-08-27T16:00:00Z"


def acquire(lane: str, holder: str) -> dict[str, Any]:
    lease = {"lane": lane, "loop_ts": T0, "holder": holder, "tree": [f"{lane}/**"], "acquired_at": T0}
    return {"op": "ACQUIRE", "lane": lane, "loop_ts": T0, "ts": T0, "lease": lease}


CORRUPT_LINE = st.one_of(
    deep,
    long_integer.map(lambda n: '{"op": "RELEASE", "lane": ' + n + "}"),
    st.sampled_from(["{not json", "[1, 2]", "5", '"text"', '{"op": "ACQUIRE", "op": "RELEASE"}', "NaN"]),
)


@st.composite
def invalid_folded_record(draw: st.DrawFn) -> dict[str, Any]:
    """A journal entry that would fold into a malformed lease (or cannot fold at all)."""
    kind = draw(st.sampled_from(["HEARTBEAT", "ADOPT", "CHECKPOINT", "ACQUIRE"]))
    entry: dict[str, Any] = {"op": kind, "lane": "model", "loop_ts": T0, "ts": "2026-08-27T16:30:00Z"}
    if kind == "HEARTBEAT":
        entry["heartbeat_at"] = draw(NOT_TEXT.filter(lambda v: v not in (None, False, 0, [], {})))
    elif kind == "ADOPT":
        entry["holder"] = draw(NOT_TEXT.filter(lambda v: v is not None) | st.text(min_size=501, max_size=520))
    elif kind == "CHECKPOINT":
        entry["leases"] = draw(
            st.integers(1)
            | st.text(min_size=1, max_size=3)
            | st.just({"a": 1})
            | st.just([5])
            | st.just([{"lane": "x"}])
        )
    else:
        lease = acquire("x", "h")["lease"]
        field, value = draw(
            st.sampled_from(["tree", "ttl_minutes", "lane", "holder"]).flatmap(
                lambda f: st.tuples(st.just(f), LEASE_VALUE[f])
            )
        )
        entry["lease"] = {**lease, field: value}
    return entry


LEASE_VALUE: dict[str, st.SearchStrategy[Any]] = {
    "tree": st.just([]) | st.just([""]) | st.just([5]),
    "ttl_minutes": st.integers(10**9 + 1, 10**14) | st.integers(-(10**14), -1),
    "lane": st.integers() | st.just(["a"]),
    "holder": st.just("issue-" + "9" * 5000) | st.integers(),
}


@st.composite
def broken_journal(draw: st.DrawFn) -> str:
    """A journal whose fold must fail (a record that cannot fold), or with no entry at all."""
    lines = [json.dumps(acquire("model", "a")), json.dumps(acquire("compute", "b"))]
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(CORRUPT_LINE))
    if draw(st.integers(0, 9)) == 0:
        return "\n".join(draw(st.lists(CORRUPT_LINE.filter(lambda s: "op" not in s), min_size=1, max_size=4)))
    lines.append(json.dumps(draw(invalid_folded_record())))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


# --- the snapshot (YAML) ----------------------------------------------------------------------

_VALUE_LINES = [
    index
    for index, line in enumerate(VALID_SNAPSHOT.split("\n"))
    if ": " in line and not line.lstrip().startswith("#") and not line.rstrip().endswith(":")
]
YAML_POISON = st.one_of(
    st.sampled_from(["&a x", "*a", "!!str x", "!x y", '"\\ud800"', "{a: 1}", "{<<: {a: 1}}", "[&b 1, *b]"]),
    st.integers(33, 3000).map(lambda n: "[" * n) | st.just("[" * 100_000),
    st.integers(33, 200).map(lambda n: "[a, " * n),
    long_integer,
    st.sampled_from(["'a\\'", "'::error::x'", "a##[error]x", '"a\\x0bb"', '"a\\u2028b"', "x\u202ey"]),
)


@st.composite
def broken_snapshot(draw: st.DrawFn) -> str | bytes:
    lines = VALID_SNAPSHOT.split("\n")
    kind = draw(st.sampled_from(["poison", "merge", "duplicate", "unknown", "drop", "state", "indent", "top", "bytes"]))
    at = draw(st.sampled_from(_VALUE_LINES))
    key, _, _ = lines[at].partition(": ")
    indent = " " * (len(key) - len(key.lstrip(" -")))
    if kind == "poison":
        lines[at] = f"{key}: {draw(YAML_POISON)}"
    elif kind == "merge":
        lines.insert(at + 1, f"{indent}<<: {{blocked_by_condition: x}}")
    elif kind == "duplicate":
        lines.insert(at + 1, indent + lines[at].lstrip(" -"))
    elif kind == "unknown":
        lines.insert(at + 1, f"{indent}zz{draw(st.text(LOWER + '_', max_size=8))}: 1")
    elif kind == "drop":  # a required key
        del lines[draw(st.sampled_from([i for i, line in enumerate(lines) if line.strip() == "exit_when: e"]))]
    elif kind == "state":
        lines = [
            f"    state: {draw(words(LOWER, LOWER + '-', 10).filter(_not_a_state))}"
            if line == "    state: complete"
            else line
            for line in lines
        ]
    elif kind == "indent":
        lines[at] = "\t" + lines[at]
    elif kind == "top":
        return draw(st.sampled_from(["- a\n- b\n", "just text\n", "", "5\n", "---\na: 1\n---\nb: 2\n"]))
    else:
        return draw(not_utf8(VALID_SNAPSHOT))
    return "\n".join(lines)


def _not_a_state(word: str) -> bool:
    return word not in WORK_STATES
