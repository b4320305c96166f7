"""docs/reference.md: its generated parts are fresh, cover every flag, and `--check` catches drift."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.arguments import parser as _parser
from bot.github.actions import TOPICS, TopicSpec
from bot.reference import PATH, commands, parts, regenerate
from bot.render import Renderer
from tests.support.paths import ROOT

REFERENCE = (ROOT / PATH).read_text(encoding="utf-8")


def help_flags(name: str, capsys: pytest.CaptureFixture[str]) -> set[str]:
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", capsys.readouterr().out))


def test_every_flag_of_every_subcommand_is_in_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    names = [c.name for c in commands(_parser())]
    assert {"validate", "render", "reconcile", "explain", "graph", "status", "schema", "reference"} <= set(names)
    for name in names:
        flags = help_flags(name, capsys)
        assert {"-h", "--help"} | ({"--config"} if name not in ("init", "import") else set()) <= flags
        section = REFERENCE.split(f"### `perfbot {name}`\n", 1)[1].split("\n### ", 1)[0]
        for flag in flags:
            assert re.search(rf"`(?:[^`]*, )?{re.escape(flag)}(?:, [^`]*)?`", section), (name, flag)


def test_the_committed_reference_is_what_perfbot_reference_writes(capsys: pytest.CaptureFixture[str]) -> None:
    renderer = Renderer.from_directory(ROOT / "templates")
    assert regenerate(REFERENCE, parts(_parser(), renderer), PATH) == REFERENCE
    assert main(["reference", "--config", str(ROOT / "config" / "perfbot.yaml")]) == 0
    assert capsys.readouterr().out == REFERENCE


def test_the_reference_names_every_config_key_and_state_field() -> None:
    for key in ("commands.prefix", "commands.review_days", "commands.max_body_chars", "leases_rules.ttl_minutes"):
        assert f"| `{key}` |" in REFERENCE
    assert "| `commands.max_body_chars` | integer (> 1000, <= 65536) | `60000` |" in REFERENCE
    for key in ("owner.unassigned", "pull_request.branch", "templates", "page_text.dependency_graph"):
        assert f"| `{key}` |" in REFERENCE
    for field in ("issues[].assignees", "comments[].created_at", "permissions", "pulls[].files"):
        assert f"| `{field}` |" in REFERENCE
    for topic in ("packet-ready", "lease-lost", "review-overdue", "issue-mismatch", "command-reply", "command-lapsed"):
        assert f"| `{topic}` |" in REFERENCE


def test_reference_check_fails_on_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("config", "templates", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    config = str(tmp_path / "config" / "perfbot.yaml")
    assert main(["reference", "--check", "--config", config]) == 0
    path = tmp_path / PATH
    path.write_text(REFERENCE.replace("| `commands.prefix` | text |", "| `commands.prefix` | string |"), "utf-8")
    assert main(["reference", "--check", "--config", config]) == 1
    captured = capsys.readouterr()
    assert "-| `commands.prefix` | string |" in captured.out
    assert "docs/reference.md is stale; regenerate it with `perfbot reference --write`" in captured.err
    path.write_text(REFERENCE.replace("<!-- end generated: topics -->", ""), "utf-8")
    assert main(["reference", "--write", "--config", config]) == 1
    assert "generated parts missing ['topics']" in capsys.readouterr().err


def test_the_topics_part_has_a_row_per_registered_topic_with_its_meaning() -> None:
    renderer = Renderer.from_directory(ROOT / "templates")
    topics = {
        "packet-ready": TOPICS["packet-ready"],
        "new-topic": TopicSpec("comments/new.md.j2", "when *new*", "nudge"),
    }
    rows = renderer.render("reference/topics.md.j2", topics=topics).strip().split("\n")[2:]
    assert rows == [f"| `packet-ready` | {TOPICS['packet-ready'].meaning} |", "| `new-topic` | when *new* |"]
