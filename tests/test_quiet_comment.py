"""The early exit for comments with no command line, the cheap prefix reader, and what each
subcommand imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands.reading import command_lines, has_raw_command_line
from bot.config import BotConfig
from bot.config_prefix import plain_prefix
from bot.errors import InputError
from bot.github.quiet import quiet_comment
from bot.snapshot.store import parse_model
from tests.property_budget import examples

ROOT = Path(__file__).resolve().parents[1]
CONFIG = (ROOT / "config" / "perfbot.yaml").read_text(encoding="utf-8")


def test_the_shipped_config_writes_its_prefix_plainly() -> None:
    assert plain_prefix(CONFIG) == parse_model(CONFIG, "c", BotConfig).model.commands.prefix


block_lines = st.sampled_from(
    [
        "  prefix: /perf",
        "  prefix: /bot # note",
        "  prefix: '/q'",
        "  prefix: /a#b",
        "  prefix: 12",
        "    more",
        "  prefix: /x",
        "  review_days: 7",
        "  # c",
        "",
        "commands:",
        "commands: {prefix: /z}",
        "pull_request:",
        "  branch: b",
        "---",
        "  prefix: |",
        "  prefix:",
        " prefix: /y",
        "commands :",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(block_lines, max_size=8))
def test_the_cheap_reader_never_disagrees_with_the_real_loader(lines: list[str]) -> None:
    text = CONFIG.replace("commands:\n  prefix: /perf\n", "\n".join(lines) + "\n")
    cheap = plain_prefix(text)
    if cheap is None:
        return
    try:
        real = parse_model(text, "c", BotConfig).model.commands.prefix
    except InputError:
        return  # refused for another reason (a stray key): the next full run reports it
    assert cheap == real


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="/perf \t\n\r>`<!-x#", max_size=40))
def test_a_comment_without_the_prefix_has_no_command_line(body: str) -> None:
    if "/perf" not in body:
        assert command_lines(body, "/perf") == []
        assert not has_raw_command_line(body, "/perf")


def event(tmp_path: Path, body: object) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"action": "created", "comment": {"id": 1, "body": body}}), encoding="utf-8")
    return path


def test_only_a_plain_comment_event_is_quiet(tmp_path: Path) -> None:
    config = ROOT / "config" / "perfbot.yaml"
    assert quiet_comment("issue_comment", event(tmp_path, "thanks!"), config)
    assert not quiet_comment("issue_comment", event(tmp_path, "ok\n/perf help"), config)
    assert not quiet_comment("issue_comment", event(tmp_path, "see `/perf`"), config)  # not a command; read anyway
    assert not quiet_comment("issues", event(tmp_path, "thanks!"), config)
    assert not quiet_comment("issue_comment", event(tmp_path, None), config)
    assert not quiet_comment("issue_comment", tmp_path / "missing.json", config)
    odd = tmp_path / "perfbot.yaml"
    odd.write_text(CONFIG.replace("prefix: /perf", "prefix: '/perf'"), encoding="utf-8")
    assert not quiet_comment("issue_comment", event(tmp_path, "thanks!"), odd)


def modules_after(argv: list[str]) -> set[str]:
    code = (
        "import sys, json\nfrom bot.cli import main\n"
        f"code = main({argv!r})\nprint(json.dumps([code, sorted(sys.modules)]))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    exit_code, names = json.loads(done.stdout.strip().split("\n")[-1])
    assert exit_code == 0
    return set(names)


def heavy(names: set[str]) -> set[str]:
    roots = ("jinja2", "markdown_it", "githubkit", "bot.reconcile", "bot.commands")
    return {n for n in names if n.startswith(roots)}


def test_validate_imports_no_renderer_reader_reconciler_or_github_client() -> None:
    assert heavy(modules_after(["validate"])) == set()


def test_a_plain_comment_run_stops_before_pydantic(tmp_path: Path) -> None:
    path = event(tmp_path, "thanks!")
    names = modules_after(["reconcile", "--event-name", "issue_comment", "--event-path", str(path), "--dry-run"])
    assert not {n for n in names if n.startswith(("pydantic", "ruamel", "bot.snapshot.model"))}
