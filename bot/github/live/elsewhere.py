"""Other repositories: the issues a snapshot names as `owner/repo#N`, read in the run's one GraphQL query.

Each other repository is one more aliased `repository` field of the first query (`query.py`,
`elsewhere_fields`), with its issues (as many as `ISSUES_PER_QUERY`; the rest, and further pages of
comments and links, in follow-up queries that name the repository as their variables) and its state
labels. What the token may do there is read with them, before anything is written:

- the repository does not resolve (GitHub's `NOT_FOUND`, or `FORBIDDEN` for an organisation's
  policy): `none`, with what GitHub said; its issues are not observed;
- every issue read says `viewerCanUpdate` and `viewerCanLabel`: `write`;
- otherwise `read` (a `GITHUB_TOKEN` of another repository, an App not installed there, a token
  without `issues: write`): perfbot reads there, and writes nothing there.

The observation cache keeps these issues too, by repository (`ObservationCache.elsewhere`): with a
usable cache, each repository's block asks for its issues changed since the watermark and for the
tracked ones the cache lacks or marked stale (always at least one, by number, whose answer says
what the token may do there); the rest come from the cache.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from githubkit.exception import GitHubException, RequestFailed

from bot.github.live.cache import CachedIssue, ObservationCache
from bot.github.live.client import Session, failure, parsed
from bot.github.live.nodes import Collected, Where, next_cursor, repository_labels
from bot.github.live.query import (
    ISSUES_PER_QUERY,
    UPDATED_ALIAS,
    Native,
    Refusals,
    comments_query,
    elsewhere_alias,
    elsewhere_query,
    issue_alias,
    links_alias,
    links_query,
    qualified,
    query,
    updated_query,
)
from bot.github.observed import (
    Comment,
    Issue,
    LabelEvent,
    Permission,
    Reaction,
    RepositoryAccess,
    RepositoryLabel,
    TokenAccess,
)
from bot.issue_refs import ForeignIssue, IssueKey, owner_and_name

ROLES: frozenset[str] = frozenset({"none", "read", "triage", "write", "maintain", "admin"})


@dataclass
class Repository:
    """One other repository: its name as the snapshot first wrote it, the issues named there, and
    what was read of it."""

    name: str
    numbers: set[int] = field(default_factory=set)
    found: Collected = field(default_factory=Collected)
    refused: str = ""
    can_write: bool = True
    labels: tuple[RepositoryLabel, ...] = ()
    # The observation cache's entries of this repository not marked stale: not asked for by number.
    usable: set[int] = field(default_factory=set)
    # The cursor of the next page of its issues changed since the cache's watermark.
    updated_after: str | None = None

    @property
    def owner_and_name(self) -> tuple[str, str]:
        return owner_and_name(self.name)

    def variables(self, alias: str = "r0") -> dict[str, str]:
        owner, name = self.owner_and_name
        return {f"{alias}Owner": owner, f"{alias}Name": name}

    def token(self) -> TokenAccess:
        if self.refused:
            return "none"
        return "write" if self.can_write else "read"


@dataclass
class Elsewhere:
    """The other repositories of one read, in the order of their aliases (`r0`, `r1`, ...)."""

    repositories: dict[str, Repository] = field(default_factory=dict)

    @classmethod
    def of(cls, issues: Iterable[IssueKey]) -> Elsewhere:
        found = cls()
        found.add(issues)
        return found

    def add(self, issues: Iterable[IssueKey]) -> None:
        for issue in sorted((i for i in issues if isinstance(i, ForeignIssue)), key=lambda i: (i.key, i.number)):
            self.repositories.setdefault(issue.key, Repository(issue.repository)).numbers.add(issue.number)

    def use_cache(self, cached: ObservationCache | None) -> None:
        """What the observation cache holds of each repository: its issues are then read by number only
        when the cache lacks them or marked them stale, the rest through `updated` (as here)."""
        for repository in self.repositories.values():
            table = cached.table(repository.name) if cached is not None else {}
            repository.usable = {n for n, entry in table.items() if not entry.stale}

    def first(self) -> list[list[int]]:
        """The issues of each repository read by number in the first query: those the cache cannot
        give, and always the first tracked one, which says what the token may do there."""
        found = []
        for r in self.repositories.values():
            wanted = sorted(r.numbers - r.usable) or sorted(r.numbers)[:1]
            found.append(wanted[:ISSUES_PER_QUERY])
        return found

    def variables(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for index, repository in enumerate(self.repositories.values()):
            found |= repository.variables(elsewhere_alias(index))
        return found

    def refusals(self) -> Refusals:
        return Refusals({elsewhere_alias(i): r.name for i, r in enumerate(self.repositories.values())})

    def take(self, data: dict[str, Any], refusals: Refusals, own: str, bot_login: str) -> None:
        """The first query's blocks: each repository's issues into its own `Collected`, its labels,
        and what the token may do there."""
        for index, repository in enumerate(self.repositories.values()):
            alias = elsewhere_alias(index)
            repository.found = Collected(Where(repository.name, own))
            block = data.get(alias)
            if alias in refusals.said or not isinstance(block, dict):
                repository.refused = refusals.said.get(alias) or "GitHub did not answer for it"
                continue
            self._block(repository, block, bot_login)

    def _block(self, repository: Repository, block: dict[str, Any], bot_login: str) -> None:
        repository.labels = repository_labels(block) or repository.labels
        self._updated(repository, block.get(UPDATED_ALIAS), bot_login)
        for key, node in block.items():
            if not key.startswith("i") or not key[1:].isdigit() or not node:
                continue
            repository.can_write = repository.can_write and bool(node.get("viewerCanUpdate"))
            repository.can_write = repository.can_write and bool(node.get("viewerCanLabel"))
            repository.found.take_node(node, bot_login)

    def _updated(self, repository: Repository, page: dict[str, Any] | None, bot_login: str) -> None:
        """Its tracked issues among those changed since the cache's watermark (one page)."""
        if page is None:
            return
        for node in page.get("nodes") or []:
            if node and node.get("number") in repository.numbers:
                repository.found.take_node(node, bot_login)
        repository.updated_after = next_cursor(page)

    def read_rest(
        self,
        session: Session,
        native: Native,
        bot_login: str,
        cached: ObservationCache | None,
        after: dt.datetime | None,
    ) -> None:
        """What the first query left: further pages of changed issues, the cache's unchanged ones (when
        it fits this run), further issues, comments and links, repository by repository."""
        for repository in self.repositories.values():
            if repository.refused:
                continue
            variables = repository.variables()
            while repository.updated_after is not None and after is not None:
                paging = {"owner": variables["r0Owner"], "name": variables["r0Name"], "since": after.isoformat()}
                data = query(session, updated_query(native), paging | {"after": repository.updated_after}, "reading")
                self._updated(repository, (data.get("repository") or {}).get(UPDATED_ALIAS), bot_login)
            table = cached.table(repository.name) if cached is not None else {}
            for number in sorted(repository.numbers - set(repository.found.issues)):
                entry = table.get(number)
                if entry is not None and not entry.stale:
                    repository.found.restore(entry)
            missing = sorted(repository.numbers - set(repository.found.issues))
            for start in range(0, len(missing), ISSUES_PER_QUERY):
                group = missing[start : start + ISSUES_PER_QUERY]
                data = query(session, elsewhere_query(group, native), variables, f"reading {repository.name}'s issues")
                self._block(repository, data.get("r0") or {}, bot_login)
            self._comments(session, repository, bot_login)
            self._links(session, repository)

    def _comments(self, session: Session, repository: Repository, bot_login: str) -> None:
        found = repository.found
        owner, name = repository.owner_and_name
        while found.cursors:
            group = sorted(found.cursors)[:ISSUES_PER_QUERY]
            variables = {"owner": owner, "name": name, **{f"c{n}": found.cursors[n] for n in group}}
            data = query(session, comments_query(group), variables, f"reading comments in {repository.name}")
            repo = data.get("repository") or {}
            for n in group:
                found.page(n, ((repo.get(issue_alias(n)) or {}).get("comments")) or {}, bot_login)

    def _links(self, session: Session, repository: Repository) -> None:
        found = repository.found
        owner, name = repository.owner_and_name
        while found.link_cursors:
            pending = sorted(found.link_cursors)[:ISSUES_PER_QUERY]
            cursors = {links_alias(n, f): found.link_cursors[(n, f)] for n, f in pending}
            variables = {"owner": owner, "name": name, **cursors}
            data = query(session, qualified(links_query(pending)), variables, f"reading links in {repository.name}")
            repo = data.get("repository") or {}
            for n, link in pending:
                found.links_page(n, link, (repo.get(links_alias(n, link)) or {}).get(link) or {})

    # --- what was found ---------------------------------------------------------------------
    def collected(self) -> list[Collected]:
        return [r.found for r in self.repositories.values()]

    def issues(self) -> list[Issue]:
        return [issue for found in self.collected() for issue in found.issues.values()]

    def comments(self) -> list[Comment]:
        return [c for found in self.collected() for c in found.comments]

    def reactions(self) -> list[Reaction]:
        return [r for found in self.collected() for r in found.reactions]

    def label_events(self) -> list[LabelEvent]:
        return [e for found in self.collected() for e in found.label_events]

    def children(self) -> list[tuple[IssueKey, IssueKey]]:
        return [c for found in self.collected() for c in found.children]

    def cached(
        self, commandless: Mapping[int, str], unlisted: Sequence[Comment]
    ) -> dict[str, dict[int, CachedIssue]] | None:
        """Each readable repository's cache entries; None when one issue came without its date."""
        found = {}
        for repository in self.repositories.values():
            if repository.refused:
                continue
            entries = repository.found.entries(commandless, unlisted)
            if entries is None:
                return None
            found[repository.name] = entries
        return found

    def access(self, permissions: dict[str, dict[str, Permission]]) -> dict[str, RepositoryAccess]:
        return {
            r.name: RepositoryAccess(
                token=r.token(), permissions=permissions.get(r.name, {}), reason=r.refused, labels=r.labels
            )
            for r in self.repositories.values()
        }

    def permissions(self, session: Session, authors: dict[str, set[str]]) -> dict[str, dict[str, Permission]]:
        """Each command author's permission in each other repository they commented in (one REST read
        each, as for the bot's own repository)."""
        found: dict[str, dict[str, Permission]] = {}
        for key, logins in sorted(authors.items()):
            repository = self.repositories.get(key)
            if repository is None or repository.refused:
                continue
            found[repository.name] = {login: permission(session, repository, login) for login in sorted(logins)}
        return found


def permission(session: Session, repository: Repository, login: str) -> Permission:
    """`login`'s collaborator permission in another repository; unknown people have none."""
    owner, name = repository.owner_and_name
    what = f"reading {login}'s permission in {repository.name}"
    try:
        data = parsed(session.github.rest.repos.get_collaborator_permission_level(owner, name, login))
    except RequestFailed as exc:
        if exc.response.status_code in (403, 404):
            return "none"
        raise failure(exc, what, session) from exc
    except GitHubException as exc:
        raise failure(exc, what, session) from exc
    role = str(data.role_name or "")
    chosen = role if role in ROLES else str(data.permission)
    return chosen if chosen in ROLES else "none"  # type: ignore[return-value]
