"""The live writes: REST and git data calls, each one typed githubkit call.

**Issue writes.** The small REST writes: a comment, an edit of one, a reaction, an assignment. Each
is one typed githubkit call.

Before its first comment, a run re-reads the newest comments of every issue it will comment on
(one GraphQL request for up to 50 issues): GitHub's lists are eventually consistent, so the run's
own read may have missed a comment an earlier run posted moments before. A marker found there is
not posted again.

**Label and link writes.** The label and link writes: typed githubkit calls, repeatable, a refusal
said once and survived.

Each write is repeatable: adding a label that is there changes nothing, removing one that is gone
is done, creating a label that exists counts as created. GitHub's dependency and sub-issue
endpoints name the other issue by its database id, which the read gives for every tracked issue.
A 403, 404, 410 or 422 on these endpoints (no permission, an older GitHub Enterprise Server
without them, a link GitHub does not allow) is a `NativeRefused`: the run says so and goes on.

**Dashboard writes.** The dashboard issue's REST writes: open it once (with its label), then edit
its body in place.

Opening makes sure of the label first (created with GitHub's default colour when the repository
lacks it; one that exists already is fine), since the next run finds the dashboard by its label
and marker: an issue opened without its label would be opened again. Opening is not repeatable (a
second issue would be a duplicate dashboard): a lost answer stops the run, and the next run's read
finds the issue that landed. An edit sends the whole body, so sending it twice leaves one state.

**The regeneration PR.** The regeneration PR through the git data API: one bot commit on top of the
default branch's tip.

The commit's parent is the tip the run read and decided on. Before the PR branch moves, the tip
is read again: if it moved, nothing is moved and the next run starts over from what is there
then. The PR branch itself moves in one compare-and-swap, GraphQL's `updateRefs` with the oid the
run read as `beforeOid` (forty zeros when it read no branch): GitHub applies it only while the
branch is still there (GraphQL reference, mutation `updateRefs`), so a push between the read and
the move is never overwritten, and the run ends with the same "moved while perfbot ran" outcome
as a moved tip. A branch holding a commit perfbot did not make is never force-moved while a PR is
open from it; once no PR is open from it (merged or closed, and GitHub kept the branch), the
branch starts again from the tip and a new PR is opened, as create-pull-request resets its
branch: the old commits stay in the closed or merged PR.

The open PR is the one from this repository's branch: a fork's PR from a branch of the same name
is someone else's (`Observed.open_pull`). The writer answers with the PR's number, so the
action's outputs are filled whichever adapter ran.

Also the follow-up `repository_dispatch` and the regeneration PR's merge (`pull_request.merge: auto`),
both described at their section below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from githubkit.exception import GitHubException, RequestFailed
from githubkit.utils import UNSET
from githubkit.versions import RestVersionSwitcher as RestNamespace
from githubkit_schemas.latest.types import ReposOwnerRepoGitTreesPostBodyPropTreeItemsType as TreeEntry

from bot.github.actions import (
    AssignAction,
    CommentAction,
    CreateIssueAction,
    CreateLabelAction,
    EditCommentAction,
    EditIssueAction,
    LabelAction,
    LinkAction,
    MergeFacts,
    MergeMethod,
    MergeOutcome,
    PullRequestAction,
    ReactAction,
    allowed_methods,
    choose,
)
from bot.github.live import nodes
from bot.github.live.cache import Keeper
from bot.github.live.client import Session, error_body, failure, found_or_none, github_details, github_message, parsed
from bot.github.live.observe import BranchState
from bot.github.live.query import ISSUES_PER_QUERY, MutationRefused, issue_alias, mutate, newest_comments_query, query
from bot.github.markers import markers_in
from bot.github.observed import NO_BRANCH, Comment
from bot.github.port import GitHubError, NativeRefused
from bot.issue_refs import IssueKey, issue_text, number_of, owner_and_name, repository_of
from bot.untrusted import neutral

# Pages of a comment's reactions of one content read to find perfbot's own (100 to a page).
REACTION_PAGES = 10


def located(session: Session, issue: IssueKey) -> tuple[str, str, int]:
    """Owner, name and number of the issue a write goes to: in its own repository, wherever it is."""
    if isinstance(issue, int):
        return session.conn.owner, session.conn.name, issue
    return (*owner_and_name(issue.repository), issue.number)


class IssueWrites:
    """The live adapter's writes on issues and comments, over its session. Each first marks its
    issue stale in the observation cache, so a crash mid-write still leaves the issue re-read."""

    session: Session
    keeper: Keeper
    bot_login: str
    # The issues this run will comment on, and the marker header of each of the bot's comments
    # on those it re-read, oldest first (with the comments it has posted since).
    commenting: list[IssueKey]
    posted: dict[IssueKey, list[frozenset[tuple[str, str]]]]

    def headers_now(self, issue: IssueKey) -> list[frozenset[tuple[str, str]]]:
        """The bot's marker headers on `issue`: re-read once per run, then kept up with its own comments
        (one query for the issues of its repository this run comments on)."""
        if issue not in self.posted:
            where = repository_of(issue)
            others = (n for n in self.commenting if n not in self.posted and n != issue and repository_of(n) == where)
            self._reread([issue, *others])
        return list(self.posted[issue])

    def _reread(self, keys: list[IssueKey]) -> None:
        batch = keys[:ISSUES_PER_QUERY]
        owner, name, _ = located(self.session, batch[0])
        numbers = [number_of(key) for key in batch]
        variables = {"owner": owner, "name": name}
        data = query(self.session, newest_comments_query(numbers), variables, "re-reading comments before commenting")
        repo = data.get("repository") or {}
        for key, number in zip(batch, numbers, strict=True):
            found = (repo.get(issue_alias(number)) or {}).get("comments") or {}
            self.posted[key] = [
                frozenset(markers_in(node.get("body") or ""))
                for node in found.get("nodes") or []
                if node and nodes.login_of(node.get("author"))[0] == self.bot_login and not self._edited_by_others(node)
            ]

    def _edited_by_others(self, node: dict[str, Any]) -> bool:
        """A comment of perfbot's someone else edited carries no marker that counts (`Observed.bot_comments`)."""
        if node.get("lastEditedAt") is None:
            return False
        return nodes.login_of(node.get("editor"))[0] != self.bot_login

    def comment(self, action: CommentAction) -> int:
        """A comment is not repeatable: a lost answer stops the run (the next run finds its marker)."""
        self.keeper.touch_for(action)
        session = self.session
        owner, name, number = located(session, action.issue)
        try:
            issues = session.github.rest.issues
            made = parsed(issues.create_comment(owner, name, number, body=action.body))
        except GitHubException as exc:
            raise failure(exc, f"commenting on {issue_text(action.issue)}", session, repeatable=False) from exc
        self.posted.setdefault(action.issue, []).append(frozenset(markers_in(action.body)))
        mine = Comment(
            id=made.id,
            issue=action.issue,
            user=self.bot_login,
            user_type="Bot",
            created_at=session.now,
            body=action.body,
        )
        self.keeper.wrote(mine)
        return made.id

    def edit_comment(self, action: EditCommentAction) -> None:
        """An edit is repeatable: the same body sent twice leaves the comment as one edit would."""
        self.keeper.touch_for(action)
        session = self.session
        owner, name, _ = located(session, action.issue)
        try:
            issues = session.github.rest.issues
            parsed(issues.update_comment(owner, name, action.comment_id, body=action.body))
        except GitHubException as exc:
            what = f"editing comment {action.comment_id} on {issue_text(action.issue)}"
            raise failure(exc, what, session) from exc

    def react(self, action: ReactAction) -> None:
        """A repeated reaction is harmless: GitHub answers 200 with the existing one."""
        self.keeper.touch_for(action)
        session = self.session
        if action.remove:
            self._take_back(action)
            return
        owner, name, _ = located(session, action.issue)
        try:
            session.github.rest.reactions.create_for_issue_comment(
                owner, name, action.comment_id, content=action.content
            )
        except GitHubException as exc:
            raise failure(exc, f"reacting {action.content} to comment {action.comment_id}", session) from exc

    def _take_back(self, action: ReactAction) -> None:
        """perfbot's own reaction off the comment: found by its content and its user in the
        comment's reactions (REST names each reaction's id), then deleted by that id. One already
        gone is nothing to do, as a repeated reaction is."""
        session = self.session
        owner, name, _ = located(session, action.issue)
        reactions = session.github.rest.reactions
        what = f"taking back {action.content} on comment {action.comment_id}"
        try:
            for page in range(1, REACTION_PAGES + 1):
                found = parsed(
                    reactions.list_for_issue_comment(
                        owner, name, action.comment_id, content=action.content, per_page=100, page=page
                    )
                )
                mine = next((r.id for r in found if r.user is not None and r.user.login == self.bot_login), None)
                if mine is not None:
                    reactions.delete_for_issue_comment(owner, name, action.comment_id, mine)
                    return
                if len(found) < 100:
                    return
        except GitHubException as exc:
            raise failure(exc, what, session) from exc

    def assign(self, action: AssignAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        owner, name, number = located(session, action.issue)
        verb = "assigning" if action.add else "unassigning"
        try:
            if action.add:
                session.github.rest.issues.add_assignees(owner, name, number, assignees=[action.login])
            else:
                session.github.rest.issues.remove_assignees(owner, name, number, assignees=[action.login])
        except GitHubException as exc:
            raise failure(exc, f"{verb} {action.login} on {issue_text(action.issue)}", session) from exc


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
    ids: Mapping[IssueKey, int]
    keeper: Keeper

    def add_labels(self, actions: Sequence[LabelAction]) -> None:
        """Labels added to one issue in one request (`actions.joins`)."""
        self.keeper.touch_for(*actions)
        session, issue = self.session, actions[0].issue
        owner, name, number = located(session, issue)
        names = [action.name for action in actions]
        try:
            session.github.rest.issues.add_labels(owner, name, number, labels=names)
        except GitHubException as exc:
            raise _failure(exc, f"adding labels {', '.join(names)} on {issue_text(issue)}", session) from exc

    def label(self, action: LabelAction) -> None:
        self.keeper.touch_for(action)
        session = self.session
        issues = session.github.rest.issues
        owner, name, number = located(session, action.issue)
        what = f"{'adding' if action.add else 'removing'} label {action.name} on {issue_text(action.issue)}"
        try:
            if action.add:
                issues.add_labels(owner, name, number, labels=[action.name])
            else:
                # GitHub's path takes the name encoded: state labels carry a slash.
                issues.remove_label(owner, name, number, quote(action.name, safe=""))
        except GitHubException as exc:
            if not action.add and _status(exc) == 404:
                return  # already gone
            raise _failure(exc, what, session) from exc

    def create_label(self, action: CreateLabelAction) -> None:
        session = self.session
        owner, name = (session.conn.owner, session.conn.name)
        if action.repository is not None:
            owner, name = action.repository.split("/", 1)
        what = f"creating label {action.name}" + (f" in {action.repository}" if action.repository else "")
        try:
            session.github.rest.issues.create_label(
                owner, name, name=action.name, color=action.color, description=action.description
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
        issues = session.github.rest.issues
        verb = "adding" if action.add else "removing"
        shown, target = issue_text(action.issue), issue_text(action.target)
        if action.relation == "blocked_by":
            what = f"{verb} the native link {shown} blocked by {target}"
            other = _database_id(self.ids, action.target, what)
            owner, name, number = located(session, action.issue)
        else:
            what = f"{verb} the native link {shown} sub-issue of {target}"
            other = _database_id(self.ids, action.issue, what)
            owner, name, number = located(session, action.target)
        try:
            if action.relation == "blocked_by" and action.add:
                issues.add_blocked_by_dependency(owner, name, number, issue_id=other)
            elif action.relation == "blocked_by":
                issues.remove_dependency_blocked_by(owner, name, number, other)
            elif action.add:
                issues.add_sub_issue(owner, name, number, sub_issue_id=other)
            else:
                issues.remove_sub_issue(owner, name, number, sub_issue_id=other)
        except GitHubException as exc:
            if not action.add and _status(exc) == 404:
                return  # already gone
            raise _failure(exc, what, session) from exc


def _database_id(ids: Mapping[IssueKey, int], number: IssueKey, what: str) -> int:
    found = ids.get(number)
    if found is None:
        raise NativeRefused(f"{what} (GitHub gave no database id for {issue_text(number)})")
    return found


def _failure(exc: GitHubException, what: str, session: Session) -> GitHubError:
    if isinstance(exc, RequestFailed) and exc.response.status_code in REFUSALS:
        return _refused(exc, what)
    return failure(exc, what, session)


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


T = TypeVar("T")
# Reads of the PR list when GitHub says a PR is open that the list does not show yet.
LIST_TRIES = 3
LIST_PAUSE_SECONDS = 2.0
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
        """The write, then the branch's deletion when the plan says so; the PR's number (GitHub's,
        when this run opened it)."""
        number = self._write(action)
        if action.delete_head is not None:
            self.delete(action.delete_head)
        return number

    def _write(self, action: PullRequestAction) -> int | None:
        if action.operation == "none":
            return action.number
        self._decided_on_this_head(action)
        if action.operation == "close":
            self._close(action)
            return action.number
        state = self.state
        if state.head is None or not state.head_is_ours or action.files != state.head_files:
            self._commit(action.files, action.commit_message(self.message))
        number = action.number
        if action.operation == "update" and number is not None:
            self._update(number, action)
            return number
        return self._create(action)

    def _decided_on_this_head(self, action: PullRequestAction) -> None:
        """Refuse a PR write decided on another head of the branch than the one it would move from:
        a run that read GitHub before another run wrote would take that run's records away."""
        now = self.state.head or NO_BRANCH
        if action.expected_head is not None and action.expected_head != now:
            was = "nothing" if action.expected_head == NO_BRANCH else action.expected_head[:12]
            raise GitHubError(
                f"branch {self.branch} moved from {was} to {'nothing' if now == NO_BRANCH else now[:12]} while "
                "perfbot ran; nothing was moved, and the next run starts over from there"
            )

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

    def _commit(self, files: dict[str, str], message: str) -> None:
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
                self._rest.git.create_commit(self._owner, self._name, message=message, tree=tree, parents=[state.tip])
            ),
        ).sha
        self._expect(f"heads/{state.default_branch}", state.tip, f"the default branch {state.default_branch}")
        self.move(state.head, commit)
        state.head, state.head_files = commit, dict(files)

    def delete(self, head: str) -> None:
        """Delete the PR branch only while it is at `head`: `updateRefs` with `beforeOid` and the zero
        oid as `afterOid`, which GitHub documents as deleting the ref. A push since is kept (the run
        ends saying so); a branch gone already (GitHub's `delete_branch_on_merge`, a person) stays gone."""
        what = f"deleting branch {self.branch}"
        variables = {"repositoryId": self.state.repository_id, "name": f"refs/heads/{self.branch}"}
        try:
            mutate(self.session, MOVE_BRANCH, variables | {"before": head, "after": NO_BRANCH}, what)
        except MutationRefused:
            if self._points_at(f"heads/{self.branch}", f"branch {self.branch}") is None:
                return
            self._expect(f"heads/{self.branch}", head, f"branch {self.branch}")
            raise
        self.state.head = None

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
        found = found_or_none(
            self.session, f"reading {what}", lambda: self._rest.git.get_ref(self._owner, self._name, ref)
        )
        return None if found is None else found.object_.sha

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
                    draft=action.draft,
                )
            )
        except RequestFailed as exc:
            if exc.response.status_code == 422 and any("already exists" in said for said in github_details(exc)):
                return self._update_existing(action)
            raise failure(exc, "opening the PR", self.session, repeatable=False) from exc
        except GitHubException as exc:
            raise failure(exc, "opening the PR", self.session, repeatable=False) from exc
        state.pull, state.pull_title, state.pull_body = made.number, action.title, action.body
        self._open_with(made.number, action)
        return made.number

    def _open_with(self, number: int, action: PullRequestAction) -> None:
        """A new PR's labels (GitHub's issue labels: a PR is an issue) and review requests, as
        create-pull-request sets them; once, when perfbot opens the PR."""
        if action.labels:
            labels = list(action.labels)
            self._call(
                f"labelling PR #{number}",
                lambda: self._rest.issues.add_labels(self._owner, self._name, number, labels=labels),
            )
        if action.reviewers or action.team_reviewers:
            reviewers, teams = list(action.reviewers), list(action.team_reviewers)
            self._call(
                f"requesting reviews of PR #{number}",
                lambda: self._rest.pulls.request_reviewers(
                    self._owner, self._name, number, reviewers=reviewers, team_reviewers=teams
                ),
            )

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


# ------------------------------------------------------------------------------------------------
# `repository_dispatch`: the one request that starts a workflow run with any token.
#
# GitHub's Actions docs ("Triggering a workflow from a workflow"): events triggered by the
# GITHUB_TOKEN, with the exception of `workflow_dispatch` and `repository_dispatch`, start no
# workflow run. GitHub starts the default branch's workflows that list the event type. Sent again
# after a lost answer, a dispatch starts a second run, which finds its work done; so it is sent once.

# The permission the endpoint needs ("Create a repository dispatch event").
NEEDS = "contents: write"


def send(session: Session, event_type: str, payload: dict[str, str]) -> None:
    conn = session.conn
    try:
        session.github.rest.repos.create_dispatch_event(
            conn.owner, conn.name, event_type=event_type, client_payload=payload
        )
    except GitHubException as exc:
        raise failure(exc, f"sending repository_dispatch {event_type}", session, needs=NEEDS) from exc


# ------------------------------------------------------------------------------------------------
# `pull_request.merge: auto` against GitHub: read the PR's merge state, then merge it or arm auto-merge.
#
# One GraphQL read gives the PR's `mergeStateStatus`, its node id, head and auto-merge request, and
# the repository's `autoMergeAllowed` and merge methods; `bot.github.merging.choose` picks the step
# GitHub's rules allow. A merge is `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` with the
# head `sha` perfbot wrote (GitHub answers 409 when the head moved, 405 when it cannot merge); auto-merge
# is the `enablePullRequestAutoMerge` mutation with `expectedHeadOid`. GitHub refuses to arm a PR it
# would merge now ("Pull request is in clean status"): its state moved between the read and the
# mutation, and the PR is merged directly then.

REST_METHODS: dict[MergeMethod, Literal["merge", "squash", "rebase"]] = {
    "MERGE": "merge",
    "SQUASH": "squash",
    "REBASE": "rebase",
}
# Reads of the merge state while GitHub still computes it (`UNKNOWN`), a pause growing between.
STATE_READS = 3
STATE_PAUSE_SECONDS = 2.0

STATE_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  rateLimit { cost }
  repository(owner: $owner, name: $name) {
    autoMergeAllowed
    mergeCommitAllowed
    squashMergeAllowed
    rebaseMergeAllowed
    pullRequest(number: $number) {
      id
      headRefOid
      isDraft
      mergeStateStatus
      autoMergeRequest { enabledAt }
    }
  }
}
"""

ARM = """
mutation($id: ID!, $method: PullRequestMergeMethod!, $head: GitObjectID!) {
  enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: $method, expectedHeadOid: $head}) {
    pullRequest { autoMergeRequest { enabledAt } }
  }
}
"""


class LiveMerger:
    def __init__(self, session: Session) -> None:
        self.session = session

    def merge(self, number: int) -> MergeOutcome:
        for read in range(STATE_READS):
            if read:
                self.session.wait(STATE_PAUSE_SECONDS * read)
            pull, facts = self._facts(number)
            step = choose(facts, reads_left=STATE_READS - 1 - read)
            if step.kind != "again":
                break
        head = str(pull["headRefOid"])
        if step.kind == "auto" and step.method is not None:
            refused = self._arm(str(pull["id"]), step.method, head)
            if refused is None:
                return MergeOutcome(status="auto-merge", pull=number, method=step.method)
            if "clean status" not in refused and "unstable status" not in refused:
                return MergeOutcome(status="not-merged", pull=number, line=refused)
        if step.kind in ("merge", "auto") and step.method is not None:
            return self._merge(number, step.method, head)
        return MergeOutcome(status="not-merged", pull=number, line=step.line)

    def _facts(self, number: int) -> tuple[dict[str, Any], MergeFacts]:
        data = query(self.session, STATE_QUERY, {"number": number}, f"reading PR #{number}'s merge state")
        repository = data.get("repository") or {}
        pull = repository.get("pullRequest")
        if not isinstance(pull, dict):
            raise GitHubError(f"reading PR #{number}'s merge state: GitHub does not show the PR")
        methods = allowed_methods(
            bool(repository.get("mergeCommitAllowed")),
            bool(repository.get("squashMergeAllowed")),
            bool(repository.get("rebaseMergeAllowed")),
        )
        facts = MergeFacts(
            state=str(pull.get("mergeStateStatus") or "UNKNOWN"),
            auto_merge_allowed=bool(repository.get("autoMergeAllowed")),
            methods=methods,
            armed=pull.get("autoMergeRequest") is not None,
            draft=bool(pull.get("isDraft")),
        )
        return pull, facts

    def _arm(self, node: str, method: MergeMethod, head: str) -> str | None:
        """Turn on GitHub's auto-merge; None when it is on, else GitHub's refusal in its words."""
        try:
            query(self.session, ARM, {"id": node, "method": method, "head": head}, "turning on auto-merge")
        except GitHubError as error:
            return str(error)
        return None

    def _merge(self, number: int, method: MergeMethod, head: str) -> MergeOutcome:
        conn = self.session.conn
        try:
            parsed(
                self.session.github.rest.pulls.merge(
                    conn.owner, conn.name, number, sha=head, merge_method=REST_METHODS[method]
                )
            )
        except RequestFailed as exc:
            if exc.response.status_code in (405, 409, 422):
                said = "; ".join(github_details(exc)) or str(error_body(exc.response.raw_response).get("message", ""))
                return MergeOutcome(
                    status="not-merged", pull=number, line=f"GitHub refused the merge: {neutral(said, 300)}"
                )
            raise failure(exc, f"merging PR #{number}", self.session) from exc
        return MergeOutcome(status="merged", pull=number, method=method)
