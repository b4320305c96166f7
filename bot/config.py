"""The bot's configuration (config/perfbot.yaml): paths, page texts, wording and rules."""

import contextlib
import re
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator, model_validator

from bot.errors import InputError, Problem
from bot.github.actions import GITHUB_BODY_LIMIT
from bot.github.branch_file import branch_file, branch_name_problem
from bot.snapshot.model import WorkState
from bot.snapshot.store import load_model

# The templates shipped inside the package (a link to the repository's `templates/` in a checkout).
SHIPPED_TEMPLATES = Path(__file__).resolve().parent / "templates"


class Strict(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


class PageText(Strict):
    """Fixed texts of the page; the shipped config carries the seed page's wording."""

    title: StrictStr = Field(description="The page title (front matter and heading).")
    description: StrictStr = Field(description="The front matter's description.")
    authority: StrictStr = Field(description="Printed after **Authority:**.")
    refresh: StrictStr = Field(description="Printed after **Refresh:**: how to regenerate the page.")
    execution_intro: StrictStr = Field(description='The paragraph opening "Divide-and-conquer execution".')
    arms_intro: StrictStr = Field(description='The paragraph opening "Graph-dependency-ready arms and collisions".')
    walk_intro: StrictStr = Field(description='The paragraph opening "OSS-to-performance walk".')
    source_queue_intro: StrictStr = Field(description='The paragraph opening "Current source queue projection".')
    update_contract: StrictStr = Field(description='The text of "Update contract".')
    dependency_graph: StrictBool = Field(
        default=False,
        description="Adds a mermaid graph of the work packets under their table (off: the upstream layout).",
    )
    empty_tables: StrictBool = Field(
        default=True,
        description="Prints the lever, gate and source-queue tables even with no rows, as upstream's page does "
        "(false, as `perfbot init` writes it: a table with no rows is left out, and so is a section left empty).",
    )


class LeaseRules(Strict):
    holder_issue_pattern: StrictStr = Field(
        default=r"issue-(\d+)",
        description="Regular expression whose first group is the issue a lease holder works for: a number "
        "here, or `owner/repo#N` for an issue of another repository (e.g. `issue-((?:[\\w.-]+/[\\w.-]+#)?\\d+)` "
        "reads `issue-acme/kernel#12-…`).",
    )
    ttl_minutes: StrictInt = Field(
        default=50,
        gt=0,
        le=10**6,
        description="Minutes after its last heartbeat (or acquisition) a lease is reported stale.",
    )
    grace_minutes: StrictInt = Field(
        default=5,
        ge=0,
        le=10**6,
        description="Minutes added to `ttl_minutes`; stale leases are reported and still counted.",
    )
    readback_max_age_minutes: StrictInt = Field(
        default=120,
        gt=0,
        description="A published readback read back longer ago than this is a warning in the plan, the job "
        "summary and the PR body; its leases still count.",
    )
    readback_refresh_minutes: StrictInt = Field(
        default=60,
        gt=0,
        description="`perfbot publish-leases` commits unchanged leases again once the published readback is "
        "this old, so a quiet fleet does not look stale; below `readback_max_age_minutes`.",
    )

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

    @model_validator(mode="after")
    def _refresh_before_stale(self) -> Self:
        if self.readback_refresh_minutes >= self.readback_max_age_minutes:
            raise ValueError(
                "readback_refresh_minutes must be below readback_max_age_minutes, or an unchanged readback "
                "looks stale before it is refreshed"
            )
        return self


LeaseSource = Literal["file", "pull-requests"]


class PullRequestLeases(Strict):
    """Which open pull requests count as leases, and when one is reported stale or released."""

    drafts: StrictBool = Field(
        default=True, description="A draft PR is a lease too (off: only PRs marked ready for review claim paths)."
    )
    bots: StrictBool = Field(
        default=False,
        description="A PR opened by a bot (Dependabot, Renovate, an App) is a lease too (off: automation claims "
        "no paths). perfbot's own regeneration PR is never one.",
    )
    ttl_days: StrictInt = Field(
        default=14,
        gt=0,
        le=3650,
        description="Days after its last push an open PR's lease is reported stale (it still counts: fail closed).",
    )
    released_days: StrictInt = Field(
        default=7,
        gt=0,
        le=3650,
        description="A PR merged or closed this many days ago or less is named as a released lease (in a ready "
        "comment, say); older ones are forgotten.",
    )


class LeaseSettings(Strict):
    """Where leases come from: dos's lease file, GitHub's open pull requests, or both."""

    file: StrictStr | None = Field(
        default=None,
        description="The lease readback, as the string form of `leases` takes it (a path or `BRANCH:PATH`).",
    )
    sources: tuple[LeaseSource, ...] = Field(
        default=("file",),
        min_length=1,
        description="`file` (the readback dos writes, at `file`) and/or `pull-requests` (each open PR is a lease on "
        "the paths it changes, held by its author; a PR that closes a packet's issue is that packet running).",
    )
    pull_requests: PullRequestLeases = Field(
        default=PullRequestLeases(), description="Which pull requests count, and for how long."
    )

    @field_validator("file")
    @classmethod
    def _a_file(cls, value: str | None) -> str | None:
        if value is not None:
            branch_file(value)  # a branch with a bad path is refused here, where the config names it
        return value

    @model_validator(mode="after")
    def _file_when_read(self) -> Self:
        if len(set(self.sources)) != len(self.sources):
            raise ValueError("sources: each source at most once")
        if "file" in self.sources and not self.file:
            raise ValueError("sources names `file` but no `file` is set: set it, or read `pull-requests` alone")
        return self


class OwnerWording(Strict):
    unassigned: StrictStr = Field(
        default="unassigned", description="Owner text of a packet whose issue has no assignee."
    )
    lease_suffix: StrictStr = Field(
        default=" / live DOS lease", description="Appended to the owner when the packet's issue holds a live lease."
    )
    pull_suffix: StrictStr = Field(
        default=" / PR {pulls}",
        description="Appended to the owner when an open pull request closes the packet's issue; `{pulls}` is "
        "the PRs' numbers (`#12`).",
    )
    assignee_separator: StrictStr = Field(default=", ", description="Joins several assignees.")
    # Owner text of a packet completed with a receipt; `{receipt}` is the issue number.
    accepted_receipt: StrictStr = Field(
        default="accepted receipt #{receipt}",
        description="Owner text of a packet completed with a receipt; `{receipt}` is the issue number "
        "(`#{receipt}` of another repository's issue is its `owner/repo#N`).",
    )


# GitHub's logins: letters, digits and single hyphens inside; a team's slug is its name in lower case.
_LOGIN = r"^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$"
_TEAM = r"^[a-z0-9][a-z0-9_-]{0,99}$"


class PullRequestSettings(Strict):
    branch: StrictStr = Field(default="perfbot/update", description="The one branch perfbot owns for its PR.")
    title: StrictStr = Field(
        default="perfbot: update the performance-constraints snapshot and page",
        description="The regeneration PR's title.",
    )
    merge: Literal["manual", "auto"] = Field(
        default="manual",
        description="`manual`: a person merges the PR. `auto`: the run that opens or updates it merges it when "
        "GitHub allows that now, else turns on GitHub's auto-merge when the default branch requires checks or "
        "reviews (and the repository allows auto-merge), else says in one line why neither is allowed "
        "(`perfbot init` writes `auto`).",
    )
    # Applied when perfbot opens the PR, never again: a label a person takes off, a review request
    # a person withdraws or a draft a person marks ready stays as they left it.
    labels: tuple[Annotated[StrictStr, Field(min_length=1, max_length=50)], ...] = Field(
        default=(), description="Labels put on the PR when perfbot opens it (GitHub makes a missing one)."
    )
    reviewers: tuple[Annotated[StrictStr, Field(max_length=39, pattern=_LOGIN)], ...] = Field(
        default=(), description="Logins whose review is requested when perfbot opens the PR (collaborators)."
    )
    team_reviewers: tuple[Annotated[StrictStr, Field(pattern=_TEAM)], ...] = Field(
        default=(), description="Team slugs (of the repository's organisation) whose review is requested likewise."
    )
    draft: StrictBool = Field(default=False, description="Opens the PR as a draft.")
    # create-pull-request's `delete-branch`; GitHub's own `delete_branch_on_merge` setting of the
    # repository deletes it at the merge instead, and then perfbot finds nothing to delete.
    delete_branch: StrictBool = Field(
        default=False,
        description="Deletes the PR branch once no PR of it is open (merged or closed, by a person or perfbot) and "
        "perfbot made its head commit: the run that closes the PR, or the first run after a merge, deletes it.",
    )

    @field_validator("branch")
    @classmethod
    def _a_branch(cls, name: str) -> str:
        """Refused here rather than by GitHub at the first PR write, after the run's comments."""
        problem = branch_name_problem(name)
        if problem is not None:
            raise ValueError(f"{name!r} {problem}")
        return name


# A prefix is matched at the start of a stripped line, followed by a space or the line's end: one
# that is empty, starts or ends with white space, or holds a line break would match no line (or every one).
_PREFIX = r"^[^\s\x00-\x1f\x7f]([^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f])?$"


class CommandSettings(Strict):
    prefix: StrictStr = Field(
        default="/perf",
        max_length=100,
        json_schema_extra={"pattern": _PREFIX},
        description="A comment line starting with this is a command (not empty; no white space at either end, "
        "no control character). The workflow's `if:` filters comments by it too: change both together.",
    )

    @field_validator("prefix")
    @classmethod
    def _a_prefix(cls, prefix: str) -> str:
        if not re.fullmatch(_PREFIX, prefix):
            raise ValueError(
                f"{prefix!r}: a prefix must be at least one character, with no white space at either end and no "
                "control character or line break (an empty one would make no comment line a command)"
            )
        return prefix

    review_days: StrictInt = Field(
        default=7, gt=0, description="Days from the comment's date to the new `review_by` of `/perf review`."
    )
    max_comment_chars: StrictInt = Field(
        default=65536, gt=0, description="Longer comments are answered but none of their commands are read."
    )
    edit_days: StrictInt = Field(
        default=7,
        gt=0,
        le=365,
        description="Days after a command comment is posted during which its author's edit of it is decided again, "
        "while nothing in it was accepted (a refused, malformed or mistyped command); until then it holds "
        "`commands_settled_through` before it.",
    )
    max_argument_chars: StrictInt = Field(default=1000, gt=0, description="Longest argument of one command.")
    max_commands_per_comment: StrictInt = Field(
        default=20, gt=0, description="Commands read from one comment; more is refused as a whole."
    )
    # New comments answered per person per run; the rest wait, so one person cannot crowd out others.
    max_comments_per_user: StrictInt = Field(
        default=5, gt=0, description="New comments answered per person per run; the rest wait for the next run."
    )
    # GitHub refuses bodies over 65,536 characters: a larger setting would fail a write on every run.
    max_body_chars: StrictInt = Field(
        default=60000,
        gt=1000,
        le=GITHUB_BODY_LIMIT,
        description="Longest body perfbot writes: replies, nudges, records, the dashboard and the PR body "
        "(GitHub refuses over 65,536).",
    )
    # Prow and triagebot stay quiet on success: a reply is a notification to everyone watching.
    replies: Literal["errors", "all"] = Field(
        default="errors",
        description="`errors`: an accepted command gets one 🚀 and no reply; perfbot replies only when there is "
        "something to read (a refusal and its fix, a `why` or `help` answer, a `drop`'s list). `all`: every "
        "command comment also gets 👀 first and a reply that says what was decided.",
    )


class LabelStyle(Strict):
    color: StrictStr = Field(pattern=r"^[0-9a-f]{6}$", description="Six lower-case hex digits, as GitHub takes them.")
    description: StrictStr = Field(max_length=100, description="What the state means (GitHub allows 100 characters).")


# One colour per family, the graph's: ready green, running blue, waiting yellow, hold red, complete grey.
DEFAULT_LABEL_STYLES: dict[WorkState, LabelStyle] = {
    "ready": LabelStyle(color="1a7f37", description="perfbot: a packet of this issue may start now"),
    "running": LabelStyle(color="0969da", description="perfbot: assigned, and a live lease is held for it"),
    "waiting-dependency": LabelStyle(color="9a6700", description="perfbot: a hard dependency is not complete"),
    "waiting-coordination": LabelStyle(
        color="9a6700", description="perfbot: another holder's lease or a blocker overlaps its paths"
    ),
    "waiting-evidence": LabelStyle(color="9a6700", description="perfbot: held for evidence by a person's decision"),
    "capacity-hold": LabelStyle(color="cf222e", description="perfbot: held for capacity by a person's decision"),
    "complete": LabelStyle(color="6e7781", description="perfbot: every packet of this issue met its exit"),
}


# The defaults' descriptions where pull requests are a lease source (`LabelSettings.style`).
PULL_LABEL_DESCRIPTIONS: dict[WorkState, str] = {
    "running": "perfbot: an open PR closes this issue, or it is assigned with a live lease",
    "waiting-coordination": "perfbot: an open PR, another holder's lease or a blocker overlaps its paths",
}


class LabelSettings(Strict):
    # Off unless set: a config written before the key existed must not label every issue at once.
    enabled: StrictBool = Field(
        default=False,
        description="Keep one state label per distinct packet state on each packet issue. Off unless set "
        "(`perfbot init` writes it on; a dry run says how many writes turning it on costs).",
    )
    prefix: StrictStr = Field(
        default="perf/",
        min_length=1,
        description="State labels are this prefix plus the state (`perf/ready`); perfbot touches no other label.",
    )
    styles: dict[WorkState, LabelStyle] = Field(
        default=DEFAULT_LABEL_STYLES,
        description="Colour and description of each state's label, used when perfbot creates it.",
    )

    def name(self, state: WorkState) -> str:
        return self.prefix + state

    def style(self, state: WorkState, pulls: bool = False) -> LabelStyle:
        """The state's style; a default one names open pull requests where they are leases (`pulls`)."""
        style = self.styles.get(state) or DEFAULT_LABEL_STYLES[state]
        if pulls and state in PULL_LABEL_DESCRIPTIONS and style == DEFAULT_LABEL_STYLES[state]:
            return style.model_copy(update={"description": PULL_LABEL_DESCRIPTIONS[state]})
        return style


class LinkSettings(Strict):
    # Off unless set, as labels are: turning them on is a choice made knowing the writes it costs.
    blocked_by: StrictBool = Field(
        default=False,
        description='Mirror open hard dependencies and blockers as GitHub\'s native "blocked by" links. Off unless '
        "set (`perfbot init` writes it on; a dry run says how many writes turning it on costs).",
    )
    sub_issues: StrictBool = Field(
        default=False,
        description="Make each program's packet issues sub-issues of its `authority_issue`. Off unless set "
        "(`perfbot init` writes it on; a dry run says how many writes turning it on costs).",
    )


class DashboardSettings(Strict):
    """The dashboard issue: one issue perfbot opens, labels and then edits in place when its content changes."""

    enabled: StrictBool = Field(
        default=False,
        description="Keep the dashboard issue (off: perfbot neither opens nor edits one, and leaves one that exists).",
    )
    title: StrictStr = Field(
        default="perfbot dashboard",
        min_length=1,
        max_length=256,
        description="The issue's title, set when perfbot opens it (a title a person gives it later is kept).",
    )
    label: StrictStr = Field(
        default="perfbot-dashboard",
        min_length=1,
        max_length=50,
        description="The label perfbot opens it with; it finds the issue again by this label and the hidden "
        "marker its body starts with.",
    )


class BotConfig(Strict):
    snapshot: StrictStr = Field(
        description="The snapshot file. Paths are relative to the repository root, the parent of the config's folder."
    )
    page: StrictStr = Field(description="The generated page (relative to the repository root).")
    leases: StrictStr | LeaseSettings = Field(
        description="The lease readback: a path in the repository (a `dos lease-lane live` JSON array, a dos lane "
        "journal (JSONL) or a published readback), or `BRANCH:PATH`, e.g. `perfbot/leases:leases.json`, where "
        "`perfbot publish-leases` publishes it. Or a mapping with `sources` (`file`, `pull-requests` or both): "
        "a team without dos reads its open pull requests as leases."
    )
    templates: StrictStr | None = Field(
        default=None,
        description="A directory of templates (relative to the repository root); each replaces the shipped template "
        "of the same name, and the shipped ones serve for the names it lacks.",
    )
    page_text: PageText = Field(description="Fixed texts of the page.")
    leases_rules: LeaseRules = Field(default=LeaseRules(), description="How leases map to issues and go stale.")
    owner: OwnerWording = Field(default=OwnerWording(), description="Owner text perfbot writes.")
    pull_request: PullRequestSettings = Field(default=PullRequestSettings(), description="The regeneration PR.")
    commands: CommandSettings = Field(default=CommandSettings(), description="Slash commands and their limits.")
    labels: LabelSettings = Field(default=LabelSettings(), description="State labels on packet issues.")
    links: LinkSettings = Field(default=LinkSettings(), description="GitHub's native dependencies and sub-issues.")
    dashboard: DashboardSettings = Field(
        default=DashboardSettings(), description="The dashboard issue, kept true in place."
    )
    bot_login: StrictStr | None = Field(
        default=None,
        description="The bot's GitHub login. Unset, a live run learns it from the token (GraphQL `viewer`): "
        "`<app-slug>[bot]` for a GitHub App, `github-actions[bot]` for Actions' GITHUB_TOKEN.",
    )

    @field_validator("leases")
    @classmethod
    def _leases_source(cls, value: str | LeaseSettings) -> str | LeaseSettings:
        if isinstance(value, str):
            branch_file(value)  # a branch with a bad path is refused here, where the config names it
        return value

    @property
    def lease_file(self) -> str | None:
        """The lease readback's place, when the file is a source (the string form of `leases` is)."""
        if isinstance(self.leases, str):
            return self.leases
        return self.leases.file if "file" in self.leases.sources else None

    @property
    def pull_leases(self) -> PullRequestLeases | None:
        """How open pull requests count as leases; None when they are not a source."""
        if isinstance(self.leases, LeaseSettings) and "pull-requests" in self.leases.sources:
            return self.leases.pull_requests
        return None


class Settings(BaseModel):
    """A loaded config plus the repository root its paths are relative to."""

    model_config = ConfigDict(defer_build=True, frozen=True)

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
    def leases_path(self) -> Path | None:
        file = self.config.lease_file
        return None if file is None else self.path(file)

    @property
    def templates_path(self) -> Path:
        if self.config.templates is None:
            return SHIPPED_TEMPLATES
        return self.path(self.config.templates)


def load_settings(path: Path) -> Settings:
    """Load the config; the repository root is the parent of the config file's directory."""
    loaded = load_model(path, BotConfig)
    root = path.resolve().parent.parent
    with contextlib.suppress(ValueError):  # keep messages short when the repo is under the cwd
        root = root.relative_to(Path.cwd())
    settings = Settings(config=loaded.model, root=root, file=path)
    templates = loaded.model.templates
    if templates is not None and not settings.templates_path.is_dir():
        # Else every template would silently come from the shipped set, and the repository's own never.
        line, column = loaded.locate(("templates",))
        where = settings.templates_path
        found = "is not a folder" if where.exists() else "does not exist"
        raise InputError([Problem(str(path), line, column, f"templates: {templates!r} ({where}) {found}")])
    return settings
