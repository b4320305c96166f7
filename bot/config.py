"""The bot's configuration (config/perfbot.yaml): paths, page texts, wording and rules."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from bot.snapshot.store import load_model


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PageText(Strict):
    """Fixed texts of the page; the shipped config carries the seed page's wording."""

    title: StrictStr
    description: StrictStr
    authority: StrictStr
    refresh: StrictStr
    execution_intro: StrictStr
    arms_intro: StrictStr
    walk_intro: StrictStr
    source_queue_intro: StrictStr
    update_contract: StrictStr


class LeaseRules(Strict):
    holder_issue_pattern: StrictStr = r"issue-(\d+)"
    ttl_minutes: StrictInt = Field(default=50, gt=0, le=10**6)
    grace_minutes: StrictInt = Field(default=5, ge=0, le=10**6)

    @field_validator("holder_issue_pattern")
    @classmethod
    def _one_group(cls, pattern: str) -> str:
        """The issue number is the pattern's first group, so it must compile and have one."""
        try:
            groups = re.compile(pattern).groups
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        if groups < 1:
            raise ValueError("needs a group around the issue number, as in issue-(\\d+)")
        return pattern


class OwnerWording(Strict):
    unassigned: StrictStr = "unassigned"
    lease_suffix: StrictStr = " / live DOS lease"
    assignee_separator: StrictStr = ", "
    # Owner text of a packet completed with a receipt; `{receipt}` is the issue number.
    accepted_receipt: StrictStr = "accepted receipt #{receipt}"


class PullRequestSettings(Strict):
    branch: StrictStr = "perfbot/update"
    title: StrictStr = "perfbot: update the performance-constraints snapshot and page"


class CommandSettings(Strict):
    prefix: StrictStr = "/perf"
    review_days: StrictInt = Field(default=7, gt=0)
    max_comment_chars: StrictInt = Field(default=65536, gt=0)
    max_argument_chars: StrictInt = Field(default=1000, gt=0)
    max_commands_per_comment: StrictInt = Field(default=20, gt=0)
    # New comments answered per person per run; the rest wait, so one person cannot crowd out others.
    max_comments_per_user: StrictInt = Field(default=5, gt=0)
    # GitHub refuses bodies over 65,536 characters; replies and PR bodies stay below this.
    max_body_chars: StrictInt = Field(default=60000, gt=1000)


class BotConfig(Strict):
    snapshot: StrictStr
    page: StrictStr
    leases: StrictStr
    templates: StrictStr = "templates"
    page_text: PageText
    leases_rules: LeaseRules = LeaseRules()
    owner: OwnerWording = OwnerWording()
    pull_request: PullRequestSettings = PullRequestSettings()
    commands: CommandSettings = CommandSettings()


class Settings(BaseModel):
    """A loaded config plus the repository root its paths are relative to."""

    model_config = ConfigDict(frozen=True)

    config: BotConfig
    root: Path
    file: Path

    def path(self, relative: str) -> Path:
        return self.root / relative

    @property
    def snapshot_path(self) -> Path:
        return self.path(self.config.snapshot)

    @property
    def page_path(self) -> Path:
        return self.path(self.config.page)

    @property
    def leases_path(self) -> Path:
        return self.path(self.config.leases)

    @property
    def templates_path(self) -> Path:
        return self.path(self.config.templates)


def load_settings(path: Path) -> Settings:
    """Load the config; the repository root is the parent of the config file's directory."""
    loaded = load_model(path, BotConfig)
    root = path.resolve().parent.parent
    with contextlib.suppress(ValueError):  # keep messages short when the repo is under the cwd
        root = root.relative_to(Path.cwd())
    return Settings(config=loaded.model, root=root, file=path)
