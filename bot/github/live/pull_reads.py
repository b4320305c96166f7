"""Reading pull requests as leases (`leases.sources: [pull-requests]`): in the run's first query.

The first query reads the open PRs (`OPEN_ALIAS`, oldest first, `PULLS_PER_PAGE` of them) and
the most recently closed or merged ones (`CLOSED_ALIAS`, `CLOSED_READ`: the released leases a
ready comment names), each with its author, draft flag, file count, first page of changed paths,
closing references and newest commit (its time is the lease's heartbeat). Follow-up queries read
only what one page did not hold: further open PRs, and further pages of a PR's paths or closing
references. A PR that changes more files than GitHub lists (3,000) is not paged: it claims `**`.

The observation cache keeps each PR's paths that needed more than one page, by its head commit
and file count: a run that finds the PR at the same head takes them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.github.live import mapping
from bot.github.observed import PULL_FILES_LISTED, PullRequest

OPEN_ALIAS, CLOSED_ALIAS = "openPulls", "closedPulls"
PULLS_PER_PAGE = 50
CLOSED_READ = 20
FILES_PER_PAGE = 100
CLOSING_PER_PAGE = 25
PULLS_PER_QUERY = 50  # PRs whose next pages one follow-up query reads
# The requests GitHub counts for the first query's PR selections, by its documented formula (one per
# connection, times the nodes of the connections it is in): each list, and its PRs' paths, closing
# references and newest commit.
FIRST_QUERY_REQUESTS = 1 + 3 * PULLS_PER_PAGE + 1 + 3 * CLOSED_READ

PATHS = "fragment PullPaths on PullRequestChangedFileConnection { pageInfo { hasNextPage endCursor } nodes { path } }\n"
CLOSING = (
    "fragment ClosingPage on IssueConnection {\n  pageInfo { hasNextPage endCursor }\n"
    "  nodes { number repository { nameWithOwner } }\n}\n"
)
FRAGMENT = f"""
fragment PullLease on PullRequest {{
  number
  state
  isDraft
  isCrossRepository
  headRefName
  headRefOid
  headRepository {{ nameWithOwner }}
  author {{ __typename login }}
  changedFiles
  closedAt
  files(first: {FILES_PER_PAGE}) {{ ...PullPaths }}
  closingIssuesReferences(first: {CLOSING_PER_PAGE}) {{ ...ClosingPage }}
  commits(last: 1) {{ nodes {{ commit {{ committedDate }} }} }}
}}
{PATHS}{CLOSING}"""


def first_selection(after: bool = False) -> str:
    """The open PRs (a page of them) and, on the first page only, the recently closed ones."""
    page = ", after: $after" if after else ""
    selection = (
        f"    {OPEN_ALIAS}: pullRequests(states: [OPEN], first: {PULLS_PER_PAGE}{page}, "
        "orderBy: {field: CREATED_AT, direction: ASC}) {\n"
        "      pageInfo { hasNextPage endCursor }\n      nodes { ...PullLease }\n    }\n"
    )
    if after:
        return selection
    return selection + (
        f"    {CLOSED_ALIAS}: pullRequests(states: [CLOSED, MERGED], first: {CLOSED_READ}, "
        "orderBy: {field: UPDATED_AT, direction: DESC}) {\n      nodes { ...PullLease }\n    }\n"
    )


def more_pulls_query() -> str:
    return f"""query MorePullLeases($owner: String!, $name: String!, $after: String!) {{
  rateLimit {{ cost }}
  repository(owner: $owner, name: $name) {{
{first_selection(after=True)}  }}
}}
{FRAGMENT}"""


def pages_alias(number: int) -> str:
    return f"p{int(number)}"


def pages_query(pending: dict[int, tuple[str | None, str | None]]) -> str:
    """The next page of each PR's paths and/or closing references; variables `pN_files`, `pN_closing`."""
    variables, fields = [], []
    for number, (files, closing) in sorted(pending.items()):
        alias, parts = pages_alias(number), []
        if files is not None:
            variables.append(f"${alias}_files: String!")
            parts.append(f"files(first: {FILES_PER_PAGE}, after: ${alias}_files) {{ ...PullPaths }}")
        if closing is not None:
            variables.append(f"${alias}_closing: String!")
            parts.append(
                f"closingIssuesReferences(first: {CLOSING_PER_PAGE}, after: ${alias}_closing) {{ ...ClosingPage }}"
            )
        fields.append(f"    {alias}: pullRequest(number: {int(number)}) {{ {' '.join(parts)} }}")
    declared = "".join(f", {v}" for v in variables)
    body = "\n".join(fields)
    fragments = (PATHS if "...PullPaths" in body else "") + (CLOSING if "...ClosingPage" in body else "")
    return f"""query MorePullPages($owner: String!, $name: String!{declared}) {{
  rateLimit {{ cost }}
  repository(owner: $owner, name: $name) {{
{body}
  }}
}}
{fragments}"""


class CachedPull(BaseModel):
    """A PR's paths read over several pages, good while its head commit and file count are the same."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    head: str
    changed_files: int
    paths: tuple[str, ...]


@dataclass
class _Reading:
    node: dict[str, Any]
    paths: list[str] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
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
        reading.files_after = mapping.next_cursor(page)

    def _closing(self, reading: _Reading, page: dict[str, Any]) -> None:
        for node in page.get("nodes") or []:
            where = ((node or {}).get("repository") or {}).get("nameWithOwner")
            if node and node.get("number") is not None and str(where or "").casefold() == self.repository.casefold():
                reading.closes.append(int(node["number"]))
        reading.closing_after = mapping.next_cursor(page)

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
            repo = ask(pages_query(group), variables).get("repository") or {}
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
    login, kind = mapping.login_of(node.get("author"))
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
