"""The dashboard issue's REST writes: open it once (with its label), then edit its body in place.

Opening is not repeatable (a second issue would be a duplicate dashboard): a lost answer stops the
run, and the next run's read finds the issue that landed by its label and marker. An edit sends
the whole body, so sending it twice leaves one state.
"""

from __future__ import annotations

from githubkit.exception import GitHubException

from bot.github.actions import CreateIssueAction, EditIssueAction
from bot.github.live.bodies import parsed
from bot.github.live.cache import Keeper
from bot.github.live.client import Session
from bot.github.live.failures import failure


class DashboardWrites:
    """Mixed into the live adapter, which holds the session and the observation cache's keeper."""

    session: Session
    keeper: Keeper

    def create_issue(self, action: CreateIssueAction) -> int:
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
