"""The regeneration PR through the git data API: one bot commit on top of the default branch's tip.

The commit's parent is the tip the run read and decided on. Before a ref moves, the tip (and
the PR branch, when it exists) are read again: if either moved, nothing is moved and the next
run starts over from what is there then. A branch holding a commit perfbot did not make is
never force-moved while a PR is open from it; once no PR is open from it (merged or closed, and
GitHub kept the branch), the branch starts again from the tip and a new PR is opened, as
create-pull-request resets its branch: the old commits stay in the closed or merged PR.

The open PR is the one from this repository's branch: a fork's PR from a branch of the same name
is someone else's (`Observed.open_pull`). The writer answers with the PR's number, so the
action's outputs are filled whichever adapter ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from githubkit.exception import GitHubException, RequestFailed
from githubkit.utils import UNSET
from githubkit.versions import RestVersionSwitcher as RestNamespace
from githubkit_schemas.latest.types import ReposOwnerRepoGitTreesPostBodyPropTreeItemsType as TreeEntry

from bot.github.actions import PullRequestAction
from bot.github.live.bodies import parsed
from bot.github.live.client import Session
from bot.github.live.failures import failure, github_details
from bot.github.live.observe import BranchState
from bot.github.port import GitHubError

T = TypeVar("T")
# Reads of the PR list when GitHub says a PR is open that the list does not show yet.
LIST_TRIES = 3
LIST_PAUSE_SECONDS = 2.0


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
        state = self.state
        if state.head is None or not state.head_is_ours or action.files != state.head_files:
            self._commit(action.files)
        number = action.number
        if action.operation == "update" and number is not None:
            self._update(number, action)
            return number
        return self._create(action)

    def _update(self, number: int, action: PullRequestAction) -> None:
        """The body, and the title only when the plan changes it (a person's title is kept)."""
        if action.body == self.state.pull_body and action.title == self.state.pull_title:
            return
        title = action.title if action.title != self.state.pull_title else UNSET
        self._call(
            f"updating PR #{number}",
            lambda: self._rest.pulls.update(self._owner, self._name, number, title=title, body=action.body),
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
        if state.head is not None and not state.head_is_ours and state.pull is not None:
            # Decided against before the write (`decide.pull_request`); read again, it is still refused.
            raise GitHubError(
                f"branch {self.branch} holds commit {state.head[:12]}, which perfbot did not make, and PR "
                f"#{state.pull} is open from it; it is left as it is"
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
        if state.head is None:
            self._call(
                f"creating branch {self.branch}",
                lambda: self._rest.git.create_ref(self._owner, self._name, ref=f"refs/heads/{self.branch}", sha=commit),
                repeatable=False,
            )
        else:
            self._expect(f"heads/{self.branch}", state.head, f"branch {self.branch}")
            self._call(
                f"moving branch {self.branch}",
                lambda: self._rest.git.update_ref(
                    self._owner, self._name, f"heads/{self.branch}", sha=commit, force=True
                ),
            )
        state.head, state.head_files = commit, dict(files)

    def _expect(self, ref: str, oid: str, what: str) -> None:
        """Refuse to move a ref when `ref` no longer points where this run read it."""
        found = self._call(f"reading {what}", lambda: parsed(self._rest.git.get_ref(self._owner, self._name, ref)))
        now = found.object_.sha
        if now != oid:
            raise GitHubError(
                f"{what} moved from {oid[:12]} to {now[:12]} while perfbot ran; nothing was moved, and the next run "
                "starts over from there"
            )

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
                self._update(number, action.model_copy(update={"title": found[0].title}))
                return number
        raise GitHubError(
            f"GitHub says a PR from {self.branch} is open, but lists none after {LIST_TRIES} reads; "
            "run perfbot again in a few minutes"
        )
