"""`perfbot init`: scaffold a repository that adopts perfbot.

It writes the config, an example snapshot that validates, the page rendered from it, an empty
lease readback and the workflow, all from templates shipped inside the package. Every file is
composed and checked first; if any of them already exists, nothing is written.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from bot.config import SHIPPED_TEMPLATES, BotConfig
from bot.errors import InputError, Problem
from bot.files import write_atomic
from bot.render import Renderer
from bot.snapshot.checked import checked_text
from bot.snapshot.store import parse_model

CONFIG = "config/perfbot.yaml"
SNAPSHOT = "config/snapshot.yaml"
LEASES = "config/leases.json"
WORKFLOW = ".github/workflows/perfbot.yml"
# Until `--action` names the perfbot action to use, pinned to a commit, the workflow says so.
UNSET_ACTION = "OWNER/perfbot@COMMIT-SHA"
_PINNED_ACTION = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}")
REVIEW_DAYS = 14


def scaffold(today: dt.date, action: str | None) -> dict[str, str]:
    """The files of a new adoption, by repository path; the snapshot and config are validated."""
    if action is not None and not _PINNED_ACTION.fullmatch(action):
        raise InputError([Problem("--action", 0, 0, f"{action!r} is not OWNER/REPO@<40-hex commit SHA>")])
    renderer = Renderer.from_directory(SHIPPED_TEMPLATES)
    files = {
        CONFIG: renderer.render("scaffold/perfbot.yaml.j2"),
        SNAPSHOT: renderer.render(
            "scaffold/snapshot.yaml.j2", today=today.isoformat(), review_by=today + dt.timedelta(days=REVIEW_DAYS)
        ),
        LEASES: renderer.render("scaffold/leases.json.j2"),
        WORKFLOW: renderer.render("scaffold/workflow.yml.j2", action=action or UNSET_ACTION),
    }
    config = parse_model(files[CONFIG], CONFIG, BotConfig).model
    snapshot = checked_text(files[SNAPSHOT], SNAPSHOT).model
    files[config.page] = renderer.page(snapshot, config.page_text)
    return files


def init(directory: Path, today: dt.date, action: str | None) -> list[str]:
    """Write the scaffold under `directory`; refuse, writing nothing, if any file is there already."""
    files = scaffold(today, action)
    existing = [path for path in files if (directory / path).exists()]
    if existing:
        raise InputError(
            [Problem(str(directory / path), 0, 0, "already exists; perfbot init writes nothing") for path in existing]
        )
    for path, text in files.items():
        write_atomic(directory / path, text)
    return list(files)
