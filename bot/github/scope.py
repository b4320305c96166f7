"""What a live run reads: the issues, the files and the branch the repository's config names.

The live adapter reads GitHub through this, so it knows nothing of snapshots or commands: the
two questions that need them (which issues a snapshot names, whose permission to ask) are
functions handed in by the gather step.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from bot.github.branch_file import BranchFile
from bot.github.observed import Observed


class ReadScope(NamedTuple):
    # Issue numbers the local snapshot names: read in the first query.
    issues: frozenset[int]
    # The files the regeneration PR writes, snapshot first then page: read at the default
    # branch's tip and at the PR branch's head.
    files: tuple[str, ...]
    # The regeneration PR's branch; the PR's files are read at its head.
    branch: str
    # The issue numbers a snapshot's text names: a tip whose snapshot names others is read again.
    issues_in: Callable[[str], frozenset[int]]
    # Authors of commands not answered yet: the only people whose permission is asked.
    pending_authors: Callable[[Observed], frozenset[str]]
    # The bot's login when the config pins it; else it is learnt from the token.
    bot_login: str | None = None
    # Files read at the tip only (the lease readback, when the run uses the config's).
    tip_only: tuple[str, ...] = ()
    # The regeneration commit's message.
    commit_message: str = "perfbot: update the snapshot and page"
    # Files read on other branches (the published lease readback, when the run reads one).
    branch_files: tuple[BranchFile, ...] = ()
    # perfbot's state labels start with this: the repository's such labels and every issue's label
    # events are read too. Empty when state labels are off.
    label_prefix: str = ""
    # Whether native links (blocked by, parent, sub-issues) are read.
    links: bool = False
    # The dashboard issue's label when the dashboard is on: the issues carrying it are read (never cached).
    dashboard_label: str = ""
    # Whether the repository's open pull requests are read as leases (with their changed paths and
    # closing references), and its recently closed ones as released leases.
    pull_leases: bool = False
    # The observation cache of a live run (`--cache`): issues unchanged since it are not read again.
    cache: Path | None = None

    @property
    def snapshot_file(self) -> str:
        return self.files[0]

    @property
    def tip_files(self) -> tuple[str, ...]:
        return (*self.files, *self.tip_only)
