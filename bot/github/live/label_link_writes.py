"""The label and link writes: typed githubkit calls, repeatable, a refusal said once and survived.

Each write is repeatable: adding a label that is there changes nothing, removing one that is gone
is done, creating a label that exists counts as created. GitHub's dependency and sub-issue
endpoints name the other issue by its database id, which the read gives for every tracked issue.
A 403, 404, 410 or 422 on these endpoints (no permission, an older GitHub Enterprise Server
without them, a link GitHub does not allow) is a `NativeRefused`: the run says so and goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

from githubkit.exception import GitHubException, RequestFailed

from bot.github.actions import CreateLabelAction, LabelAction, LinkAction
from bot.github.live.cache import Keeper
from bot.github.live.client import Session
from bot.github.live.failures import failure, github_message
from bot.github.port import GitHubError, NativeRefused

REFUSALS = frozenset({403, 404, 410, 422})


def _refused(exc: RequestFailed, what: str) -> NativeRefused:
    detail = f"{exc.response.status_code} {github_message(exc)}".strip()
    return NativeRefused(f"{what} ({detail})")


def _status(exc: GitHubException) -> int | None:
    return exc.response.status_code if isinstance(exc, RequestFailed) else None


class NativeWrites:
    """The live adapter's writes on labels and links, over its session; `ids` maps issue numbers to
    database ids (REST names the other issue of a link by it)."""

    session: Session
    ids: Mapping[int, int]
    keeper: Keeper

    def label(self, action: LabelAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        conn, issues = session.conn, session.github.rest.issues
        what = f"{'adding' if action.add else 'removing'} label {action.name} on #{action.issue}"
        try:
            if action.add:
                issues.add_labels(conn.owner, conn.name, action.issue, labels=[action.name])
            else:
                # GitHub's path takes the name encoded: state labels carry a slash.
                issues.remove_label(conn.owner, conn.name, action.issue, quote(action.name, safe=""))
        except GitHubException as exc:
            if not action.add and _status(exc) == 404:
                return  # already gone
            raise _failure(exc, what, session) from exc

    def add_labels(self, actions: Sequence[LabelAction]) -> None:
        """Labels added to one issue in one request (`actions.joins`)."""
        self.keeper.touch_for(*actions)
        session, issue = self.session, actions[0].issue
        names = [action.name for action in actions]
        try:
            session.github.rest.issues.add_labels(session.conn.owner, session.conn.name, issue, labels=names)
        except GitHubException as exc:
            raise _failure(exc, f"adding labels {', '.join(names)} on #{issue}", session) from exc

    def create_label(self, action: CreateLabelAction) -> None:
        session = self.session
        conn = session.conn
        what = f"creating label {action.name}"
        try:
            session.github.rest.issues.create_label(
                conn.owner, conn.name, name=action.name, color=action.color, description=action.description
            )
        except GitHubException as exc:
            if (
                isinstance(exc, RequestFailed)
                and exc.response.status_code == 422
                and "already_exists" in exc.response.text
            ):
                return  # made by someone else since the read
            raise _failure(exc, what, session) from exc

    def link(self, action: LinkAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        conn, issues = session.conn, session.github.rest.issues
        verb = "adding" if action.add else "removing"
        if action.relation == "blocked_by":
            what = f"{verb} the native link #{action.issue} blocked by #{action.target}"
            other = _database_id(self.ids, action.target, what)
        else:
            what = f"{verb} the native link #{action.issue} sub-issue of #{action.target}"
            other = _database_id(self.ids, action.issue, what)
        try:
            if action.relation == "blocked_by" and action.add:
                issues.add_blocked_by_dependency(conn.owner, conn.name, action.issue, issue_id=other)
            elif action.relation == "blocked_by":
                issues.remove_dependency_blocked_by(conn.owner, conn.name, action.issue, other)
            elif action.add:
                issues.add_sub_issue(conn.owner, conn.name, action.target, sub_issue_id=other)
            else:
                issues.remove_sub_issue(conn.owner, conn.name, action.target, sub_issue_id=other)
        except GitHubException as exc:
            if not action.add and _status(exc) == 404:
                return  # already gone
            raise _failure(exc, what, session) from exc


def _database_id(ids: Mapping[int, int], number: int, what: str) -> int:
    found = ids.get(number)
    if found is None:
        raise NativeRefused(f"{what} (GitHub gave no database id for #{number})")
    return found


def _failure(exc: GitHubException, what: str, session: Session) -> GitHubError:
    if isinstance(exc, RequestFailed) and exc.response.status_code in REFUSALS:
        return _refused(exc, what)
    return failure(exc, what, session)
