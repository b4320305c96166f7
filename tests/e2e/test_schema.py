"""JSON Schemas: generated from the models, committed, and checked the way an editor checks YAML."""

from __future__ import annotations

import copy
import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from bot.cli import main
from bot.errors import InputError
from bot.schema_kinds import KINDS, SchemaKind
from bot.schemas import file_name, schema_text
from bot.snapshot.model import WORK_STATES, Snapshot
from bot.snapshot.store import load_snapshot, parse_model, parse_tree
from bot.snapshot.store_save import save_text
from tests.support.paths import FIXTURES, ROOT
from tests.support.property_budget import examples

SNAPSHOT_LINE = "# yaml-language-server: $schema=../schema/snapshot.schema.json\n"


@functools.cache
def validator(kind: SchemaKind) -> Draft202012Validator:
    committed = json.loads((ROOT / file_name(kind)).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(committed)
    return Draft202012Validator(committed, format_checker=Draft202012Validator.FORMAT_CHECKER)


def plain(tree: Any) -> Any:
    """The YAML tree as JSON data; dates stay the text they were written as, as an editor sees them."""
    return json.loads(json.dumps(tree))


@functools.cache
def _seed_json() -> str:
    return json.dumps(parse_tree((ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8"), "seed"))


def seed() -> dict[str, Any]:
    """A fresh copy of the seed snapshot as JSON data."""
    data: dict[str, Any] = json.loads(_seed_json())
    return data


def errors(kind: SchemaKind, data: Any) -> list[str]:
    return [error.message for error in validator(kind).iter_errors(data)]


@pytest.mark.parametrize("kind", KINDS)
def test_committed_schemas_equal_what_perfbot_schema_prints(
    kind: SchemaKind, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", kind, "--config", str(ROOT / "config" / "perfbot.yaml")]) == 0
    printed = capsys.readouterr().out
    assert printed == schema_text(kind)
    assert (ROOT / file_name(kind)).read_text(encoding="utf-8") == printed


def test_the_seed_and_the_config_validate_against_the_committed_schemas() -> None:
    assert errors("snapshot", seed()) == []
    assert errors("snapshot", plain(parse_tree((FIXTURES / "snapshot-newest.yaml").read_text("utf-8"), "f"))) == []
    assert errors("config", plain(parse_tree((ROOT / "config" / "perfbot.yaml").read_text("utf-8"), "c"))) == []


def test_every_field_carries_a_description() -> None:
    def walk(node: Any, where: str) -> list[str]:
        missing = []
        if isinstance(node, dict):
            for name, prop in node.get("properties", {}).items():
                if "description" not in prop:
                    missing.append(f"{where}.{name}")
            for key, value in node.items():
                missing += walk(value, f"{where}.{key}")
        return missing

    for kind in KINDS:
        assert walk(json.loads(schema_text(kind)), kind) == []


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["work_packets"][0].update(state="paused"), "'paused' is not one of"),
        (lambda d: d["constraints"][0].update(state="done"), "'done' is not one of"),
        (lambda d: d["work_packets"][0].update(colour="red"), "Additional properties are not allowed ('colour'"),
        (lambda d: d.update(extra=1), "Additional properties are not allowed ('extra'"),
        (lambda d: d.update(as_of="2026-02-30"), "is not a 'date'"),
        (lambda d: d["constraints"][0].update(review_by="2026-8-28"), "does not match"),
        (lambda d: d["constraints"][0].update(observed_at="yesterday"), "does not match"),
        (lambda d: d.update(schema="fak-native-performance-current/3"), "is not one of"),
        (lambda d: d["work_packets"][0].update(issue="kernel#12"), "is not valid under any of the given schemas"),
        (lambda d: d["programs"][0].update(authority_issue=0), "is not valid under any of the given schemas"),
        (lambda d: d["work_packets"][0].pop("exit_when"), "'exit_when' is a required property"),
    ],
)
def test_the_schema_rejects(edit: Any, expected: str) -> None:
    data = seed()
    edit(data)
    found = errors("snapshot", data)
    assert any(expected in message for message in found), found


def test_the_model_rejects_what_the_schema_rejects_for_states_keys_and_dates() -> None:
    """The schema is generated from the model: both refuse the same unknown state, key and bad date."""
    text = (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    for old, new in [
        ("    state: running\n", "    state: paused\n"),
        ("    state: running\n", "    state: running\n    colour: red\n"),
        ("as_of: 2026-08-27\n", "as_of: 2026-02-30\n"),
    ]:
        assert old in text
        with pytest.raises(InputError, match="snapshot"):
            parse_model(text.replace(old, new, 1), "snapshot", Snapshot)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    packet=st.integers(0, 16),
    state=st.sampled_from(WORK_STATES),
    drop=st.sets(st.sampled_from(["related_issues", "program_order", "blocked_by_condition", "state_revision"])),
    order=st.integers(0, 10**6),
)
def test_the_schema_accepts_what_the_model_accepts(packet: int, state: str, drop: set[str], order: int) -> None:
    data = seed()
    record = data["work_packets"][packet]
    record.update(state=state, program_order=order)
    for key in drop:
        record.pop(key, None)
    Snapshot.model_validate(copy.deepcopy(data))  # the model takes it (validation findings aside)
    assert errors("snapshot", data) == []


def test_the_store_keeps_the_editor_line_when_it_rewrites_the_snapshot() -> None:
    loaded = load_snapshot(ROOT / "config" / "snapshot.yaml")
    assert loaded.text.startswith(SNAPSHOT_LINE)
    packets = list(loaded.model.work_packets)
    packets[1] = packets[1].model_copy(update={"state": "running", "owner": "alice / live DOS lease"})
    changed = loaded.model.model_copy(update={"work_packets": tuple(packets)})
    for splice in (True, False):
        text = save_text(loaded, changed, splice=splice)
        assert text.startswith(SNAPSHOT_LINE)
        assert "owner: alice / live DOS lease" in text


def test_schema_check_fails_on_a_stale_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("config", "templates", "schema"):
        shutil.copytree(ROOT / name, tmp_path / name)
    config = str(tmp_path / "config" / "perfbot.yaml")
    assert main(["schema", "--check", "--config", config]) == 0
    stale = tmp_path / file_name("config")
    stale.write_text(stale.read_text(encoding="utf-8").replace("Joins several assignees.", "Joins."), "utf-8")
    assert main(["schema", "--check", "--config", config]) == 1
    captured = capsys.readouterr()
    assert "+" in captured.out
    assert "-" in captured.out
    assert '"description": "Joins several assignees."' in captured.out
    assert "schema/config.schema.json is stale" in captured.err
    assert main(["schema", "config", "--write", "--config", config]) == 0
    assert stale.read_text(encoding="utf-8") == schema_text("config")


def test_perfbot_schema_prints_without_a_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "config", "--config", str(tmp_path / "missing.yaml")]) == 0
    assert capsys.readouterr().out == schema_text("config")
