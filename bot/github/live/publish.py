"""Publishing the lease readback live: one GraphQL read of the branch and its file, then one commit
on top of the branch, which is created on first use with no history.

The branch holds the readback alone and shares no history with the default branch: nothing on it
can be merged by mistake, no push to it matches a workflow's default-branch trigger, and creating
it needs no read of the default branch. Creating it takes three writes of the git data API (a
tree, a commit with no parent, the ref). Every later commit is one write: GraphQL's
`createCommitOnBranch`, which "appends a commit to the given branch" whose parent is the branch's
head, only while that head is the `expectedHeadOid` given (GraphQL reference, Commits). The branch
only moves forward, so when another publisher moved or made it since it was read, GitHub refuses,
nothing moves, and the next publish starts from there.
"""

from __future__ import annotations

import datetime as dt
import re
from base64 import b64encode
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from githubkit.exception import GitHubException, RequestFailed
from githubkit_schemas.latest.types import ReposOwnerRepoGitTreesPostBodyPropTreeItemsType as TreeEntry

from bot.context import RunContext
from bot.github.branch_file import BranchFile
from bot.github.live import writes
from bot.github.live.adapter import open_session
from bot.github.live.client import Session, blob_text, failure, github_message, parsed
from bot.github.live.query import MutationRefused, mutate, query
from bot.github.port import GitHubError

T = TypeVar("T")
NEEDS = "contents: write"
# GitHub's answer when another publisher created the branch first.
RACES = re.compile(r"already exists", re.IGNORECASE)
RACE_ADVICE = (
    ", as the branch changed since perfbot read it; nothing was moved, and the next publish-leases starts from there"
)
# `createCommitOnBranch`'s errors when the branch is no longer where it was read, or is gone.
MOVED = frozenset({"STALE_DATA", "NOT_FOUND"})
COMMIT_ON_BRANCH = """mutation PublishReadback($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}
"""

PUBLISHED_QUERY = """query PublishedReadback($owner: String!, $name: String!, $ref: String!, $file: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) { target { oid } }
    file: object(expression: $file) { ... on Blob { oid text isTruncated } }
  }
}
"""


class LivePublisher:
    """The published readback of one repository, read once and then committed at most once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.read: BranchFile | None = None
        self.head: str | None = None  # the branch's commit as read; None when the branch does not exist

    def requests(self) -> dict[str, int]:
        return self.session.traffic.summary()

    def published(self, where: BranchFile) -> str | None:
        variables = {"ref": f"refs/heads/{where.branch}", "file": f"refs/heads/{where.branch}:{where.path}"}
        data = query(self.session, PUBLISHED_QUERY, variables, f"reading {where}")
        repo = data.get("repository") or {}
        target = (repo.get("ref") or {}).get("target") or {}
        self.read, self.head = where, (str(target["oid"]) if target.get("oid") else None)
        blob: dict[str, Any] = repo.get("file") or {}
        if blob.get("isTruncated"):
            return self._blob(str(blob["oid"]), where)
        text = blob.get("text")
        return None if text is None else str(text)

    def publish(self, where: BranchFile, text: str, message: str) -> str:
        if self.read != where:
            raise GitHubError(f"{where} is published only after it was read in the same run")
        commit = self._first(where, text, message) if self.head is None else self._on_top(where, text, message)
        self.head = commit
        return commit

    def _on_top(self, where: BranchFile, text: str, message: str) -> str:
        """One commit on the branch as read, in one request (`createCommitOnBranch`)."""
        headline, _, body = message.partition("\n")
        variables = {
            "input": {
                "branch": {"repositoryNameWithOwner": self.session.conn.repository, "branchName": where.branch},
                "expectedHeadOid": self.head,
                "message": {"headline": headline, "body": body.strip("\n")},
                "fileChanges": {"additions": [{"path": where.path, "contents": b64encode(text.encode()).decode()}]},
            }
        }
        what = f"moving branch {where.branch}"
        try:
            data = mutate(self.session, COMMIT_ON_BRANCH, variables, what)
        except MutationRefused as exc:
            if exc.kinds & MOVED:
                raise GitHubError(f"{exc}{RACE_ADVICE}") from exc
            if "FORBIDDEN" in exc.kinds:  # as a REST write's 403 is said (`client.failure`)
                raise GitHubError(f"{exc}; the token needs {NEEDS}") from exc
            raise
        commit = ((data.get("createCommitOnBranch") or {}).get("commit") or {}).get("oid")
        if not isinstance(commit, str):
            raise GitHubError(f"{what}: GitHub's answer names no commit")
        return commit

    def _first(self, where: BranchFile, text: str, message: str) -> str:
        """The branch made with its first commit, which has no parent (git data API: three writes)."""
        conn, rest = self.session.conn, self.session.github.rest
        entries: list[TreeEntry] = [{"path": where.path, "mode": "100644", "type": "blob", "content": text}]
        tree = self._call(
            "writing the readback",
            lambda: parsed(rest.git.create_tree(conn.owner, conn.name, tree=entries)),
        ).sha
        commit = self._call(
            "committing the readback",
            lambda: parsed(rest.git.create_commit(conn.owner, conn.name, message=message, tree=tree, parents=[])),
        ).sha
        self._create(
            where, lambda: rest.git.create_ref(conn.owner, conn.name, ref=f"refs/heads/{where.branch}", sha=commit)
        )
        return commit

    def dispatch(self, event_type: str, payload: dict[str, str]) -> None:
        """`repository_dispatch` (`live/writes.py`): the workflows that listen for it start."""
        writes.send(self.session, event_type, payload)

    def _create(self, where: BranchFile, request: Callable[[], object]) -> None:
        """Create the branch; one someone else made first is left alone."""
        what = f"creating branch {where.branch}"
        try:
            request()
        except GitHubException as exc:
            said = github_message(exc) if isinstance(exc, RequestFailed) else ""
            if isinstance(exc, RequestFailed) and exc.response.status_code == 422 and RACES.search(said):
                raise GitHubError(f"{what}: GitHub refused ({said}){RACE_ADVICE}") from exc
            raise failure(exc, what, self.session, repeatable=False, needs=NEEDS) from exc

    def _call(self, what: str, request: Callable[[], T]) -> T:
        try:
            return request()
        except GitHubException as exc:
            raise failure(exc, what, self.session, needs=NEEDS) from exc

    def _blob(self, oid: str, where: BranchFile) -> str:
        """A readback too large for GraphQL's `text`, read whole through the git data API."""
        conn = self.session.conn
        return self._call(
            f"reading {where}", lambda: blob_text(self.session.github.rest.git.get_blob(conn.owner, conn.name, oid))
        )


@contextmanager
def open_live_publisher(context: RunContext, now: dt.datetime) -> Iterator[LivePublisher]:
    with open_session(context, now) as session:
        yield LivePublisher(session)
