"""The files of a new adoption, composed from templates shipped inside the package and checked.

The config, an example snapshot that validates, the page rendered from it, an empty lease
readback, the JSON Schemas that the config's and the snapshot's `$schema` lines point to (so an
editor finds them, and `perfbot schema --check` passes), and the workflow, whose `push` trigger
names the repository's default branch and which starts a run when `publish-leases` sends its
`perfbot-leases` dispatch.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from bot.config import SHIPPED_TEMPLATES, BotConfig, LeaseSource
from bot.render import Renderer
from bot.schema_kinds import KINDS
from bot.schemas import file_name, schema_text
from bot.snapshot.checked import checked_text
from bot.snapshot.store import parse_model

CONFIG = "config/perfbot.yaml"
SNAPSHOT = "config/snapshot.yaml"
LEASES = "config/leases.json"
DOS = ".dos"  # where dos keeps its lane journal: a repository that has it reads the lease file
WORKFLOW = ".github/workflows/perfbot.yml"
# Until `--action` names the perfbot action, pinned to a commit, the workflow holds this: shaped
# as a pin (so zizmor and actionlint pass the file), and failing the job until it is replaced.
UNSET_ACTION = "OWNER/perfbot@0000000000000000000000000000000000000000"
REVIEW_DAYS = 14
# Characters of a workflow's branch filter that make a pattern (`*`, `?` and `[` git refuses already).
_PATTERN = re.compile(r"([+!*?\[\]])")


def push_filter(branch: str) -> str:
    """The branch as a `push: branches:` entry that matches it alone: its pattern characters
    escaped, as a quoted YAML string (a JSON string is one), so no name changes the file's shape."""
    return json.dumps(_PATTERN.sub(r"\\\1", branch))


def lease_source(root: Path) -> LeaseSource:
    """Where a new adoption reads its leases: the lease file when one is set up (dos's `.dos/` folder,
    or a `config/leases.json` already there), else the repository's open pull requests."""
    return "file" if (root / DOS).is_dir() or (root / LEASES).exists() else "pull-requests"


def scaffold(today: dt.date, action: str | None, branch: str, leases: LeaseSource = "file") -> dict[str, str]:
    """The files of a new adoption, by repository path; the snapshot and config are validated.
    `leases` is where it reads leases: `file` writes an empty readback, `pull-requests` none."""
    renderer = Renderer.from_directory(SHIPPED_TEMPLATES)
    pulls = leases == "pull-requests"
    files = {
        CONFIG: renderer.render("scaffold/perfbot.yaml.j2", pulls=pulls),
        SNAPSHOT: renderer.render(
            "scaffold/snapshot.yaml.j2", today=today.isoformat(), review_by=today + dt.timedelta(days=REVIEW_DAYS)
        ),
        WORKFLOW: renderer.render(
            "scaffold/workflow.yml.j2",
            action=action or UNSET_ACTION,
            unset=action is None,
            branch=push_filter(branch),
            pulls=pulls,
        ),
    }
    if not pulls:
        files[LEASES] = renderer.render("scaffold/leases.json.j2")
    config = parse_model(files[CONFIG], CONFIG, BotConfig).model
    snapshot = checked_text(files[SNAPSHOT], SNAPSHOT).model
    files[config.page] = renderer.page(snapshot, config.page_text)
    for kind in KINDS:
        files[file_name(kind)] = schema_text(kind)
    return files
