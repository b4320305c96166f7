"""Reading a repository live: GraphQL answers mapped into one `Observed`.

**Mapping.** GraphQL nodes as perfbot's observations: issues, comments, the bot's own reactions, the
PR.

**Collected.** What a live read has found so far, issue by issue: from GraphQL nodes, or from the
observation cache for issues GitHub says did not change; and the cache entries that record it for
next time.

**The read.** Reading a repository live: the queries of `query.py`, mapped into one `Observed`.

At seed scale a run costs one GraphQL request; more only for more than 50 issues, issues that
only the tip's snapshot names, issues past 100 comments, a file too big for GraphQL, and one
REST read per author of a command not yet answered (their collaborator permission).

With a usable observation cache (`cache.py`) the first query asks, instead of every issue, for
the issues changed since the cache's watermark (less a margin) and for tracked issues the cache
lacks or marked stale; every other issue is taken from the cache. The cache is then renewed.

**Pull requests as leases** (`leases.sources: [pull-requests]`, `PullReads`): the open and recently
closed PRs of the first query, their further pages read by follow-up queries (further open PRs,
further paths or closing references of one PR). A PR that changes more files than GitHub lists
(3,000) is not paged: it claims `**`. The observation cache keeps each PR's paths that needed more
than one page, by its head commit and file count, so a run that finds the PR at the same head
takes them from there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from githubkit.exception import GitHubException, RequestFailed

from bot.github.live import cache
from bot.github.live.cache import CachedPull
from bot.github.live.client import Session, blob_text, failure, found_or_none, parsed
from bot.github.live.elsewhere import Elsewhere
from bot.github.live.nodes import (
    Collected,
    Where,
    dashboard_issue,
    ended_numbers,
    fork_pull,
    linked,
    login_of,
    made_by,
    next_cursor,
    others_with_records,
    own_commit,
    own_commit_of_ended,
    own_commit_pushed_off,
    repository_labels,
)
from bot.github.live.query import (
    CLOSED_ALIAS,
    DASHBOARD_ALIAS,
    ENDED_ALIAS,
    FIRST_QUERY_REQUESTS,
    ISSUES_PER_QUERY,
    LINK_FIELDS,
    OPEN_ALIAS,
    PULLS_ALIAS,
    PULLS_PER_QUERY,
    UPDATED_ALIAS,
    FieldsRefused,
    Native,
    Refusals,
    branch_file_alias,
    comments_query,
    dashboards_query,
    file_alias,
    first_query,
    force_pushes_query,
    issue_alias,
    issues_query,
    links_alias,
    links_query,
    more_pull_leases_query,
    pages_alias,
    pull_alias,
    pull_pages_query,
    pulls_query,
    query,
    state_label_alias,
    updated_query,
)
from bot.github.markers import DASHBOARD_MARKER, markers_in
from bot.github.observed import (
    NO_BRANCH,
    PULL_FILES_LISTED,
    BranchHead,
    Comment,
    DefaultBranch,
    Issue,
    Observed,
    OwnCommit,
    Permission,
    PullRequest,
)
from bot.github.port import GitHubError, ReadScope
from bot.issue_refs import ForeignIssue, IssueKey, issue_order, owner_and_name, sorted_issues

FIRST = "reading the repository"
ROLES: frozenset[str] = frozenset({"none", "read", "triage", "write", "maintain", "admin"})


@dataclass
class BranchState:
    """What the writer needs of the read: the tip to build on, and the PR branch as it was."""

    default_branch: str
    tip: str
    tip_tree: str = ""
    repository_id: str = ""  # the repository's node id, which `updateRefs` names
    head: str | None = None  # the PR branch's commit, None when the branch does not exist
    head_is_ours: bool = True
    own: OwnCommit | None = None  # perfbot's newest commit on the PR branch
    others: tuple[OwnCommit, ...] = ()  # commits above it perfbot did not make, carrying record trailers
    head_files: dict[str, str] = field(default_factory=dict)
    pull: int | None = None
    pull_title: str = ""
    pull_body: str = ""
    pull_user: str = ""  # who opened the PR
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
    return BranchState(
        default_branch=str(name), tip=str(tip), tip_tree=str(tree), repository_id=str(repo.get("id") or "")
    )


def _lease_fields(pull: PullRequest) -> dict[str, Any]:
    fields = ("user", "user_type", "draft", "paths", "changed_files", "closes", "pushed_at", "closed_at")
    return {name: getattr(pull, name) for name in fields}


def _here(issues: Iterable[IssueKey]) -> set[int]:
    """The issues of the bot's own repository among `issues`."""
    return {issue for issue in issues if isinstance(issue, int)}


def batches(numbers: Iterable[int], size: int = ISSUES_PER_QUERY) -> list[list[int]]:
    ordered = sorted(set(numbers))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


@dataclass
class _Reading:
    node: dict[str, Any]
    paths: list[str] = field(default_factory=list)
    closes: list[IssueKey] = field(default_factory=list)
    files_after: str | None = None
    closing_after: str | None = None


@dataclass
class PullReads:
    """The PRs of one run's read, and the follow-up queries they needed (the plan's `api`)."""

    repository: str
    cached: dict[int, CachedPull] = field(default_factory=dict)
    found: dict[int, _Reading] = field(default_factory=dict)
    follow_ups: int = 0
    follow_up_points: int = 0
    kept: dict[int, CachedPull] = field(default_factory=dict)

    def take(self, nodes: list[Any] | None) -> None:
        for node in nodes or []:
            if node and node.get("number") is not None and int(node["number"]) not in self.found:
                self._take(node)

    def _take(self, node: dict[str, Any]) -> None:
        number = int(node["number"])
        reading = _Reading(node)
        self.found[number] = reading
        self._files(reading, node.get("files") or {})
        self._closing(reading, node.get("closingIssuesReferences") or {})
        total = node.get("changedFiles")
        over = isinstance(total, int) and total > PULL_FILES_LISTED
        entry = self.cached.get(number)
        same = entry is not None and (entry.head, entry.changed_files) == (node.get("headRefOid"), total)
        if reading.files_after is not None and entry is not None and same:
            reading.paths, reading.files_after = list(entry.paths), None
        if over:
            reading.files_after = None  # GitHub lists 3,000 at most: the lease claims `**`

    def _files(self, reading: _Reading, page: dict[str, Any]) -> None:
        reading.paths += [str(n["path"]) for n in page.get("nodes") or [] if n and n.get("path")]
        reading.files_after = next_cursor(page)

    def _closing(self, reading: _Reading, page: dict[str, Any]) -> None:
        # An issue of another repository a PR closes (`Fixes owner/repo#N`) may be a packet's there.
        here = Where(None, self.repository)
        reading.closes += [linked(node, here) for node in page.get("nodes") or [] if node and node.get("number")]
        reading.closing_after = next_cursor(page)

    def pending(self) -> dict[int, tuple[str | None, str | None]]:
        return {
            n: (r.files_after, r.closing_after)
            for n, r in self.found.items()
            if r.files_after is not None or r.closing_after is not None
        }

    def page_on(self, ask: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        """Read further pages (`ask(document, variables)` sends a query) until every list is whole."""
        while pending := self.pending():
            group = dict(sorted(pending.items())[:PULLS_PER_QUERY])
            variables: dict[str, Any] = {}
            for number, (files, closing) in group.items():
                if files is not None:
                    variables[f"{pages_alias(number)}_files"] = files
                if closing is not None:
                    variables[f"{pages_alias(number)}_closing"] = closing
            repo = ask(pull_pages_query(group), variables).get("repository") or {}
            for number, (files, closing) in group.items():
                node, reading = repo.get(pages_alias(number)) or {}, self.found[number]
                if files is not None:
                    self._files(reading, node.get("files") or {})
                if closing is not None:
                    self._closing(reading, node.get("closingIssuesReferences") or {})
                self._kept(number, reading, paged=files is not None)

    def _kept(self, number: int, reading: _Reading, paged: bool) -> None:
        total = reading.node.get("changedFiles")
        if paged and reading.files_after is None and isinstance(total, int):
            self.kept[number] = CachedPull(
                head=str(reading.node.get("headRefOid") or ""), changed_files=total, paths=tuple(reading.paths)
            )

    def renewed(self) -> dict[int, CachedPull]:
        """The entries the next run's cache keeps: those paged now, and those still used from the cache."""
        used = {
            n: entry
            for n, entry in self.cached.items()
            if n in self.found and n not in self.kept and self.found[n].paths == list(entry.paths)
        }
        return used | self.kept

    def api(self) -> dict[str, int]:
        """The plan's `api` lines of PR leases: PRs read, follow-up queries and the points of both
        (the first query's share by GitHub's formula, the follow-ups' as GitHub charged them)."""
        return {
            "pull_requests_read": len(self.found),
            "pull_request_queries": self.follow_ups,
            "pull_request_points": round(FIRST_QUERY_REQUESTS / 100) + self.follow_up_points,
        }

    def pulls(self) -> list[PullRequest]:
        return [_pull(r) for _, r in sorted(self.found.items())]


def _pull(reading: _Reading) -> PullRequest:
    node = reading.node
    login, kind = login_of(node.get("author"))
    state = str(node.get("state") or "OPEN").lower()
    commits = [n.get("commit") or {} for n in (node.get("commits") or {}).get("nodes") or [] if n]
    fork = (node.get("headRepository") or {}).get("nameWithOwner") if node.get("isCrossRepository") else None
    return PullRequest(
        number=int(node["number"]),
        state=state if state in ("open", "closed", "merged") else "closed",  # type: ignore[arg-type]
        head=str(node.get("headRefName") or ""),
        head_repository=str(fork or "a deleted fork") if node.get("isCrossRepository") else None,
        user=login,
        user_type=kind,  # type: ignore[arg-type]
        draft=bool(node.get("isDraft")),
        paths=tuple(reading.paths),
        changed_files=node.get("changedFiles") if isinstance(node.get("changedFiles"), int) else None,
        closes=tuple(dict.fromkeys(reading.closes)),
        pushed_at=commits[-1].get("committedDate") if commits and commits[-1].get("committedDate") else None,
        closed_at=node.get("closedAt"),
    )


class Reader:
    def __init__(self, session: Session, scope: ReadScope, cached: cache.ObservationCache | None = None) -> None:
        self.session, self.scope, self.cached = session, scope, cached
        self.bot_login = scope.bot_login or ""
        # The bot's own repository's issues: a link read with its repository (as when the run reads
        # other repositories too) that names this one is a plain number, as a link read without it.
        self.found = Collected(Where(None, session.conn.repository))
        self.native = Native(labels=bool(scope.label_prefix), links=scope.links, label_names=len(scope.label_names))
        self.links_refused = ""
        self.forks: list[PullRequest] = []  # open PRs from forks' branches of perfbot's branch name
        self.since: dt.datetime | None = None
        self.commandless: dict[int, str] = {}
        self.unlisted: list[Comment] = []
        self.watermark: dt.datetime | None = None
        self.pull_reads = PullReads(session.conn.repository, dict(cached.pulls) if cached else {})
        self.elsewhere = Elsewhere.of(scope.issues)

    def observe(self) -> tuple[Observed, BranchState]:
        usable = {n for n, entry in self.cached.issues.items() if not entry.stale} if self.cached else set()
        usable -= self.scope.fresh
        self.since = self.cached.watermark - cache.MARGIN if self.cached else None
        self.elsewhere.use_cache(self.cached)
        groups = batches(_here(self.scope.issues) - usable) or [[]]
        dates = len(self.session.traffic.graphql_dates)
        repo, branch, tip_files = self._first(groups[0])
        self.watermark = next(iter(self.session.traffic.graphql_dates[dates:]), None)
        tracked = _here(self.scope.issues)
        snapshot = tip_files.get(self.scope.snapshot_file)
        if snapshot is not None:
            tracked |= _here(self.scope.issues_in(snapshot))
            self.elsewhere.add(self.scope.issues_in(snapshot))
        self._updated(repo.get(UPDATED_ALIAS), tracked)
        self._restore(tracked)
        for group in batches(tracked - set(self.found.issues)):
            found = query(self.session, issues_query(group, self.native), {}, "reading issues")
            self._issues(found.get("repository") or {})
        self._more_comments()
        self._more_links()
        self.elsewhere.read_rest(self.session, self.native, self.bot_login, self.cached, self.since)
        self.commandless = self._commandless()
        self.unlisted = self._unlisted_writes()
        self._more_pulls(repo)
        observed = Observed(
            repository=str(repo.get("nameWithOwner") or self.session.conn.repository),
            bot_login=self.bot_login,
            issues=(*self._with_parents(), *self._dashboards(repo)),
            labels=repository_labels(repo),
            label_events=tuple(
                sorted(
                    (*self.found.label_events, *self.elsewhere.label_events()),
                    key=lambda e: (issue_order(e.issue), e.created_at),
                )
            ),
            links_unavailable=self.links_refused,
            comments=tuple(
                sorted((*self.found.comments, *self.elsewhere.comments(), *self.unlisted), key=lambda c: c.id)
            ),
            commandless=tuple(sorted(self.commandless)),
            reactions=(*self.found.reactions, *self.elsewhere.reactions()),
            pulls=self._with_leases(self._pulls(branch)),
            branches={self.scope.branch: BranchHead(oid=branch.head, ours=branch.head_is_ours)} if branch.head else {},
            default_branch=DefaultBranch(oid=branch.tip, files=tip_files),
            branch_head=branch.head or NO_BRANCH,
            own_commit=branch.own,
            others_commits=branch.others,
            branch_files=self._branch_files(repo),
        )
        return observed.model_copy(update=self._permissions(observed)), branch

    def _permissions(self, observed: Observed) -> dict[str, Any]:
        """The permission of each author of a command not answered yet, in the repository of the
        issue they wrote it on (one REST read each), and what the token may do in each other one."""
        pending = self.scope.pending_authors(observed)
        here = {author.login for author in pending if author.repository is None}
        there: dict[str, set[str]] = {}
        for author in pending:
            if author.repository is not None:
                there.setdefault(author.repository, set()).add(author.login)
        return {
            "permissions": {login: self._permission(login) for login in sorted(here)},
            "repositories": self.elsewhere.access(self.elsewhere.permissions(self.session, there)),
        }

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
            variables |= {state_label_alias(i): name for i, name in enumerate(self.scope.label_names)}
        if self.scope.dashboard_label:
            variables["dashboardLabel"] = self.scope.dashboard_label
        refusals = self.elsewhere.refusals()
        data = self._read_first(len(files), numbers, variables | self.elsewhere.variables(), refusals)
        self.bot_login = self.bot_login or str((data.get("viewer") or {}).get("login") or "")
        if not self.bot_login:
            raise GitHubError(f"{FIRST}: GitHub's answer names no login for the token; set bot_login in the config")
        self.elsewhere.take(data, refusals, self.session.conn.repository, self.bot_login)
        repo = data.get("repository") or {}
        branch = default_branch(repo, self.session.conn.repository)
        tip_files = self._files(repo, "tip")
        head = (repo.get("branchHead") or {}).get("target")
        if head:
            branch.head, branch.head_is_ours = str(head["oid"]), made_by(head, self.bot_login)
            branch.head_files = self._files(repo, "head")
            branch.own = own_commit(head, self.bot_login)
            branch.others = others_with_records(head, self.bot_login)
        self._read_pulls(repo.get(PULLS_ALIAS), branch)
        if branch.own is None:
            branch.own = own_commit_of_ended(repo.get(ENDED_ALIAS), self.bot_login)
        if branch.own is None:
            numbers = ([branch.pull] if branch.pull is not None else []) + ended_numbers(repo.get(ENDED_ALIAS))
            branch.own = self._pushed_off(numbers)
        self._issues(repo)
        return repo, branch, tip_files

    def _restore(self, tracked: set[int]) -> None:
        """The tracked issues GitHub reports unchanged, as the cache has them, when it fits this run."""
        for number in sorted(tracked - set(self.found.issues)) if self._cache_fits() else ():
            entry = self.cached.issues.get(number) if self.cached else None
            if entry is not None and not entry.stale:
                self.found.restore(entry)

    def renewed(self) -> cache.ObservationCache | None:
        """The cache of this read: what was found, dated by GitHub's time of the first answer."""
        where = self.session.conn.repository
        found = self.found.cache(
            where, self.bot_login, self.native.spreads(), self.watermark, self.commandless, self.unlisted
        )
        elsewhere = self.elsewhere.cached(self.commandless, self.unlisted)
        if found is None or elsewhere is None:
            return None
        return found.model_copy(update={"pulls": self.pull_reads.renewed(), "elsewhere": elsewhere})

    def _unlisted_writes(self) -> list[Comment]:
        """perfbot's comments an earlier run posted that the lists still do not show, each read by
        its id (which finds it at once: GitHub's lists may lag behind a write by several reads, so
        without this a run right after another would post the same comment again). One deleted
        since is gone; one a list shows is read from the list."""
        if self.cached is None:
            return []
        listed = {c.id for c in (*self.found.comments, *self.elsewhere.comments())}
        pending = [c for entry in self.cached.every() for c in entry.written if c.id not in listed]
        return [found for c in pending if (found := self._comment_by_id(c)) is not None]

    def _comment_by_id(self, written: Comment) -> Comment | None:
        issues = self.session.github.rest.issues
        owner, name = self.session.conn.owner, self.session.conn.name
        if isinstance(written.issue, ForeignIssue):
            owner, name = owner_and_name(written.issue.repository)
        made = found_or_none(
            self.session, f"reading comment {written.id}", lambda: issues.get_comment(owner, name, written.id)
        )
        if made is None:
            return None
        return written.model_copy(update={"body": made.body or "", "edited": made.updated_at != made.created_at})

    def _commandless(self) -> dict[int, str]:
        """The comments the cache remembers holding no command whose text is still the one read
        then (an edit, whatever GitHub's dates say, makes a comment read again), with their
        fingerprints. One restored from the cache is unchanged by definition: its text is not kept."""
        if self.cached is None:
            return {}
        remembered = {i: known for entry in self.cached.every() for i, known in entry.commandless.items()}
        restored = {*self.found.restored, *(i for found in self.elsewhere.collected() for i in found.restored)}
        return {
            c.id: known
            for c in (*self.found.comments, *self.elsewhere.comments())
            if (known := remembered.get(c.id)) is not None and (c.id in restored or cache.fingerprint(c) == known)
        }

    def _more_pulls(self, repo: dict[str, Any]) -> None:
        """The open PRs past the first page, then the pages of paths and closing references one did not hold."""
        if not self.scope.pull_leases:
            return
        reads = self.pull_reads
        page = repo.get(OPEN_ALIAS)
        reads.take((repo.get(CLOSED_ALIAS) or {}).get("nodes"))
        while page:
            reads.take(page.get("nodes"))
            after = next_cursor(page)
            if after is None:
                break
            data = self._pull_query(more_pull_leases_query(), {"after": after})
            page = (data.get("repository") or {}).get(OPEN_ALIAS)
        reads.page_on(self._pull_query)

    def _pull_query(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        """A follow-up query for PR leases, counted apart (the plan's `api` shows what they cost)."""
        before = self.session.traffic.graphql_points
        data = query(self.session, document, variables, "reading pull requests")
        self.pull_reads.follow_ups += 1
        self.pull_reads.follow_up_points += self.session.traffic.graphql_points - before
        return data

    def _with_leases(self, pulls: tuple[PullRequest, ...]) -> tuple[PullRequest, ...]:
        """perfbot's PR and forks' on its branch, with what the PR leases read says of each, and every
        other PR that read found."""
        read = {p.number: p for p in self.pull_reads.pulls()}
        merged = [p.model_copy(update=_lease_fields(read.pop(p.number))) if p.number in read else p for p in pulls]
        return (*merged, *read.values())

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
            after = next_cursor(page)
            if after is None or self.since is None:
                return
            variables = {"since": self.since.isoformat(), "after": after}
            data = query(self.session, updated_query(self.native), variables, "reading changed issues")
            page = (data.get("repository") or {}).get(UPDATED_ALIAS)

    def _read_first(
        self, head_files: int, numbers: list[int], variables: dict[str, Any], refusals: Refusals
    ) -> dict[str, Any]:
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
                pull_leases=self.scope.pull_leases,
                elsewhere=self.elsewhere.first(),
            )

        try:
            return query(self.session, document(), variables, FIRST, refusals)
        except FieldsRefused as refused:
            if not self.native.links or not refused.fields <= set(LINK_FIELDS):
                raise
            self.links_refused = str(refused)
            self.native = Native(labels=self.native.labels, label_names=self.native.label_names)
            return query(self.session, document(), variables, FIRST, refusals)

    def _dashboards(self, repo: dict[str, Any]) -> tuple[Issue, ...]:
        """The issues carrying the dashboard's label that are not tracked issues (read apart, with
        author and body: perfbot finds its own dashboard by both), page after page until one of
        perfbot's with its marker is among them or the pages end."""
        found: list[Issue] = []
        page = repo.get(DASHBOARD_ALIAS)
        while page:
            issues = [dashboard_issue(node) for node in page.get("nodes") or [] if node]
            found += [issue for issue in issues if issue.number not in self.found.issues]
            after = next_cursor(page)
            if after is None or any(self._is_dashboard(issue) for issue in issues):
                break
            variables = {"dashboardLabel": self.scope.dashboard_label, "after": after}
            data = query(self.session, dashboards_query(), variables, "finding the dashboard issue")
            page = (data.get("repository") or {}).get(DASHBOARD_ALIAS)
        return tuple(found)

    def _is_dashboard(self, issue: Issue) -> bool:
        return issue.user == self.bot_login and DASHBOARD_MARKER in markers_in(issue.body)

    def _with_parents(self) -> tuple[Issue, ...]:
        """The issues (the bot's repository's, then each other's), each with its parent as either side
        of the sub-issue link shows it."""
        links = [*self.found.children, *self.elsewhere.children()]
        parents = {child: parent for parent, child in links}
        issues = []
        for found in (*sorted(self.found.issues.values(), key=lambda i: i.number), *self.elsewhere.issues()):
            key = found.key
            issue = found
            if issue.parent is None and key in parents:
                issue = issue.model_copy(update={"parent": parents[key]})
            children = tuple(sorted_issues({child for parent, child in links if parent == key}))
            if children:
                issue = issue.model_copy(update={"sub_issues": children})
            issues.append(issue)
        return tuple(issues)

    def _read_pulls(self, page: dict[str, Any] | None, branch: BranchState) -> None:
        """perfbot's open PR among those from its branch name, paging on past forks' PRs until found."""
        while page:
            for node in page.get("nodes") or []:
                if node and node.get("isCrossRepository"):
                    self.forks.append(fork_pull(node, self.scope.branch))
                elif node and branch.pull is None:
                    self._pull(node, branch)
            after = next_cursor(page)
            if after is None or branch.pull is not None:
                return
            data = query(self.session, pulls_query(), {"branch": self.scope.branch, "after": after}, "reading PRs")
            page = (data.get("repository") or {}).get(PULLS_ALIAS)

    def _pull(self, node: dict[str, Any], branch: BranchState) -> None:
        commits = node.get("commits") or {}
        nodes = [n.get("commit") for n in commits.get("nodes") or [] if n]
        ours = commits.get("totalCount") == 1 and all(made_by(c, self.bot_login) for c in nodes)
        branch.pull, branch.pull_title, branch.pull_body = (
            int(node["number"]),
            node.get("title") or "",
            node.get("body") or "",
        )
        branch.head_is_ours = branch.head_is_ours and ours and node.get("headRefOid") == branch.head
        branch.pull_user = login_of(node.get("author"))[0]
        branch.pull_editor = login_of(node["editor"])[0] if node.get("editor") else None

    def _pushed_off(self, numbers: list[int]) -> OwnCommit | None:
        """perfbot's newest commit a person's force-push took off the branch of one of these PRs
        (the open one first, then the newest ended), read only when none is found elsewhere."""
        if not numbers:
            return None
        data = query(self.session, force_pushes_query(numbers), {}, "reading the PRs' force-pushes")
        repo = data.get("repository") or {}
        found = (own_commit_pushed_off(repo.get(pull_alias(n)) or {}, self.bot_login) for n in numbers)
        return next((own for own in found if own is not None), None)

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
