"""What perfbot observes of GitHub: issues, comments, reactions, permissions, pull requests.

These models are tolerant (unknown fields ignored): they describe what GitHub sends, and the
offline state file that stands in for it uses the same shapes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StrictInt, field_validator

from bot.timestamps import comparable

Permission = Literal["none", "read", "triage", "write", "maintain", "admin"]


# A time with an offset that can be compared with any other (see `timestamps.comparable`).
Moment = Annotated[AwareDatetime, AfterValidator(comparable)]


class Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _without_lone_surrogates(text: str) -> str:
    """JSON can carry a lone UTF-16 surrogate; it cannot be encoded, so it becomes U+FFFD."""
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


class Issue(Tolerant):
    number: StrictInt = Field(gt=0)
    title: str = ""
    state: Literal["open", "closed"] = "open"
    # GitHub sets "reopened" on an issue that was closed and opened again.
    state_reason: str | None = None
    assignees: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()


class Comment(Tolerant):
    id: StrictInt = Field(gt=0)
    issue: StrictInt = Field(gt=0)
    user: str
    created_at: Moment
    body: str = ""
    user_type: Literal["User", "Bot", "Organization"] = "User"
    edited: bool = False

    @field_validator("body", "user")
    @classmethod
    def _encodable(cls, value: str) -> str:
        return _without_lone_surrogates(value)


class Reaction(Tolerant):
    comment_id: StrictInt
    user: str
    content: str


class PullRequest(Tolerant):
    number: StrictInt = Field(gt=0)
    state: Literal["open", "closed", "merged"] = "open"
    head: str
    title: str = ""
    body: str = ""
    files: dict[str, str] = {}
    # Commits on the branch that the bot did not make: the bot must not overwrite them.
    foreign_commits: bool = False


class Observed(Tolerant):
    """Everything a run reads from GitHub, gathered before deciding."""

    repository: str = "owner/name"
    bot_login: str = "perfbot[bot]"
    issues: tuple[Issue, ...] = ()
    comments: tuple[Comment, ...] = ()
    reactions: tuple[Reaction, ...] = ()
    permissions: dict[str, Permission] = {}
    pulls: tuple[PullRequest, ...] = ()

    def issues_by_number(self) -> dict[int, Issue]:
        return {i.number: i for i in self.issues}

    def bot_comments(self, issue: int | None = None) -> list[Comment]:
        """Comments authored by the bot itself: only these may carry markers that count."""
        return [c for c in self.comments if c.user == self.bot_login and (issue is None or c.issue == issue)]

    def open_pull(self, branch: str) -> PullRequest | None:
        return next((p for p in self.pulls if p.head == branch and p.state == "open"), None)
