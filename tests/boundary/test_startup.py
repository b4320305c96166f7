"""Start-up: what a whole process imports on each path.

Speed itself is measured in benchmarks; these tests pin one cause of a slow start: a module that
a path does not need.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

STATE = ROOT / "examples" / "offline-state.json"


def modules_after(argv: list[str]) -> tuple[int, set[str]]:
    """The exit code of `main(argv)` in a fresh interpreter, and every module it had imported."""
    code = (
        "import sys, json\nfrom bot.cli import main\n"
        f"code = main({argv!r})\nprint(json.dumps([code, sorted(sys.modules)]))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}  # in CI, not the job's own event
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
    assert "bot.reconcile.decide" in names  # it did run
    assert under(names, "githubkit", "httpx") == set()
    # No comment of the example state holds a command: nothing is read as Markdown.
    assert under(names, "cmarkgfm") == set()


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
    # Of two lines: a comment of one line that starts with the prefix is read without rendering it.
    body = "thanks!\n/perf help"
    comment = dict(state["comments"][0], id=999_001, user=person, user_type="User", body=body)
    state["comments"].append(comment)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    code, names = modules_after(["reconcile", "--offline", str(path), "--dry-run"])
    assert code == 0
    assert "cmarkgfm" in names  # the lazy import still happens when it must


def test_a_one_line_command_is_read_without_markdown(tmp_path: Path) -> None:
    state = json.loads(STATE.read_text(encoding="utf-8"))
    person = next(iter(state["permissions"]))
    comment = dict(state["comments"][0], id=999_001, user=person, user_type="User", body="/perf help")
    state["comments"].append(comment)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    code, names = modules_after(["reconcile", "--offline", str(path), "--dry-run", "--json"])
    assert code == 0
    assert under(names, "cmarkgfm") == set()


def test_validate_imports_no_github_client_renderer_markdown_reader_or_reconciler() -> None:
    code, names = modules_after(["validate"])
    assert code == 0
    assert under(names, "githubkit", "httpx", "jinja2", "cmarkgfm", "bot.reconcile", "bot.commands") == set()


def models_after(argv: list[str]) -> tuple[int, dict[str, bool]]:
    """The exit code of `main(argv)` in a fresh interpreter, and for each of perfbot's pydantic
    models whether its validator was built by then."""
    code = (
        "import sys, json, pydantic\nfrom bot.cli import main\n"
        f"code = main({argv!r})\n"
        "def models(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield sub\n"
        "        yield from models(sub)\n"
        "built = {f'{m.__module__}.{m.__qualname__}': m.__pydantic_complete__\n"
        "         for m in models(pydantic.BaseModel) if m.__module__.startswith('bot.')}\n"
        "print(json.dumps([code, built]))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=environment
    )
    exit_code, built = json.loads(done.stdout.strip().split("\n")[-1])
    return exit_code, built


def test_a_run_builds_the_validators_of_the_models_it_uses_and_no_others() -> None:
    # pydantic builds a model's validator when the class is defined unless `defer_build` says to
    # wait for its first use: about a third of a run's start-up, most of it for models the run
    # never reads (the dashboard's rows, the event that started a live run, a merge's outcome).
    code, built = models_after(["reconcile", "--offline", str(STATE), "--dry-run"])
    assert code == 0
    assert built["bot.snapshot.model.Snapshot"]  # used: built
    assert built["bot.config.BotConfig"]
    unused = ("bot.reconcile.dashboard.Row", "bot.github.events.Trigger", "bot.github.actions.MergeOutcome")
    assert [name for name in unused if built[name]] == []


def test_a_playground_command_that_speaks_to_the_double_over_http_does_not_import_it(tmp_path: Path) -> None:
    """The README's "Try it" starts a process per command: only `serve` runs the double (graphql-core,
    jsonschema and GitHub's specs); the others are a person's requests to it."""
    code = (
        "import sys, json\nfrom tests.github_double.playground.__main__ import main\n"
        f"code = main(['stop', '--dir', {str(tmp_path)!r}])\nprint(json.dumps([code, sorted(sys.modules)]))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    exit_code, found = json.loads(done.stdout.strip().split("\n")[-1])
    names = set(found)
    assert exit_code == 1  # no double runs in an empty folder: said, not raised
    assert "no playground double runs" in done.stderr
    assert "tests.github_double.playground.person" in names  # it did run
    assert under(names, "graphql", "jsonschema", "tests.github_double.double", "bot.commands") == set()
