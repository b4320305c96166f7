"""Start-up: what a whole process imports on each path, and the early exit's own argv reader.

Speed itself is measured in benchmarks; these tests pin the causes of a slow start (a module that
a path does not need, a second reading of the command line that could disagree with argparse).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.arguments import parser, timestamp
from bot.cli.early import INTEGERS, SWITCHES, TAKEN_AS_IS, TIMES, reconcile_flags
from tests.paths import ROOT
from tests.property_budget import examples

STATE = ROOT / "examples" / "offline-state.json"


def modules_after(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, set[str]]:
    """The exit code of `main(argv)` in a fresh interpreter, and every module it had imported."""
    code = (
        "import sys, json\nfrom bot.cli import main\n"
        f"code = main({argv!r})\nprint(json.dumps([code, sorted(sys.modules)]))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")} | (env or {})
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=environment
    )
    exit_code, names = json.loads(done.stdout.strip().split("\n")[-1])
    return exit_code, set(names)


def under(names: set[str], *roots: str) -> set[str]:
    return {n for n in names if n.split(".")[0] in roots or n.startswith(tuple(r + "." for r in roots))}


def test_an_offline_dry_run_imports_no_github_client_and_no_markdown_reader() -> None:
    code, names = modules_after(["reconcile", "--offline", str(STATE), "--dry-run"])
    assert code == 0
    assert "bot.reconcile.plan" in names  # it did run
    assert under(names, "githubkit", "httpx") == set()
    # No comment of the example state holds a command: nothing is read as Markdown.
    assert under(names, "markdown_it") == set()


def test_an_offline_run_that_writes_imports_no_github_client(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    shutil.copyfile(STATE, state)
    code, names = modules_after(["reconcile", "--offline", str(state)])
    assert code == 0
    assert state.read_bytes() != STATE.read_bytes()  # it wrote its actions
    assert under(names, "githubkit", "httpx") == set()


def test_a_comment_with_a_command_is_read_as_markdown(tmp_path: Path) -> None:
    state = json.loads(STATE.read_text(encoding="utf-8"))
    person = next(iter(state["permissions"]))
    comment = dict(state["comments"][0], id=999_001, user=person, user_type="User", body="/perf help")
    state["comments"].append(comment)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    code, names = modules_after(["reconcile", "--offline", str(path), "--dry-run"])
    assert code == 0
    assert "markdown_it" in names  # the lazy import still happens when it must


def test_validate_imports_no_github_client_renderer_markdown_reader_or_reconciler() -> None:
    code, names = modules_after(["validate"])
    assert code == 0
    assert under(names, "githubkit", "httpx", "jinja2", "markdown_it", "bot.reconcile", "bot.commands") == set()


ACTION_LINE = [
    *("reconcile", "--config", "config/perfbot.yaml", "--max-writes", "50", "--cache", "c.json"),
    *("--plan-json", "p.json", "--outputs", "o.txt", "--leases", "perfbot/leases:leases.json"),
]


def test_a_plain_comment_ends_before_argparse_pathlib_or_typing(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "created", "comment": {"id": 1, "body": "thanks!"}}), encoding="utf-8")
    env = {"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(event)}
    for argv in (
        ["reconcile", "--config", "config/perfbot.yaml", "--max-writes", "50", "--dry-run"],
        ["reconcile", "--now", "2026-08-27T17:00:00Z", "--dry-run"],
        # The line action.yml writes, observation cache included.
        ACTION_LINE,
    ):
        code, names = modules_after(argv, env)
        assert code == 0
        assert {"argparse", "pathlib", "typing", "dataclasses"} & names == set()
        assert under(names, "pydantic", "ruamel", "jinja2") == set()
    code, names = modules_after(["reconcile", "--max-w", "50"], env)  # an abbreviation: argparse reads it
    assert code == 0
    assert "argparse" in names
    assert under(names, "pydantic") == set()


def reconcile_actions() -> dict[str, argparse.Action]:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {flag: action for action in sub.choices["reconcile"]._actions for flag in action.option_strings}


def test_the_early_reader_knows_only_flags_that_argparse_takes_as_they_are() -> None:
    actions = reconcile_actions()
    for flag in SWITCHES:
        assert isinstance(actions[flag], argparse._StoreTrueAction)
    for flag in TAKEN_AS_IS | INTEGERS | TIMES:
        action = actions[flag]
        assert type(action) is argparse._StoreAction
        assert action.nargs is None
        assert action.choices is None
        assert action.type in ((int,) if flag in INTEGERS else (timestamp,) if flag in TIMES else (None, Path))
    plain_values = {f for f, a in actions.items() if type(a) is argparse._StoreAction and a.nargs is None}
    assert plain_values == TAKEN_AS_IS | INTEGERS | TIMES  # every flag a plain line may carry, both ways
    positional = [a for a in actions.values() if not a.option_strings]
    assert positional == []
    assert not any(a.required for a in actions.values())


WORDS = st.sampled_from(
    [
        "--dry-run",
        "--json",
        "--config",
        "--offline",
        "--event-name",
        "--event-path",
        "--max-writes",
        "--leases",
        "--repo",
        "--plan-json",
        "--outputs",
        "--now",
        "2026-08-27T17:00:00Z",
        "2026-01-01",
        "1969-12-31T23:59:59Z",
        "9999-12-31T23:59:59-12:00",
        "2026-02-30",
        "--dry",
        "--config=c.yaml",
        "-h",
        "x.yaml",
        "issue_comment",
        "12",
        " 7",
        "1_000",
        "٣",
        "-1",
        "seven",
        "",
        "reconcile",
        "--",
    ]
)


@settings(max_examples=examples(300, bounded=100), deadline=None)
@given(st.lists(WORDS, max_size=7))
def test_the_early_reader_reads_a_line_only_as_argparse_does(words: list[str]) -> None:
    argv = ["reconcile", *words]
    flags = reconcile_flags(argv)
    if flags is None:
        return
    args = parser().parse_args(argv)  # raises SystemExit if argparse refuses what the early reader took
    assert args.dry_run == ("--dry-run" in words)
    assert args.config == Path(flags.get("--config", "config/perfbot.yaml"))
    assert args.event_name == flags.get("--event-name")
    assert args.event_path == (Path(flags["--event-path"]) if "--event-path" in flags else None)
    assert args.max_writes == int(flags.get("--max-writes", "50"))
    assert args.now == (timestamp(flags["--now"]) if "--now" in flags else None)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["validate"],
        ["reconcile", "--now", "1969-12-31T23:59:59Z"],
        ["reconcile", "--now", "yesterday"],
        ["reconcile", "--now", "2026-02-30"],
        ["reconcile", "--dry"],
        ["reconcile", "--config=c.yaml"],
        ["reconcile", "--config"],
        ["reconcile", "--config", ""],
        ["reconcile", "--config", "-c"],
        ["reconcile", "--max-writes", "many"],
        ["reconcile", "extra"],
    ],
)
def test_the_early_reader_leaves_every_other_line_to_argparse(argv: list[str]) -> None:
    assert reconcile_flags(argv) is None
