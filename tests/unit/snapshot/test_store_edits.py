"""The edit in place (`store_edit`, through `store_save.save_text`) on the shapes a file can take
beyond the layouts `tests/boundary/test_store_layouts.py` generates: explicit document markers, a BOM, a
tab in a value, a dash alone on its line, flow records, multi-line flow lists, block scalars,
comments in every place, and what it declines, which the whole round trip then writes.
"""

from __future__ import annotations

import datetime as dt
import difflib

import pytest

from bot.snapshot import store, store_edit, store_outline, store_save
from bot.snapshot.model import EvidenceRef, LedgerEntry, Snapshot
from tests.support.malformed import VALID_SNAPSHOT

ENTRY = LedgerEntry(comment_id=7, issue=6, author="alice", at="2026-08-28T10:00:00Z", effect="w2 running")


def changed(model: Snapshot) -> Snapshot:
    """Every kind of edit at once: a state (with two new keys), a result, an emptied field, an
    evidence item, a review date, a first ledger entry and its bound."""
    w1, w2 = model.work_packets
    (c1,) = model.constraints
    item = EvidenceRef(class_="issue", summary="new: evidence", ref="#9")
    return model.model_copy(
        update={
            "work_packets": (
                w1.model_copy(update={"result": "accepted at 5/5"}),
                w2.model_copy(
                    update={"state": "running", "state_revision": 1, "previous_state": "ready", "next_action": ""}
                ),
            ),
            "constraints": (
                c1.model_copy(update={"evidence": (*c1.evidence, item), "review_by": dt.date(2026, 9, 9)}),
            ),
            "ledger": (ENTRY,),
            "commands_settled_through": 6,
        }
    )


def comments(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if " #" in f" {line}" and "'" not in line]


VARIANTS = {
    "plain": VALID_SNAPSHOT,
    "explicit-markers": "---\n" + VALID_SNAPSHOT + "...\n",
    "bom": "\ufeff" + VALID_SNAPSHOT,
    "crlf-bom": "\ufeff" + VALID_SNAPSHOT.replace("\n", "\r\n"),
    "no-final-newline": VALID_SNAPSHOT.rstrip("\n"),
    "tab-in-a-value": VALID_SNAPSHOT.replace("    driver: d\n", '    driver: "d\tx"\n'),
    "dash-alone": VALID_SNAPSHOT.replace("  - id: w2\n", "  -\n    id: w2\n"),
    "dash-then-comment": VALID_SNAPSHOT.replace("  - id: w2\n", "  - # the second\n    id: w2\n"),
    "comments-everywhere": VALID_SNAPSHOT.replace("  - id: w2\n", "  # before w2\n\n  - id: w2  # w2's id\n")
    .replace("    state: ready\n", "    # its state\n    state: ready  # derived\n")
    .replace("    evidence:\n", "    evidence:  # kept\n      # first item\n")
    .replace("    next_action: n\n    exit_when: e\noss", "    next_action: n  # goes\n    exit_when: e\noss"),
    "block-scalars": VALID_SNAPSHOT.replace("    result: old value\n", "    result: |-\n      old value\n\n").replace(
        "    driver: d\n", "    driver: >-\n      d\n"
    ),
    "multi-line-values": VALID_SNAPSHOT.replace("    driver: d\n", "    driver: a driver\n      over two lines\n"),
    "multi-line-flow-list": VALID_SNAPSHOT.replace("    paths: [b/**]\n", "    paths: [\n      b/**,\n    ]\n"),
    "keys-reordered": VALID_SNAPSHOT.replace("  - id: w2\n    name: W two\n", "  - name: W two\n    id: w2\n"),
    "quoted-keys": VALID_SNAPSHOT.replace("    state: ready\n", "    'state': ready\n").replace(
        "  - id: w2\n", '  - "id": w2\n'
    ),
    "wide-separator": VALID_SNAPSHOT.replace("    state: ready\n", "    state:     ready\n"),
    "indented-top": "".join(" " + line if line.strip() else line for line in VALID_SNAPSHOT.splitlines(True)),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_edit_in_place_on_each_shape(variant: str) -> None:
    text = VARIANTS[variant]
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    new = changed(loaded.model)
    edited = store_save.edited_text(loaded.text, loaded.model, new, loaded.seen)
    assert edited == store_save.save_text(loaded, new)
    assert store.parse_model(edited, "s.yaml", Snapshot).model == new
    assert comments(edited) == comments(text)
    # Nothing outside the changed records moved: the constraint's own lines before its evidence,
    # the programs, the OSS states.
    kept = text.split("programs:")[1].split("work_packets:")[0]
    assert kept in edited
    assert text.split("oss_states:")[1].split("# trailing")[0] in edited


def test_a_changed_value_keeps_what_separates_it_from_its_key() -> None:
    loaded = store.parse_model(VARIANTS["wide-separator"], "s.yaml", Snapshot)
    new = changed(loaded.model)
    assert "    state:     running\n" in store_save.save_text(loaded, new)


def test_the_diff_of_a_state_change_is_its_lines() -> None:
    loaded = store.parse_model(VARIANTS["comments-everywhere"], "s.yaml", Snapshot)
    w1, w2 = loaded.model.work_packets
    new = loaded.model.model_copy(update={"work_packets": (w1, w2.model_copy(update={"state": "running"}))})
    diff = [
        line
        for line in difflib.unified_diff(loaded.text.splitlines(), store_save.save_text(loaded, new).splitlines(), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == ["-    state: ready  # derived", "+    state: running  # derived"]


def test_a_removed_key_leaves_its_comments_on_lines_of_their_own() -> None:
    text = VALID_SNAPSHOT.replace(
        "    next_action: n\n    exit_when: e\noss", "    next_action: n  # why\n    exit_when: e\noss"
    )
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    w1, w2 = loaded.model.work_packets
    new = loaded.model.model_copy(update={"work_packets": (w1, w2.model_copy(update={"next_action": ""}))})
    assert store_save.save_text(loaded, new) == text.replace("    next_action: n  # why\n", "    # why\n")


def test_a_block_scalar_gets_a_new_value_in_its_style() -> None:
    loaded = store.parse_model(VARIANTS["block-scalars"], "s.yaml", Snapshot)
    new = changed(loaded.model)
    assert "    result: |-\n      accepted at 5/5\n\n" in store_save.save_text(loaded, new)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("a %YAML directive decides how values read", "%YAML 1.2\n---\n" + VALID_SNAPSHOT),
        ("a flow mapping at the top", "{schema: x}"),
    ],
)
def test_what_the_edit_declines_the_round_trip_writes(name: str, text: str) -> None:
    del name
    if text.startswith("{"):
        with pytest.raises(store_edit.Declined):
            store_save._File(text, None)
        return
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    new = changed(loaded.model)
    with pytest.raises((store_edit.Declined, store_outline.Unreadable)):
        store_save.edited_text(loaded.text, loaded.model, new, loaded.seen)
    assert store.parse_model(store_save.save_text(loaded, new), "s.yaml", Snapshot).model == new


def test_a_flow_record_is_edited_whole() -> None:
    text = VALID_SNAPSHOT.replace(
        "  - state: watch\n    meaning: m\n    required_evidence: r\n",
        "  - {state: watch, meaning: m, required_evidence: r}  # one line\n",
    )
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    states = list(loaded.model.oss_states)
    states[0] = states[0].model_copy(update={"meaning": "watched"})
    new = loaded.model.model_copy(update={"oss_states": tuple(states)})
    saved = store_save.save_text(loaded, new)
    assert store.parse_model(saved, "s.yaml", Snapshot).model == new
    assert "# one line" in saved


@pytest.mark.parametrize("null", ["", " ~", " null  # none yet", "  # none yet"])
def test_a_value_written_over_a_null_keeps_its_colon_and_comment(null: str) -> None:
    text = VALID_SNAPSHOT.replace(
        "    next_action: n\n    exit_when: e\noss",
        f"    previous_state:{null}\n    next_action: n\n    exit_when: e\noss",
    )
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    w1, w2 = loaded.model.work_packets
    new = loaded.model.model_copy(update={"work_packets": (w1, w2.model_copy(update={"previous_state": "ready"}))})
    comment = null[null.index("#") - 2 :] if "#" in null else ""
    expected = text.replace(f"    previous_state:{null}\n", f"    previous_state: ready{comment}\n")
    assert store_save.edited_text(loaded.text, loaded.model, new, loaded.seen) == expected


def test_a_last_key_removed_where_a_key_is_added() -> None:
    """Completing a packet whose last key is `next_action`, right after `paths`: its line goes and
    `result` goes after `paths`, so the two edits meet at one place (found by the layouts property)."""
    text = VALID_SNAPSHOT.replace("    name: W two\n", "    name: W two\n    exit_when: e\n").replace(
        "    next_action: n\n    exit_when: e\noss", "    next_action: n\noss"
    )
    loaded = store.parse_model(text, "s.yaml", Snapshot)
    w1, w2 = loaded.model.work_packets
    done = w2.model_copy(update={"state": "complete", "result": "r", "next_action": ""})
    new = loaded.model.model_copy(update={"work_packets": (w1, done)})
    expected = text.replace("    issue: 6\n    state: ready\n", "    issue: 6\n    state: complete\n").replace(
        "    paths: [b/**]\n    next_action: n\noss", "    paths: [b/**]\n    result: r\noss"
    )
    assert store_save.edited_text(loaded.text, loaded.model, new, loaded.seen) == expected
