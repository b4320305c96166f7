"""The small REST writes: a comment, an edit of one, a reaction, an assignment. Each is one typed githubkit call.

Before its first comment, a run re-reads the newest comments of every issue it will comment on
(one GraphQL request for up to 50 issues): GitHub's lists are eventually consistent, so the run's
own read may have missed a comment an earlier run posted moments before. A marker found there is
not posted again.
"""

from __future__ import annotations

from typing import Any

from githubkit.exception import GitHubException

from bot.github.actions import AssignAction, CommentAction, EditCommentAction, ReactAction
from bot.github.live import mapping
from bot.github.live.bodies import parsed
from bot.github.live.cache import Keeper
from bot.github.live.client import Session
from bot.github.live.failures import failure
from bot.github.live.graphql import query
from bot.github.live.query import ISSUES_PER_QUERY, issue_alias, newest_comments_query
from bot.github.markers import markers_in


class IssueWrites:
    """The live adapter's writes on issues and comments, over its session. Each first marks its
    issue stale in the observation cache, so a crash mid-write still leaves the issue re-read."""

    session: Session
    keeper: Keeper
    bot_login: str
    # The issues this run will comment on, and the marker header of each of the bot's comments
    # on those it re-read, oldest first (with the comments it has posted since).
    commenting: list[int]
    posted: dict[int, list[frozenset[tuple[str, str]]]]

    def headers_now(self, issue: int) -> list[frozenset[tuple[str, str]]]:
        """The bot's marker headers on `issue`: re-read once per run, then kept up with its own comments."""
        if issue not in self.posted:
            self._reread([issue, *(n for n in self.commenting if n not in self.posted and n != issue)])
        return list(self.posted[issue])

    def _reread(self, numbers: list[int]) -> None:
        batch = numbers[:ISSUES_PER_QUERY]
        data = query(self.session, newest_comments_query(batch), {}, "re-reading comments before commenting")
        repo = data.get("repository") or {}
        for number in batch:
            found = (repo.get(issue_alias(number)) or {}).get("comments") or {}
            self.posted[number] = [
                frozenset(markers_in(node.get("body") or ""))
                for node in found.get("nodes") or []
                if node
                and mapping.login_of(node.get("author"))[0] == self.bot_login
                and not self._edited_by_others(node)
            ]

    def _edited_by_others(self, node: dict[str, Any]) -> bool:
        """A comment of perfbot's someone else edited carries no marker that counts (`Observed.bot_comments`)."""
        if node.get("lastEditedAt") is None:
            return False
        return mapping.login_of(node.get("editor"))[0] != self.bot_login

    def comment(self, action: CommentAction) -> int:
        """A comment is not repeatable: a lost answer stops the run (the next run finds its marker)."""
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        try:
            issues = session.github.rest.issues
            made = parsed(issues.create_comment(conn.owner, conn.name, action.issue, body=action.body))
        except GitHubException as exc:
            raise failure(exc, f"commenting on #{action.issue}", session, repeatable=False) from exc
        self.posted.setdefault(action.issue, []).append(frozenset(markers_in(action.body)))
        return made.id

    def edit_comment(self, action: EditCommentAction) -> None:
        """An edit is repeatable: the same body sent twice leaves the comment as one edit would."""
        self.keeper.touch_for(action)
        session = self.session
        conn = session.conn
        try:
            issues = session.github.rest.issues
            parsed(issues.update_comment(conn.owner, conn.name, action.comment_id, body=action.body))
        except GitHubException as exc:
            raise failure(exc, f"editing comment {action.comment_id} on #{action.issue}", session) from exc

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
            raise failure(exc, f"reacting {action.content} to comment {action.comment_id}", session) from exc

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
            raise failure(exc, f"{verb} {action.login} on #{action.issue}", session) from exc
