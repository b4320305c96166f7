"""The offline adapter's writes: the state text is what `json.dumps(indent=2)` gives, however often it
is saved, and a run still sees the markers another writer put in the file after it was opened."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.github.actions import CommentAction
from bot.github.markers import marker
from bot.github.offline import OfflineGitHub
from bot.github.state_json import StateEncoder
from tests.property_budget import examples

NOW = dt.datetime(2026, 8, 27, 12, tzinfo=dt.UTC)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
_JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
)


@settings(max_examples=examples(60), deadline=None)
@given(raw=st.dictionaries(st.text(max_size=5), _JSON, max_size=4), key=st.text(max_size=5), value=_JSON)
@example(raw={"git": {"a": {"b": 1}, "c": [1]}, "d": {}}, key="b", value=[2])
@example(raw={"issues": [{"draft": 0, "n": 1.0}], "git": {"f": {"draft": 1}}}, key="draft", value=False)
@example(raw={"issues": [{"n": 1}]}, key="n", value=1.0)
@example(raw={"issues": [{"n": 0.0}]}, key="n", value=-0.0)
@example(raw={"issues": [(1, 2), {"t": (0,)}]}, key="t", value=(False,))
@example(raw={1: [{"x": 1}], "a": {"b": (1,)}}, key="x", value=2)
def test_the_state_text_is_json_dumps_before_and_after_a_change_in_place(
    raw: dict[str, Any], key: str, value: Any
) -> None:
    encoder = StateEncoder()
    assert encoder.text(raw) == json.dumps(raw, indent=2) + "\n"
    assert encoder.text(raw) == json.dumps(raw, indent=2) + "\n"  # the records are remembered from the second save
    for item in [v for v in raw.values() if isinstance(v, list | dict)]:
        for record in item if isinstance(item, list) else item.values():
            if isinstance(record, dict):
                record[key] = value  # a record changed in place is encoded again
            elif isinstance(record, list):
                record.append(value)
        if isinstance(item, list):
            item.append(value)
        else:
            item[key] = value
    raw[key] = value
    assert encoder.text(raw) == json.dumps(raw, indent=2) + "\n"
    for item in [v for v in raw.values() if isinstance(v, list)]:
        for record in item:
            if isinstance(record, dict) and len(record) > 1:
                first = next(iter(record))
                record[first] = record.pop(first)  # the same keys and values, in another order
    assert encoder.text(raw) == json.dumps(raw, indent=2) + "\n"


def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    raw = {"repository": "o/n", "bot_login": "perfbot[bot]", "issues": [{"number": 5}], "comments": []}
    path.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return path


def said(key: str) -> CommentAction:
    return CommentAction(issue=5, topic="packet-ready", body=marker("packet-ready", key) + "\nReady.")


def test_a_run_sees_markers_another_writer_saved_after_it_opened_the_file(tmp_path: Path) -> None:
    path = state(tmp_path)
    mine, other = OfflineGitHub.open(path, NOW), OfflineGitHub.open(path, NOW)
    assert mine.markers_now(5) == set()
    assert other.comment(said("a")) == 1
    assert mine.markers_now(5) == {("packet-ready", "a")}
    assert mine.comment(said("b")) == 1  # its own reading of the state: ids are not re-read
    assert mine.markers_now(5) == {("packet-ready", "b")}  # the file is now its own write
    assert other.markers_now(5) == {("packet-ready", "b")}
    assert OfflineGitHub.open(path, NOW).markers_now(6) == set()


def test_comment_ids_follow_the_largest_even_when_the_comments_change_between_writes(tmp_path: Path) -> None:
    github = OfflineGitHub.open(state(tmp_path), NOW)
    assert [github.comment(said("a")), github.comment(said("b"))] == [1, 2]
    github.raw["comments"].append({"id": 40, "issue": 5, "user": "perfbot[bot]", "body": marker("packet-ready", "c")})
    assert github.comment(said("d")) == 41
    assert github.markers_now(5) == {("packet-ready", k) for k in "abcd"}
    assert github.path is not None
    assert json.loads(github.path.read_text(encoding="utf-8")) == github.raw
