"""Issue #24's done-when: a snapshot written by PyYAML's `safe_dump`, by ruamel's default dump and
by hand at a 4-space indent gets its regeneration PR through the CLI, offline and over the GitHub
double, proposing the snapshot the seed's own layout gets, in the file's own layout.

The change is the one a released lease makes (packets' states and owners derived anew, a cleared
blocker dropped). Before issue #24, each of these files got "the proposed config/snapshot.yaml
would not load" and no PR.
"""

from __future__ import annotations

import difflib
import io
from pathlib import Path
from typing import Any

import pytest
import yaml as pyyaml  # type: ignore[import-untyped]
from ruamel.yaml import YAML

from bot.snapshot import store
from bot.snapshot.model import Snapshot
from tests.support.harness import Repo, SharedTemplates, pull
from tests.support.paths import ROOT

NOW = "2026-08-27T18:00:00Z"
SEED = (ROOT / "config" / "snapshot.yaml").read_text(encoding="utf-8")


def pyyaml_safe_dump() -> str:
    """What `yaml.safe_dump` writes: no comments, lists at their key's column, folded at 80."""
    data = pyyaml.safe_load(SEED)
    text: str = pyyaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return text


def ruamel_default_dump() -> str:
    """A round trip through ruamel with its defaults (indents 2/2/0: dashes at their key's column)."""
    yaml = YAML()
    out = io.StringIO()
    yaml.dump(yaml.load(SEED), out)
    return out.getvalue()


def by_hand_at_four_spaces() -> str:
    """The seed as a person keeps it at a 4-space indent, with a blank line between packets and
    notes of their own inside records."""
    yaml = YAML()
    yaml.indent(mapping=4, sequence=6, offset=4)
    out = io.StringIO()
    yaml.dump(yaml.load(SEED), out)
    text = out.getvalue().replace("\n    - id: mac.", "\n\n    - id: mac.")
    text = text.replace(
        "      owner: anthony-chaudhary / live DOS lease\n",
        "      # the lease is dos's word, not ours\n      owner: anthony-chaudhary / live DOS lease  # see #9420\n",
    )
    return text


LAYOUTS = {"pyyaml-safe-dump": pyyaml_safe_dump, "ruamel-default-dump": ruamel_default_dump}
LAYOUTS["by-hand-4-space"] = by_hand_at_four_spaces


def released(repo: Repo) -> str:
    """A lease readback in which #9420 holds nothing any more."""
    path = repo.root / "released.json"
    path.write_text("[]\n", encoding="utf-8")
    return str(path)


def proposed(repo: Repo, capsys: pytest.CaptureFixture[str], text: str) -> tuple[dict[str, Any], str]:
    repo.snapshot_path.write_text(text, encoding="utf-8")
    plan = repo.reconcile(capsys, "--now", NOW, "--leases", released(repo))
    action = pull(plan)
    return action, action.get("files", {}).get("config/snapshot.yaml", "")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_file_in_another_layout_gets_its_regeneration_pr(
    either: Repo, capsys: pytest.CaptureFixture[str], layout: str, tmp_path: Path, shared_templates: SharedTemplates
) -> None:
    reference = Repo(tmp_path / "reference", templates=shared_templates.path)  # the seed's own layout, offline
    _, seed_proposal = proposed(reference, capsys, SEED)
    meant = store.parse_model(seed_proposal, "seed", Snapshot).model
    text = LAYOUTS[layout]()
    assert store.parse_model(text, "layout", Snapshot).model == store.parse_model(SEED, "seed", Snapshot).model
    action, snapshot = proposed(either, capsys, text)
    assert (action["operation"], action.get("refused", "")) == ("create", "")
    assert store.parse_model(snapshot, "proposed", Snapshot).model == meant
    # In the file's own layout: only lines of the changed values differ, and every comment stays.
    changed = [
        line[1:].strip()
        for line in difflib.unified_diff(text.splitlines(), snapshot.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed, "the run changed nothing"
    keys = ("state:", "owner:", "state_revision:", "previous_state:", "blocked_by_ids:", "cuda.cache-weight-residency")
    assert [line for line in changed if not line.removeprefix("- ").startswith(keys)] == []
    # A packet's keys are written where the file writes them: at the column of its `lane:` lines.
    before = text.splitlines()
    column = {len(line) - len(line.lstrip()) for line in before if line.lstrip().startswith("lane: ")}
    added = [line.rstrip() for line in snapshot.splitlines() if line not in before]
    assert {len(line) - len(line.lstrip()) for line in added if not line.lstrip().startswith("- ")} == column
    comments = [line for line in text.splitlines() if line.lstrip().startswith("#")]
    assert [line for line in snapshot.splitlines() if line.lstrip().startswith("#")] == comments
