"""The regeneration PR through the git data API: one bot commit on top of the default branch's tip.

The commit's parent is the tip the run read and decided on. Before the PR branch moves, the tip
is read again: if it moved, nothing is moved and the next run starts over from what is there
then. The PR branch itself moves in one compare-and-swap, GraphQL's `updateRefs` with the oid the
run read as `beforeOid` (forty zeros when it read no branch): GitHub applies it only while the
branch is still there (GraphQL reference, mutation `updateRefs`), so a push between the read and
the move is never overwritten, and the run ends with the same "moved while perfbot ran" outcome
as a moved tip. A branch holding a commit perfbot did not make is never force-moved.

The open PR is the one from this repository's branch: a fork's PR from a branch of the same name
is someone else's (`Observed.open_pull`). The writer answers with the PR's number, so the
action's outputs are filled whichever adapter ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from githubkit.exception import GitHubException, RequestFailed
from githubkit.versions import RestVersionSwitcher as RestNamespace
from githubkit_schemas.latest.types import ReposOwnerRepoGitTreesPostBodyPropTreeItemsType as TreeEntry

from bot.github.actions import PullRequestAction
from bot.github.live.bodies import parsed
from bot.github.live.client import Session
from bot.github.live.failures import failure, github_details
from bot.github.live.graphql import MutationRefused, mutate
from bot.github.live.observe import BranchState
from bot.github.port import GitHubError

T = TypeVar("T")
# Reads of the PR list when GitHub says a PR is open that the list does not show yet.
LIST_TRIES = 3
LIST_PAUSE_SECONDS = 2.0
# `beforeOid` for a ref that must not exist yet (GraphQL reference, `updateRefs`).
NO_BRANCH = "0" * 40
MOVE_BRANCH = """mutation MoveBranch(
  $repositoryId: ID!, $name: GitRefname!, $before: GitObjectID!, $after: GitObjectID!
) {
  updateRefs(
    input: {
      repositoryId: $repositoryId
      refUpdates: [{name: $name, beforeOid: $before, afterOid: $after, force: true}]
    }
  ) {
    clientMutationId
  }
}
"""


class PullWriter:
    def __init__(self, session: Session, state: BranchState, branch: str, message: str) -> None:
        self.session, self.state, self.branch, self.message = session, state, branch, message

    def apply(self, action: PullRequestAction) -> int | None:
        """The write; the PR's number (GitHub's, when this run opened it)."""
        if action.operation == "none":
            return action.number
        if action.operation == "close":
            self._close(action)
            return action.number
        if self.state.head is None or action.files != self.state.head_files:
            self._commit(action.files)
        number = action.number
        if action.operation == "update" and number is not None:
            self._update(number, action)
            return number
        return self._create(action)

    def _update(self, number: int, action: PullRequestAction) -> None:
        if (action.title, action.body) != (self.state.pull_title, self.state.pull_body):
            self._call(
                f"updating PR #{number}",
                lambda: self._rest.pulls.update(self._owner, self._name, number, title=action.title, body=action.body),
            )
            self.state.pull_title, self.state.pull_body = action.title, action.body

    @property
    def _rest(self) -> RestNamespace:
        return self.session.github.rest

    @property
    def _owner(self) -> str:
        return self.session.conn.owner

    @property
    def _name(self) -> str:
        return self.session.conn.name

    def _call(self, what: str, request: Callable[[], T], *, repeatable: bool = True) -> T:
        try:
            return request()
        except GitHubException as exc:
            raise failure(exc, what, self.session, repeatable=repeatable) from exc

    def _close(self, action: PullRequestAction) -> None:
        number = action.number
        if number is None:
            return
        self._call(
            f"closing PR #{number}", lambda: self._rest.pulls.update(self._owner, self._name, number, state="closed")
        )

    def _commit(self, files: dict[str, str]) -> None:
        state = self.state
        if state.head is not None and not state.head_is_ours:
            raise GitHubError(
                f"branch {self.branch} holds commit {state.head[:12]}, which perfbot did not make; it is left as it "
                f"is. Merge or close its PR, or delete the branch, and perfbot proposes its change again"
            )
        entries: list[TreeEntry] = [
            {"path": path, "mode": "100644", "type": "blob", "content": text} for path, text in sorted(files.items())
        ]
        tree = self._call(
            "writing the PR's files",
            lambda: parsed(self._rest.git.create_tree(self._owner, self._name, base_tree=state.tip_tree, tree=entries)),
        ).sha
        commit = self._call(
            "making the PR's commit",
            lambda: parsed(
                self._rest.git.create_commit(
                    self._owner, self._name, message=self.message, tree=tree, parents=[state.tip]
                )
            ),
        ).sha
        self._expect(f"heads/{state.default_branch}", state.tip, f"the default branch {state.default_branch}")
        self.move(state.head, commit)
        state.head, state.head_files = commit, dict(files)

    def move(self, before: str | None, after: str) -> None:
        """Point the PR branch at `after` only while it is at `before` (None: while it does not exist)."""
        what = f"{'creating' if before is None else 'moving'} branch {self.branch}"
        variables = {
            "repositoryId": self.state.repository_id,
            "name": f"refs/heads/{self.branch}",
            "before": before or NO_BRANCH,
            "after": after,
        }
        try:
            mutate(self.session, MOVE_BRANCH, variables, what)
        except MutationRefused:
            self._expect(f"heads/{self.branch}", before, f"branch {self.branch}")
            raise

    def _expect(self, ref: str, oid: str | None, what: str) -> None:
        """Refuse to move a ref when `ref` no longer points where this run read it (None: nowhere)."""
        now = self._points_at(ref, what)
        if now != oid:
            was, is_now = (oid or "")[:12] or "nothing", (now or "")[:12] or "nothing"
            raise GitHubError(
                f"{what} moved from {was} to {is_now} while perfbot ran; nothing was moved, and the next run "
                "starts over from there"
            )

    def _points_at(self, ref: str, what: str) -> str | None:
        try:
            return parsed(self._rest.git.get_ref(self._owner, self._name, ref)).object_.sha
        except RequestFailed as exc:
            if exc.response.status_code == 404:
                return None
            raise failure(exc, f"reading {what}", self.session) from exc
        except GitHubException as exc:
            raise failure(exc, f"reading {what}", self.session) from exc

    def _create(self, action: PullRequestAction) -> int:
        state = self.state
        try:
            made = parsed(
                self._rest.pulls.create(
                    self._owner,
                    self._name,
                    title=action.title,
                    head=self.branch,
                    base=state.default_branch,
                    body=action.body,
                )
            )
        except RequestFailed as exc:
            if exc.response.status_code == 422 and any("already exists" in said for said in github_details(exc)):
                return self._update_existing(action)
            raise failure(exc, "opening the PR", self.session, repeatable=False) from exc
        except GitHubException as exc:
            raise failure(exc, "opening the PR", self.session, repeatable=False) from exc
        state.pull, state.pull_title, state.pull_body = made.number, action.title, action.body
        return made.number

    def _update_existing(self, action: PullRequestAction) -> int:
        """GitHub refuses a second PR from one head (its 422 says so in `errors[].message`): the run's
        read missed the open PR, as a list that lags behind a write does. Like create-pull-request,
        update that PR; the list is read again after a pause while it still lags."""
        for attempt in range(LIST_TRIES):
            if attempt:
                self.session.wait(LIST_PAUSE_SECONDS * attempt)
            found = self._call(
                "finding the open PR",
                lambda: parsed(
                    self._rest.pulls.list(self._owner, self._name, head=f"{self._owner}:{self.branch}", state="open")
                ),
            )
            if found:
                number = found[0].number
                self.state.pull, self.state.pull_title, self.state.pull_body = (
                    number,
                    found[0].title,
                    found[0].body or "",
                )
                self._update(number, action)
                return number
        raise GitHubError(
            f"GitHub says a PR from {self.branch} is open, but lists none after {LIST_TRIES} reads; "
            "run perfbot again in a few minutes"
        )
