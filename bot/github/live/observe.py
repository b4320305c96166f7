"""Reading a repository live: the queries of `query.py`, mapped into one `Observed`.

At seed scale a run costs one GraphQL request; more only for more than 50 issues, issues that
only the tip's snapshot names, issues past 100 comments, a file too big for GraphQL, and one
REST read per author of a command not yet answered (their collaborator permission).

With a usable observation cache (`cache.py`) the first query asks, instead of every issue, for
the issues changed since the cache's watermark (less a margin) and for tracked issues the cache
lacks or marked stale; every other issue is taken from the cache. The cache is then renewed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from githubkit.exception import GitHubException, RequestFailed

from bot.github.live import cache, mapping
from bot.github.live.bodies import blob_text, parsed
from bot.github.live.client import Session
from bot.github.live.collected import Collected
from bot.github.live.failures import failure
from bot.github.live.graphql import FieldsRefused, query
from bot.github.live.query import (
    DASHBOARD_ALIAS,
    ISSUES_PER_QUERY,
    LINK_FIELDS,
    PULLS_ALIAS,
    UPDATED_ALIAS,
    Native,
    branch_file_alias,
    comments_query,
    file_alias,
    first_query,
    issue_alias,
    issues_query,
    links_alias,
    links_query,
    pulls_query,
    updated_query,
)
from bot.github.observed import DefaultBranch, Issue, Observed, Permission, PullRequest
from bot.github.port import GitHubError
from bot.github.scope import ReadScope

FIRST = "reading the repository"
ROLES: frozenset[str] = frozenset({"none", "read", "triage", "write", "maintain", "admin"})


@dataclass
class BranchState:
    """What the writer needs of the read: the tip to build on, and the PR branch as it was."""

    default_branch: str
    tip: str
    tip_tree: str = ""
    head: str | None = None  # the PR branch's commit, None when the branch does not exist
    head_is_ours: bool = True
    head_files: dict[str, str] = field(default_factory=dict)
    pull: int | None = None
    pull_title: str = ""
    pull_body: str = ""
    pull_user: str | None = None  # who opened the PR
    pull_editor: str | None = None  # who last edited its body (None: nobody since it was opened)


def default_branch(repo: dict[str, Any], repository: str) -> BranchState:
    """The default branch's name, tip and tree, which every run needs before it writes anything."""
    default = repo.get("defaultBranchRef") or {}
    target = default.get("target") or {}
    name, tip, tree = default.get("name"), target.get("oid"), (target.get("tree") or {}).get("oid")
    if not (name and tip and tree):
        raise GitHubError(
            f"{FIRST}: GitHub's answer names no default branch with a commit for {repository}; perfbot proposes "
            "its changes on top of it (an empty repository needs a first commit)"
        )
    return BranchState(default_branch=str(name), tip=str(tip), tip_tree=str(tree))


def batches(numbers: Iterable[int], size: int = ISSUES_PER_QUERY) -> list[list[int]]:
    ordered = sorted(set(numbers))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


class Reader:
    def __init__(self, session: Session, scope: ReadScope, cached: cache.ObservationCache | None = None) -> None:
        self.session, self.scope, self.cached = session, scope, cached
        self.bot_login = scope.bot_login or ""
        self.found = Collected()
        self.native = Native(labels=bool(scope.label_prefix), links=scope.links)
        self.links_refused = ""
        self.forks: list[PullRequest] = []  # open PRs from forks' branches of perfbot's branch name
        self.since: dt.datetime | None = None
        self.watermark: dt.datetime | None = None

    def observe(self) -> tuple[Observed, BranchState]:
        usable = {n for n, entry in self.cached.issues.items() if not entry.stale} if self.cached else set()
        self.since = self.cached.watermark - cache.MARGIN if self.cached else None
        groups = batches(set(self.scope.issues) - usable) or [[]]
        dates = len(self.session.traffic.graphql_dates)
        repo, branch, tip_files = self._first(groups[0])
        self.watermark = next(iter(self.session.traffic.graphql_dates[dates:]), None)
        tracked = set(self.scope.issues)
        snapshot = tip_files.get(self.scope.snapshot_file)
        if snapshot is not None:
            tracked |= set(self.scope.issues_in(snapshot))
        self._updated(repo.get(UPDATED_ALIAS), tracked)
        for number in sorted(tracked - set(self.found.issues)) if self._cache_fits() else ():
            entry = self.cached.issues.get(number) if self.cached else None
            if entry is not None and not entry.stale:
                self.found.restore(entry)
        for group in batches(tracked - set(self.found.issues)):
            found = query(self.session, issues_query(group, self.native), {}, "reading issues")
            self._issues(found.get("repository") or {})
        self._more_comments()
        self._more_links()
        observed = Observed(
            repository=str(repo.get("nameWithOwner") or self.session.conn.repository),
            bot_login=self.bot_login,
            issues=(*self._with_parents(), *self._dashboards(repo)),
            labels=mapping.repository_labels(repo),
            label_events=tuple(sorted(self.found.label_events, key=lambda e: (e.issue, e.created_at))),
            links_unavailable=self.links_refused,
            comments=tuple(sorted(self.found.comments, key=lambda c: c.id)),
            reactions=tuple(self.found.reactions),
            pulls=self._pulls(branch),
            default_branch=DefaultBranch(oid=branch.tip, files=tip_files),
            branch_files=self._branch_files(repo),
        )
        permissions = {login: self._permission(login) for login in sorted(self.scope.pending_authors(observed))}
        return observed.model_copy(update={"permissions": permissions}), branch

    def _first(self, numbers: list[int]) -> tuple[dict[str, Any], BranchState, dict[str, str]]:
        files, name = self.scope.files, self.scope.branch
        variables: dict[str, Any] = {"branch": name, "branchRef": f"refs/heads/{name}"}
        for i, path in enumerate(self.scope.tip_files):
            variables[file_alias("tip", i)] = f"HEAD:{path}"
        for i, path in enumerate(files):
            variables[file_alias("head", i)] = f"refs/heads/{name}:{path}"
        for i, where in enumerate(self.scope.branch_files):
            variables[branch_file_alias(i)] = f"refs/heads/{where.branch}:{where.path}"
        if self.native.labels:
            variables["labelPrefix"] = self.scope.label_prefix
        if self.scope.dashboard_label:
            variables["dashboardLabel"] = self.scope.dashboard_label
        data = self._read_first(len(files), numbers, variables)
        self.bot_login = self.bot_login or str((data.get("viewer") or {}).get("login") or "")
        if not self.bot_login:
            raise GitHubError(f"{FIRST}: GitHub's answer names no login for the token; set bot_login in the config")
        repo = data.get("repository") or {}
        branch = default_branch(repo, self.session.conn.repository)
        tip_files = self._files(repo, "tip")
        head = (repo.get("branchHead") or {}).get("target")
        if head:
            branch.head, branch.head_is_ours = str(head["oid"]), mapping.made_by(head, self.bot_login)
            branch.head_files = self._files(repo, "head")
        self._read_pulls(repo.get(PULLS_ALIAS), branch)
        self._issues(repo)
        return repo, branch, tip_files

    def renewed(self) -> cache.ObservationCache | None:
        """The cache of this read: what was found, dated by GitHub's time of the first answer."""
        where = self.session.conn.repository
        return self.found.cache(where, self.bot_login, self.native.spreads(), self.watermark)

    def _cache_fits(self) -> bool:
        """Whether the cache was made as this run reads: by the same login, with the same fields."""
        if self.cached is None:
            return False
        if self.cached.bot_login != self.bot_login or self.cached.reads != self.native.spreads():
            cache.warn(f"observation cache: made as {self.cached.bot_login} or of other fields; reading every issue")
            self.cached = None
        return self.cached is not None

    def _updated(self, page: dict[str, Any] | None, tracked: set[int]) -> None:
        """The tracked issues among those changed since `since`, page after page; others are left."""
        while page:
            for node in page.get("nodes") or []:
                if node and node.get("number") in tracked and self.found.node(node) is not None:
                    self.found.page(int(node["number"]), node.get("comments") or {}, self.bot_login)
            after = mapping.next_cursor(page)
            if after is None or self.since is None:
                return
            variables = {"since": self.since.isoformat(), "after": after}
            data = query(self.session, updated_query(self.native), variables, "reading changed issues")
            page = (data.get("repository") or {}).get(UPDATED_ALIAS)

    def _read_first(self, head_files: int, numbers: list[int], variables: dict[str, Any]) -> dict[str, Any]:
        """The first query; again without the link fields when GitHub does not know them."""
        if self.since is not None:
            variables = variables | {"since": self.since.isoformat()}

        def document() -> str:
            counts = (len(self.scope.tip_files), head_files, numbers, not self.scope.bot_login)
            return first_query(
                *counts,
                len(self.scope.branch_files),
                self.native,
                since=self.since is not None,
                dashboard=bool(self.scope.dashboard_label),
            )

        try:
            return query(self.session, document(), variables, FIRST)
        except FieldsRefused as refused:
            if not self.native.links or not refused.fields <= set(LINK_FIELDS):
                raise
            self.links_refused = str(refused)
            self.native = Native(labels=self.native.labels)
            return query(self.session, document(), variables, FIRST)

    def _dashboards(self, repo: dict[str, Any]) -> tuple[Issue, ...]:
        """The issues carrying the dashboard's label that are not tracked issues (read apart, with
        author and body: perfbot finds its own dashboard by both)."""
        nodes = ((repo.get(DASHBOARD_ALIAS) or {}).get("nodes")) or []
        return tuple(
            mapping.dashboard_issue(node) for node in nodes if node and node.get("number") not in self.found.issues
        )

    def _with_parents(self) -> tuple[Issue, ...]:
        """The issues, each with its parent as either side of the sub-issue link shows it."""
        parents = {child: parent for parent, child in self.found.children}
        issues = []
        for number in sorted(self.found.issues):
            issue = self.found.issues[number]
            if issue.parent is None and number in parents:
                issue = issue.model_copy(update={"parent": parents[number]})
            issues.append(issue)
        return tuple(issues)

    def _read_pulls(self, page: dict[str, Any] | None, branch: BranchState) -> None:
        """perfbot's open PR among those from its branch name, paging on past forks' PRs until found."""
        while page:
            for node in page.get("nodes") or []:
                if node and node.get("isCrossRepository"):
                    self.forks.append(mapping.fork_pull(node, self.scope.branch))
                elif node and branch.pull is None:
                    self._pull(node, branch)
            after = mapping.next_cursor(page)
            if after is None or branch.pull is not None:
                return
            data = query(self.session, pulls_query(), {"branch": self.scope.branch, "after": after}, "reading PRs")
            page = (data.get("repository") or {}).get(PULLS_ALIAS)

    def _pull(self, node: dict[str, Any], branch: BranchState) -> None:
        commits = node.get("commits") or {}
        nodes = [n.get("commit") for n in commits.get("nodes") or [] if n]
        ours = commits.get("totalCount") == 1 and all(mapping.made_by(c, self.bot_login) for c in nodes)
        branch.pull, branch.pull_title, branch.pull_body = (
            int(node["number"]),
            node.get("title") or "",
            node.get("body") or "",
        )
        branch.head_is_ours = branch.head_is_ours and ours and node.get("headRefOid") == branch.head
        branch.pull_user = mapping.login_of(node.get("author"))[0]
        branch.pull_editor = mapping.login_of(node["editor"])[0] if node.get("editor") else None

    def _pulls(self, branch: BranchState) -> tuple[PullRequest, ...]:
        forks = tuple(self.forks)
        if branch.pull is None:
            return forks
        ours = PullRequest(
            number=branch.pull,
            head=self.scope.branch,
            title=branch.pull_title,
            body=branch.pull_body,
            user=branch.pull_user,
            editor=branch.pull_editor,
            files=branch.head_files,
            foreign_commits=not branch.head_is_ours,
        )
        return (ours, *forks)

    def _files(self, repo: dict[str, Any], where: str) -> dict[str, str]:
        files = {}
        for i, path in enumerate(self.scope.tip_files if where == "tip" else self.scope.files):
            text = self._text(repo.get(file_alias(where, i)), path)
            if text is not None:
                files[path] = text
        return files

    def _branch_files(self, repo: dict[str, Any]) -> dict[str, dict[str, str]]:
        """Files on other branches; a missing branch or file is left out, and gather says so."""
        found: dict[str, dict[str, str]] = {}
        for i, where in enumerate(self.scope.branch_files):
            text = self._text(repo.get(branch_file_alias(i)), str(where))
            if text is not None:
                found.setdefault(where.branch, {})[where.path] = text
        return found

    def _text(self, blob: dict[str, Any] | None, path: str) -> str | None:
        if not blob or (blob.get("text") is None and not blob.get("isTruncated")):
            return None  # absent, or not text
        return self._blob(str(blob["oid"]), path) if blob.get("isTruncated") else str(blob["text"])

    def _blob(self, oid: str, path: str) -> str:
        """A file too large for GraphQL's `text`, read whole through the git data API."""
        conn = self.session.conn
        try:
            return blob_text(self.session.github.rest.git.get_blob(conn.owner, conn.name, oid))
        except GitHubException as exc:
            raise failure(exc, f"reading {path}", self.session) from exc

    def _issues(self, repo: dict[str, Any]) -> None:
        for key, node in repo.items():
            if not key.startswith("i") or not key[1:].isdigit() or not node:
                continue
            number = self.found.node(node)
            if number is not None:
                self.found.page(number, node.get("comments") or {}, self.bot_login)

    def _more_comments(self) -> None:
        while self.found.cursors:
            for group in batches(self.found.cursors):
                variables = {f"c{n}": self.found.cursors[n] for n in group}
                data = query(self.session, comments_query(group), variables, "reading comments")
                repo = data.get("repository") or {}
                for n in group:
                    self.found.page(n, ((repo.get(issue_alias(n)) or {}).get("comments")) or {}, self.bot_login)

    def _more_links(self) -> None:
        """Blocked-by issues and sub-issues past their first page, as many pages as there are."""
        while self.found.link_cursors:
            pending = sorted(self.found.link_cursors)[:ISSUES_PER_QUERY]
            variables = {links_alias(n, name): self.found.link_cursors[(n, name)] for n, name in pending}
            data = query(self.session, links_query(pending), variables, "reading links")
            repo = data.get("repository") or {}
            for n, name in pending:
                page = (repo.get(links_alias(n, name)) or {}).get(name) or {}
                self.found.links_page(n, name, page)

    def _permission(self, login: str) -> Permission:
        """The collaborator permission (finer role when GitHub names one); unknown people have none."""
        conn = self.session.conn
        try:
            repos = self.session.github.rest.repos
            data = parsed(repos.get_collaborator_permission_level(conn.owner, conn.name, login))
        except RequestFailed as exc:
            if exc.response.status_code == 404:
                return "none"
            raise failure(exc, f"reading {login}'s permission", self.session) from exc
        except GitHubException as exc:
            raise failure(exc, f"reading {login}'s permission", self.session) from exc
        role = str(data.role_name or "")
        chosen = role if role in ROLES else str(data.permission)
        return chosen if chosen in ROLES else "none"  # type: ignore[return-value]
