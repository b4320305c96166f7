"""The dashboard issue's REST writes: open it once (with its label), then edit its body in place.

Opening makes sure of the label first (created with GitHub's default colour when the repository
lacks it; one that exists already is fine), since the next run finds the dashboard by its label
and marker: an issue opened without its label would be opened again. Opening is not repeatable (a
second issue would be a duplicate dashboard): a lost answer stops the run, and the next run's read
finds the issue that landed. An edit sends the whole body, so sending it twice leaves one state.
"""

from __future__ import annotations

from githubkit.exception import GitHubException, RequestFailed

from bot.github.actions import CreateIssueAction, EditIssueAction
from bot.github.live.bodies import parsed
from bot.github.live.cache import Keeper
from bot.github.live.client import Session
from bot.github.live.failures import failure

# The colour GitHub gives a label made without one.
DEFAULT_COLOR = "ededed"


class DashboardWrites:
    """Mixed into the live adapter, which holds the session and the observation cache's keeper."""

    session: Session
    keeper: Keeper

    def create_issue(self, action: CreateIssueAction) -> int:
        for name in action.labels:
            self._label_exists(name)
        session = self.session
        conn = session.conn
        try:
            made = parsed(
                session.github.rest.issues.create(
                    conn.owner, conn.name, title=action.title, body=action.body, labels=list(action.labels)
                )
            )
        except GitHubException as exc:
            raise failure(exc, "opening the dashboard issue", session, repeatable=False) from exc
        return made.number

    def edit_issue(self, action: EditIssueAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        try:
            session.github.rest.issues.update(conn.owner, conn.name, action.issue, body=action.body)
        except GitHubException as exc:
            raise failure(exc, f"editing the dashboard issue #{action.issue}", session) from exc

    def _label_exists(self, name: str) -> None:
        """Create the label, GitHub's default colour and no description; one that exists is fine."""
        session = self.session
        conn = session.conn
        try:
            session.github.rest.issues.create_label(conn.owner, conn.name, name=name, color=DEFAULT_COLOR)
        except GitHubException as exc:
            if (
                isinstance(exc, RequestFailed)
                and exc.response.status_code == 422
                and "already_exists" in exc.response.text
            ):
                return
            raise failure(exc, f"creating the dashboard's label {name}", session) from exc
