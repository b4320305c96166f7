"""What perfbot observes of GitHub: issues, comments, reactions, permissions, pull requests.

These models are tolerant (unknown fields ignored): they describe what GitHub sends, and the
offline state file that stands in for it uses the same shapes.
"""

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StrictInt, field_validator

from bot.issue_refs import GitHubIssueRef, IssueKey, in_repository
from bot.timestamps import comparable

# GitHub lists at most this many files of a pull request ("List pull requests files" in its REST
# reference: "Responses include a maximum of 3000 files"): a PR that changes more claims `**`.
PULL_FILES_LISTED = 3000
Permission = Literal["none", "read", "triage", "write", "maintain", "admin"]


def is_bot(login: str, account_type: str = "User", own_login: str = "") -> bool:
    """Whether an account is a bot: GitHub says so, its login is an app's (`name[bot]`), or it is ours."""
    return account_type == "Bot" or login.endswith("[bot]") or (bool(own_login) and login == own_login)


# A time with an offset that can be compared with any other (see `timestamps.comparable`).
Moment = Annotated[AwareDatetime, AfterValidator(comparable)]


class Tolerant(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(text: str) -> str:
    """JSON can carry a lone UTF-16 surrogate; it cannot be encoded, so it becomes U+FFFD."""
    # Only text that UTF-8 cannot encode holds one: that test runs at memory speed, where the
    # pattern's scan cost a tenth of a second per run on 150 comments of 64 KiB.
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


# How many of an issue's latest unassignments are read (and kept by the offline state file).
UNASSIGNED_KEPT = 20


class Unassignment(Tolerant):
    """GitHub's record of an assignee taken off an issue (its timeline's `UnassignedEvent`)."""

    login: str = Field(description="Who was unassigned.")
    actor: str = Field(default="", description="Who unassigned them (a Bot's login as REST spells it: `x[bot]`).")
    created_at: Moment = Field(description="When, ISO-8601 with a time zone.")


class Issue(Tolerant):
    number: StrictInt = Field(gt=0, description="The issue number.")
    # Absent for an issue of the bot's own repository: every single-repository state reads as before.
    repository: str | None = Field(
        default=None,
        description="`owner/name` of the repository the issue is in, when that is not this one (a snapshot may "
        "name `owner/repo#N`).",
        exclude_if=lambda value: value is None,
    )
    title: str = Field(default="", description="The issue's title.")
    state: Literal["open", "closed"] = Field(default="open", description="Whether the issue is open.")
    # GitHub sets "reopened" on an issue that was closed and opened again.
    state_reason: str | None = Field(default=None, description="`reopened` for an issue closed and opened again.")
    assignees: tuple[str, ...] = Field(default=(), description="Logins assigned to the issue.")
    unassigned: tuple[Unassignment, ...] = Field(
        default=(),
        description="The latest assignees taken off it, oldest first (GitHub's `UnassignedEvent`s): an `unclaim` "
        "that perfbot carried out before a crash is told from one that had nothing to take back.",
    )
    labels: tuple[str, ...] = Field(default=(), description="Label names.")
    blocked_by: tuple[GitHubIssueRef, ...] = Field(
        default=(), description="Issues this one is natively blocked by (GitHub's issue dependencies)."
    )
    parent: GitHubIssueRef | None = Field(default=None, description="The issue this one is a sub-issue of.")
    sub_issues: tuple[GitHubIssueRef, ...] = Field(
        default=(), description="Its sub-issues, those not tracked too (GitHub allows 100 per parent)."
    )
    # GitHub's database id: REST's dependency and sub-issue endpoints name issues by it.
    database_id: StrictInt | None = Field(
        default=None, description="GitHub's numeric id of the issue (not its number); a live run reads it."
    )
    # Read only for the dashboard issue: perfbot finds its own by the author and the marker in the body.
    user: str = Field(default="", description="The author's login (read for the dashboard issue).")
    body: str = Field(default="", description="The issue's Markdown text (read for the dashboard issue).")

    @field_validator("body", "user")
    @classmethod
    def _encodable(cls, value: str) -> str:
        return _without_lone_surrogates(value)

    @property
    def key(self) -> IssueKey:
        """How the snapshot and every decision name this issue: its number, or `owner/repo#N`."""
        return in_repository(self.repository, self.number)


class Comment(Tolerant):
    id: StrictInt = Field(gt=0, description="The comment id (the number in its `#issuecomment-` link).")
    issue: GitHubIssueRef = Field(
        description="The issue the comment is on (a number, or `owner/repo#N`); it must be listed in `issues`."
    )
    user: str = Field(description="The author's login.")
    created_at: Moment = Field(description="When it was posted, ISO-8601 with a time zone.")
    body: str = Field(default="", description="The comment's Markdown text.")
    user_type: Literal["User", "Bot", "Organization"] = Field(
        default="User", description="The author's account type; comments by bots are not read."
    )
    edited: bool = Field(default=False, description="Edited comments are not read.")
    # GitHub's `editor`: a bot comment someone else edited carries no marker that counts.
    editor: str | None = Field(
        default=None,
        description="Who last edited it (GitHub's `editor`); unset: nobody, or its author. A comment of perfbot's "
        "edited by anyone else carries no marker or record that counts.",
    )

    def edited_by_other_than(self, login: str) -> str:
        """Who edited it, when that is not `login` ("" when nobody else did)."""
        if not self.edited or self.editor is None or self.editor == login:
            return ""
        return self.editor

    @field_validator("body", "user")
    @classmethod
    def _encodable(cls, value: str) -> str:
        return _without_lone_surrogates(value)


class RepositoryLabel(Tolerant):
    name: str = Field(description="The label's name.")
    color: str = Field(default="ededed", description="Its colour, six hex digits.")
    description: str | None = Field(default=None, description="Its description.")


class LabelEvent(Tolerant):
    """A label put on or taken off an issue, and by whom: GitHub's own record of who removed a label."""

    issue: GitHubIssueRef = Field(description="The issue (a number, or `owner/repo#N`).")
    label: str = Field(description="The label's name.")
    action: Literal["labeled", "unlabeled"] = Field(description="Whether the label was added or removed.")
    actor: str = Field(description="Who did it.")
    created_at: AwareDatetime = Field(description="When, ISO-8601 with a time zone.")


class Reaction(Tolerant):
    comment_id: StrictInt = Field(gt=0, description="The comment reacted to.")
    user: str = Field(description="Who reacted.")
    content: str = Field(description="The reaction, e.g. `eyes`, `rocket`, `confused`.")


class PullRequest(Tolerant):
    number: StrictInt = Field(gt=0, description="The pull request number.")
    state: Literal["open", "closed", "merged"] = Field(default="open", description="Its state.")
    head: str = Field(description="Its branch; perfbot's own is `pull_request.branch`.")
    # A fork's branch can carry perfbot's branch name: such a PR is anyone's, never perfbot's.
    head_repository: str | None = Field(
        default=None,
        description="`OWNER/NAME` of the repository its branch is in, when that is not this one (a fork's PR).",
    )
    title: str = Field(default="", description="Its title.")
    body: str = Field(default="", description="Its body.")
    files: dict[str, str] = Field(default={}, description="Repository path to the full content the branch holds.")
    # GitHub's `editor` of the PR's body: records in a body someone else edited do not count.
    editor: str | None = Field(
        default=None,
        description="Who last edited its body (GitHub's `editor`); unset: nobody but perfbot since it was opened. "
        "The records in a body last edited by anyone but perfbot do not count.",
    )
    # Commits on the branch that the bot did not make: the bot must not overwrite them.
    foreign_commits: bool = Field(
        default=False, description="True when the branch has commits perfbot did not make; it then leaves the PR."
    )
    # What makes a person's PR a lease (`leases.sources: [pull-requests]`); read only then.
    user: str = Field(default="", description="Its author's login.")
    user_type: Literal["User", "Bot", "Organization"] = Field(
        default="User", description="The author's account type; a bot's PR is no lease unless configured."
    )
    draft: bool = Field(default=False, description="Whether it is a draft.")
    paths: tuple[str, ...] = Field(
        default=(), description="The paths it changes, as GitHub lists them (at most 3,000)."
    )
    changed_files: StrictInt | None = Field(
        default=None, ge=0, description="How many files it changes (GitHub's count; `paths` may list fewer)."
    )
    closes: tuple[GitHubIssueRef, ...] = Field(
        default=(),
        description="The issues it closes when merged (GitHub's closing references): numbers here, "
        "`owner/repo#N` in another repository.",
    )
    pushed_at: Moment | None = Field(default=None, description="Its last push (its newest commit's time).")
    head_sha: str | None = Field(
        default=None, description="The commit at its branch's head when perfbot last wrote it (offline only)."
    )
    message: str = Field(
        default="",
        description="The message of the commit perfbot last made on its branch (offline only): its trailers "
        "record the commands answered quietly.",
    )
    closed_at: Moment | None = Field(default=None, description="When it was merged or closed.")

    @field_validator("user")
    @classmethod
    def _encodable(cls, value: str) -> str:
        return _without_lone_surrogates(value)


class MergeRules(Tolerant):
    """The repository's merge rules as an offline state gives them (a live run reads GitHub's)."""

    auto_merge_allowed: bool = Field(default=False, description="The repository allows auto-merge.")
    requires_checks: bool = Field(
        default=False,
        description="The default branch requires status checks or reviews that the PR has not passed yet.",
    )
    methods: tuple[Literal["MERGE", "SQUASH", "REBASE"], ...] = Field(
        default=("MERGE", "SQUASH", "REBASE"), description="The merge methods the repository allows."
    )


class BranchHead(Tolerant):
    """A branch as GitHub holds it: its head commit, and whether perfbot made that commit."""

    oid: str = Field(description="Its head commit.")
    ours: bool = Field(default=True, description="Whether perfbot made the head commit.")


class DefaultBranch(Tolerant):
    """The default branch's tip as GitHub holds it: its commit and the files perfbot decides on.

    A run decides on these, not on a checkout that may be older (a push landed after it) or of
    another branch; the regeneration commit's parent is this tip.
    """

    oid: str
    files: dict[str, str] = {}


TokenAccess = Literal["write", "read", "none"]


class RepositoryAccess(Tolerant):
    """Another repository, as a run sees it: what its token may do there, and who may do what."""

    token: TokenAccess = Field(
        default="write",
        description="What the run's token may do there: `write` (comments, labels, links), `read` (only read: "
        "nothing is written there, and the plan says so), `none` (not even read).",
    )
    permissions: dict[str, Permission] = Field(
        default={}, description="Each login's permission in that repository; a login absent here has `none`."
    )
    reason: str = Field(default="", description="What GitHub said when it refused (a live run fills it in).")
    labels: tuple[RepositoryLabel, ...] = Field(
        default=(), description="That repository's labels under perfbot's prefix (others may be left out)."
    )


# `beforeOid` for a ref that does not exist (GraphQL reference, `updateRefs`): no branch.
NO_BRANCH = "0" * 40


class OwnCommit(Tolerant):
    """The newest commit perfbot made on its branch: one GitHub signed for perfbot's own login (a
    person cannot make GitHub sign a commit as perfbot), whose message records quiet answers."""

    oid: str = Field(description="The commit's id.")
    message: str = Field(default="", description="Its message.")


class Observed(Tolerant):
    """Everything a run reads from GitHub, gathered before deciding."""

    repository: str = Field(default="owner/name", description="`owner/name`, used in links.")
    bot_login: str = Field(default="perfbot[bot]", description="perfbot's own login: only its comments carry markers.")
    issues: tuple[Issue, ...] = Field(default=(), description="The issues perfbot reads.")
    comments: tuple[Comment, ...] = Field(default=(), description="Issue comments, with perfbot's own.")
    commandless: tuple[StrictInt, ...] = Field(
        default=(),
        description="Comments an earlier run read and found to hold no command, unedited since (the live "
        "adapter's observation cache remembers them): not read again.",
    )
    reactions: tuple[Reaction, ...] = Field(default=(), description="Reactions on comments.")
    permissions: dict[str, Permission] = Field(
        default={}, description="Each login's repository permission; a login absent here has `none`."
    )
    repositories: dict[str, RepositoryAccess] = Field(
        default={},
        description="The other repositories the snapshot's issues are in (`owner/name`): what the token may do "
        "there and each login's permission there.",
        exclude_if=lambda repositories: not repositories,
    )
    pulls: tuple[PullRequest, ...] = Field(default=(), description="Pull requests; perfbot looks at its own branch.")
    branches: dict[str, BranchHead] = Field(
        default={},
        description="perfbot's PR branch (`pull_request.branch`) when it exists: its head commit and whether perfbot "
        "made it (`pull_request.delete_branch` deletes it once no PR of it is open).",
        exclude_if=lambda heads: not heads,
    )
    labels: tuple[RepositoryLabel, ...] = Field(
        default=(), description="The repository's labels under perfbot's prefix (others may be left out)."
    )
    label_events: tuple[LabelEvent, ...] = Field(
        default=(), description="Labels added to and removed from the issues, oldest first."
    )
    # Set when GitHub refused to read native links (an older GitHub Enterprise Server): no link is planned.
    links_unavailable: str = Field(default="", description="Why native links could not be read; empty when they were.")
    # None when the default branch was not read (an offline state without it): the local files count.
    default_branch: DefaultBranch | None = Field(
        default=None, description="The default branch's tip and files, when the state carries them."
    )
    merge_rules: MergeRules = Field(
        default=MergeRules(),
        description="How GitHub would let the regeneration PR merge, for `pull_request.merge: auto` (offline only).",
        exclude_if=lambda rules: rules == MergeRules(),
    )
    # Files read on other branches: the published lease readback when `leases` is `BRANCH:PATH`.
    branch_files: dict[str, dict[str, str]] = Field(
        default={},
        description="Files on branches other than the default one, branch -> path -> text: where a `leases` "
        "of the form `BRANCH:PATH` (the readback `perfbot publish-leases` publishes) is read.",
        exclude_if=lambda files: not files,
    )

    branch_head: str | None = Field(
        default=None,
        description="The commit at the head of perfbot's branch as a live run read it (forty zeros: no branch); "
        "not read from a state file, where the open PR's `head_sha` says it.",
        exclude=True,
    )
    own_commit: OwnCommit | None = Field(
        default=None,
        description="The newest commit on perfbot's branch that perfbot made; unset offline, where the newest "
        "PR from its branch says it (`head_sha`, `message`).",
        exclude_if=lambda commit: commit is None,
    )
    others_commits: tuple[OwnCommit, ...] = Field(
        default=(),
        description="Commits on perfbot's branch above its newest own one that perfbot did not make and whose "
        "messages carry its record trailers: never counted, only named.",
        exclude_if=lambda commits: not commits,
    )

    def head_of(self, branch: str) -> str:
        """The head of perfbot's branch this run decides on: the PR branch moves only from there."""
        if self.branch_head is not None:
            return self.branch_head
        pull = self.open_pull(branch)
        return NO_BRANCH if pull is None else pull.head_sha or f"pull-{pull.number}"

    def own_commit_on(self, branch: str) -> OwnCommit | None:
        """perfbot's newest commit on `branch` (offline: the message written with its newest PR)."""
        if self.own_commit is not None or self.branch_head is not None:
            return self.own_commit
        mine = [p for p in self.pulls if p.head == branch and not self.from_fork(p) and p.message]
        newest = max(mine, key=lambda p: p.number, default=None)
        return None if newest is None else OwnCommit(oid=newest.head_sha or "", message=newest.message)

    def left_behind(self, branch: str) -> str:
        """Why perfbot's next commit on `branch`, made on the default branch's tip, leaves commits
        behind: no PR is open from the branch and its head is not perfbot's ("" when it is, or
        when there is no branch). Those commits stay in the PR they were pushed to."""
        if self.open_pull(branch) is not None:
            return ""
        if self.branch_head is not None:
            own = self.own_commit.oid if self.own_commit is not None else None
            if self.branch_head in (NO_BRANCH, own):
                return ""
            return f"its head {self.branch_head[:12]} is a commit perfbot did not make, and no PR is open from it"
        mine = [p for p in self.pulls if p.head == branch and not self.from_fork(p)]
        newest = max(mine, key=lambda p: p.number, default=None)
        if newest is None or not newest.foreign_commits:
            return ""
        return f"it holds commits perfbot did not make, and its PR #{newest.number} was {newest.state}"

    def issues_by_number(self) -> dict[IssueKey, Issue]:
        return {i.key: i for i in self.issues}

    def permission(self, login: str, repository: str | None = None) -> Permission:
        """`login`'s permission in this repository, or in another one the snapshot names."""
        if repository is None:
            return self.permissions.get(login, "none")
        access = self.repository_access(repository)
        return access.permissions.get(login, "none") if access else "none"

    def elsewhere(self) -> dict[str, dict[str, Permission]]:
        """Each other repository's permissions (its name case folded, then login)."""
        return {name.casefold(): access.permissions for name, access in self.repositories.items()}

    def repository_access(self, repository: str) -> RepositoryAccess | None:
        return next((a for name, a in self.repositories.items() if name.casefold() == repository.casefold()), None)

    def bot_comments(self, issue: IssueKey | None = None) -> list[Comment]:
        """Comments authored by the bot itself and edited by nobody else (GitHub's `editor`): only
        these may carry markers that count. A person with write access can edit any comment, but
        cannot make GitHub name perfbot as the editor of their text."""
        return [
            c
            for c in self.comments
            if c.user == self.bot_login
            and not c.edited_by_other_than(self.bot_login)
            and (issue is None or c.issue == issue)
        ]

    def tampered_bot_comments(self) -> list[Comment]:
        """The bot's comments someone else edited since: their markers are not counted."""
        return [c for c in self.comments if c.user == self.bot_login and c.edited_by_other_than(self.bot_login)]

    def pull_body_stranger(self, pull: PullRequest) -> str:
        """Who, other than perfbot, opened `pull` or last edited its body ("" when nobody did)."""
        for login in (pull.user, pull.editor):
            if login and login != self.bot_login:
                return login
        return ""

    def open_pull(self, branch: str) -> PullRequest | None:
        """perfbot's open PR: from `branch` of this repository (a fork's branch of that name is not it)."""
        return next((p for p in self.open_pulls(branch) if not self.from_fork(p)), None)

    def fork_pulls(self, branch: str) -> list[PullRequest]:
        """Open PRs from a fork's branch named `branch`: perfbot leaves them alone, and says so."""
        return [p for p in self.open_pulls(branch) if self.from_fork(p)]

    def open_pulls(self, branch: str) -> list[PullRequest]:
        return [p for p in self.pulls if p.head == branch and p.state == "open"]

    def from_fork(self, pull: PullRequest) -> bool:
        return pull.head_repository is not None and pull.head_repository.casefold() != self.repository.casefold()
