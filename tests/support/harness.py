"""A throwaway repository (config, templates, page, offline state) to run perfbot against."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.support.backends import cli_over, double_on, live_environ
from tests.support.one_state import walk_after_run
from tests.support.paths import ROOT


class SharedTemplates:
    """The repository's own templates, which every sandbox links to instead of copying its thirty
    files (and removing them again) per test: no test that uses a sandbox writes a template
    (`tests/e2e/test_custom_templates.py` changes its own copy). Linked, they are perfbot's shipped
    templates, as in a repository whose config names none, so a run neither reads nor checks them
    again (about 9 ms a run, against a copy read as a repository's own templates; that path has
    tests of its own). `check` fails a test that changed them."""

    def __init__(self) -> None:
        self.path = ROOT / "templates"
        self.stamps = self._stamps()

    def _stamps(self) -> dict[str, tuple[int, int]]:
        found = {p.as_posix(): p.lstat() for p in [self.path, *self.path.rglob("*")]}
        return {name: (stat.st_size, stat.st_mtime_ns) for name, stat in found.items()}

    def check(self) -> None:
        if self._stamps() != self.stamps:
            pytest.fail(f"the test changed the templates every sandbox shares ({self.path}): copy them instead")


class Repo:
    """`adapter` is how `reconcile` reaches GitHub: `offline` (the state file) or `live` (the
    GitHub double started on the same state file, reached over HTTP by the live adapter).
    `templates`, if given, is the `SharedTemplates` directory, linked to rather than copied."""

    def __init__(self, root: Path, adapter: str = "offline", templates: Path | None = None) -> None:
        self.root = root
        self.adapter = adapter
        for name in ("config", "examples"):
            shutil.copytree(ROOT / name, root / name)
        (root / "docs").mkdir()  # of the docs, perfbot reads and writes only the page
        shutil.copy2(ROOT / "docs" / "current-constraints.md", root / "docs")
        if templates is None:
            shutil.copytree(ROOT / "templates", root / "templates")
        else:
            (root / "templates").symlink_to(templates, target_is_directory=True)
        self.state_path = root / "examples" / "offline-state.json"
        # Every run is held to one state, one rule (tests/support/one_state.py); a test that writes its
        # own templates, whose words the walk does not know, turns it off.
        self.walk_one_state = True

    @property
    def config(self) -> Path:
        return self.root / "config" / "perfbot.yaml"

    def reply_to_all(self) -> None:
        """`commands.replies: all`: every command comment gets 👀 and a reply, the reply records it."""
        text = self.config.read_text(encoding="utf-8")
        if "\n  replies: errors\n" in text:
            text = text.replace("\n  replies: errors\n", "\n  replies: all\n", 1)
        else:
            assert "\ncommands:\n" in text
            text = text.replace("\ncommands:\n", "\ncommands:\n  replies: all\n", 1)
        self.config.write_text(text, encoding="utf-8")

    @property
    def snapshot_path(self) -> Path:
        return self.root / "config" / "snapshot.yaml"

    @property
    def page_path(self) -> Path:
        return self.root / "docs" / "current-constraints.md"

    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.state_path.read_text(encoding="utf-8"))
        return data

    def write_state(self, state: dict[str, Any]) -> None:
        self.state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")

    def edit_state(self, **changes: Any) -> None:
        state = self.state()
        state.update(changes)
        self.write_state(state)

    def set_issue(self, number: int, **fields: Any) -> None:
        state = self.state()
        for issue in state["issues"]:
            if issue["number"] == number:
                issue.update(fields)
        self.write_state(state)

    def add_comment(self, comment_id: int, issue: int, user: str, body: str, at: str = "2026-08-27T10:00:00Z") -> None:
        state = self.state()
        state.setdefault("comments", []).append(
            {"id": comment_id, "issue": issue, "user": user, "created_at": at, "body": body}
        )
        self.write_state(state)

    def edit_snapshot(self, old: str, new: str) -> None:
        text = self.snapshot_path.read_text(encoding="utf-8")
        assert old in text
        self.snapshot_path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def reconcile(
        self,
        capsys: pytest.CaptureFixture[str],
        *args: str,
        dry_run: bool = False,
        environ: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """One run with `--json` (and `environ`, e.g. a job summary file, if given); returns the plan."""
        argv = ["reconcile", "--config", str(self.config), "--json", *args]
        if dry_run:
            argv.append("--dry-run")
        if self.adapter == "offline":
            offline = [] if "--offline" in args else ["--offline", str(self.state_path)]
            assert main([*argv, *offline], environ=environ) == 0
        else:
            double = double_on(self.state_path, self.root)
            with cli_over(double):
                assert main(argv, environ={**live_environ(double.world.repository), **(environ or {})}) == 0
        plan: dict[str, Any] = json.loads(capsys.readouterr().out)
        plan.pop("api")  # requests made: only a live run makes any
        if self.walk_one_state and not dry_run and not {"--offline", "--dry-run"} & set(args):
            walk_after_run(self, args, plan)
        return plan

    def merge(self, plan: dict[str, Any]) -> None:
        """Merge the plan's PR: its files become the default branch, the PR is closed as merged."""
        pull = next(a for a in plan["actions"] if a["kind"] == "pull_request")
        for path, text in pull["files"].items():
            (self.root / path).write_text(text, encoding="utf-8")
        state = self.state()
        for record in state.get("pulls", []):
            if record["state"] == "open":
                record["state"] = "merged"
        self.write_state(state)


def comments(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in plan["actions"] if a["kind"] == "comment"]


def pull(plan: dict[str, Any]) -> dict[str, Any]:
    action: dict[str, Any] = next(a for a in plan["actions"] if a["kind"] == "pull_request")
    return action


def packet(plan: dict[str, Any], packet_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in plan["packets"] if p["id"] == packet_id)
    return found
