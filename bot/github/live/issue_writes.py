"""The small REST writes: a comment, a reaction, an assignment. Each is one typed githubkit call."""

from __future__ import annotations

from githubkit.exception import GitHubException

from bot.github.actions import AssignAction, CommentAction, ReactAction
from bot.github.live.cache import Keeper
from bot.github.live.client import Session
from bot.github.live.failures import failure


class IssueWrites:
    """The live adapter's writes on issues and comments, over its session. Each first marks its
    issue stale in the observation cache, so a crash mid-write still leaves the issue re-read."""

    session: Session
    keeper: Keeper

    def comment(self, action: CommentAction) -> int:
        """A comment is not repeatable: a lost answer stops the run (the next run finds its marker)."""
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        try:
            made = session.github.rest.issues.create_comment(conn.owner, conn.name, action.issue, body=action.body)
        except GitHubException as exc:
            raise failure(exc, f"commenting on #{action.issue}", session.now, repeatable=False) from exc
        return made.parsed_data.id

    def react(self, action: ReactAction) -> None:
        """A repeated reaction is harmless: GitHub answers 200 with the existing one."""
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        try:
            session.github.rest.reactions.create_for_issue_comment(
                conn.owner, conn.name, action.comment_id, content=action.content
            )
        except GitHubException as exc:
            raise failure(exc, f"reacting {action.content} to comment {action.comment_id}", session.now) from exc

    def assign(self, action: AssignAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        verb = "assigning" if action.add else "unassigning"
        try:
            if action.add:
                session.github.rest.issues.add_assignees(conn.owner, conn.name, action.issue, assignees=[action.login])
            else:
                session.github.rest.issues.remove_assignees(
                    conn.owner, conn.name, action.issue, assignees=[action.login]
                )
        except GitHubException as exc:
            raise failure(exc, f"{verb} {action.login} on #{action.issue}", session.now) from exc
