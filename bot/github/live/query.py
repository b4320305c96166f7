"""GraphQL: the documents a run sends, and sending them.

**Documents.** The GraphQL documents a run sends: one query reads everything a run decides on at
seed scale.

The first query reads the viewer, the default branch's tip and its files, the regeneration PR
(with its files and commits) and up to `ISSUES_PER_QUERY` issues with their first 100 comments.
Follow-up queries read further issues (more than fit, or named only by the tip's snapshot) and
further pages of comments. Paths and branch names travel as variables; issue numbers are ints.

With an observation cache (`cache.py`) the first query also reads `updated`: the repository's
issues changed since a time, oldest change first, with the same fields as each issue alias;
`updated_query` reads its further pages.

**Sending.** Sending a GraphQL query: partial data with errors is a clear error, never half a
reading."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from githubkit.exception import GitHubException, GraphQLFailed, RateLimitExceeded
from githubkit.graphql import GraphQLResponse

from bot.github.live.client import GraphQLSecondaryLimit, Session, failure, limited, rate_limited
from bot.github.port import GitHubError
from bot.untrusted import neutral

# Every query asks what it cost (GitHub's points, by its documented formula): the plan's `api`.
RATE_LIMIT = "  rateLimit { cost }\n"
ISSUES_PER_QUERY = 50
COMMENTS_PER_PAGE = 100
# Open PRs read per page from perfbot's branch name: its own and any forks' that share the name
# (a fork's PR is never perfbot's). Further pages are read only while perfbot's own is not found.
PULLS_PER_BRANCH = 20
# How far down its branch's history a run looks for perfbot's newest own commit (under people's).
OWN_COMMIT_DEPTH = 10
# The newest force-pushes of a PR's branch read for the commits they took off it (GitHub keeps them).
FORCE_PUSHES = 3

_FRAGMENTS = """
fragment BlobText on Blob { oid text isTruncated }
fragment CommitAuthor on Commit { author { name user { login } } signature { isValid wasSignedByGitHub } }
fragment CommentPage on IssueCommentConnection {
  pageInfo { hasNextPage endCursor }
  nodes {
    fullDatabaseId
    author { __typename login }
    createdAt
    lastEditedAt
    editor { __typename login }
    body
    reactionGroups { content viewerHasReacted }
  }
}
fragment PullFields on PullRequest {
  number
  isCrossRepository
  headRepository { nameWithOwner }
  author { __typename login }
  editor { __typename login }
  title
  body
  headRefOid
  commits(last: 2) { totalCount nodes { commit { oid ...CommitAuthor } } }
}
fragment IssueFields on Issue {
  number
  title
  updatedAt
  state
  stateReason
  assignees(first: 100) { nodes { login } }
  unassignedEvents: timelineItems(itemTypes: [UNASSIGNED_EVENT], last: 20) {
    nodes {
      __typename
      ... on UnassignedEvent {
        createdAt
        actor { __typename login }
        assignee { __typename ... on Actor { login } }
      }
    }
  }
  comments(first: 100) { ...CommentPage }
}
"""


# Labels and links: kept apart from the fields above so that each can be left out (links on a
# GitHub Enterprise Server that lacks them, labels when state labels are off).
# The commits force-pushes took off a PR's branch (GitHub's `HeadRefForcePushedEvent` keeps each
# one as `beforeCommit`): perfbot's commit among them still holds its records.
FORCE_PUSH_FRAGMENT = f"""
fragment ForcePushes on PullRequest {{
  forcePushes: timelineItems(itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT], last: {FORCE_PUSHES}) {{
    nodes {{
      __typename
      ... on HeadRefForcePushedEvent {{
        beforeCommit {{ history(first: {OWN_COMMIT_DEPTH}) {{ nodes {{ oid message ...CommitAuthor }} }} }}
      }}
    }}
  }}
}}
"""

_NATIVE_FRAGMENTS = """
fragment IssueLabels on Issue {
  labels(first: 100) { nodes { name } }
  timelineItems(itemTypes: [LABELED_EVENT, UNLABELED_EVENT], last: 50) {
    nodes {
      __typename
      ... on LabeledEvent { createdAt actor { __typename login } label { name } }
      ... on UnlabeledEvent { createdAt actor { __typename login } label { name } }
    }
  }
}
fragment IssueLinks on Issue {
  fullDatabaseId
  blockedBy(first: 50) { ...LinkPage }
  parent { number }
  subIssues(first: 50) { ...LinkPage }
}
fragment LinkPage on IssueConnection { pageInfo { hasNextPage endCursor } nodes { number } }
"""
LINK_FIELDS = ("blockedBy", "parent", "subIssues")
# The link lists read page by page past the first (`links_query`).
PAGED_LINKS = ("blockedBy", "subIssues")
LINKS_PER_PAGE = 100


@dataclass(frozen=True)
class Native:
    """Which of the native fields a query reads: state labels (with their events), links."""

    labels: bool = False
    links: bool = False
    # How many state labels are read by name (`state_label_alias`).
    label_names: int = 0

    def spreads(self) -> str:
        return (" ...IssueLabels" if self.labels else "") + (" ...IssueLinks" if self.links else "")

    def repository_labels(self) -> tuple[str, str]:
        """The variables and the selections that read the repository's state labels, each by its
        exact name: `labels(query:)` would also match descriptions, and a page of 100 could leave
        one out (GraphQL reference, `Repository.label(name:)` and `Repository.labels(query:)`)."""
        if not self.labels:
            return "", ""
        aliases = [state_label_alias(i) for i in range(self.label_names)]
        return (
            "".join(f", ${alias}: String!" for alias in aliases),
            "".join(f"    {alias}: label(name: ${alias}) {{ name color description }}\n" for alias in aliases),
        )


def state_label_alias(index: int) -> str:
    return f"stateLabel{index}"


NONE = Native()


def issue_alias(number: int) -> str:
    return f"i{number}"


def file_alias(where: str, index: int) -> str:
    return f"{where}{index}"


UPDATED_ALIAS = "updated"
PULLS_ALIAS = "pullRequests"
DASHBOARD_ALIAS = "dashboard"
# Issues read per page with the dashboard's label, oldest first: perfbot's own is usually among the
# first few, and further pages are read only while it is not found (anyone with triage can put the
# label on older issues).
DASHBOARDS_READ = 20


def _dashboard(label: bool, after: bool = False) -> tuple[str, str]:
    """The variable and the selection that read the issues carrying the dashboard's label (open or
    closed, with author and body, where perfbot's marker is): one alias of the first query."""
    if not label:
        return "", ""
    page = ", after: $after" if after else ""
    return (
        ", $dashboardLabel: String!",
        f"    {DASHBOARD_ALIAS}: issues(labels: [$dashboardLabel], states: [OPEN, CLOSED], first: {DASHBOARDS_READ}"
        f"{page}, orderBy: {{field: CREATED_AT, direction: ASC}}) {{\n"
        "      pageInfo { hasNextPage endCursor }\n"
        "      nodes { number title state author { __typename login } body labels(first: 20) { nodes { name } } }\n"
        "    }\n",
    )


def dashboards_query() -> str:
    """The next page of issues carrying the dashboard's label; variables dashboardLabel and after."""
    variable, selection = _dashboard(True, after=True)
    return f"""query MoreDashboards($owner: String!, $name: String!{variable}, $after: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{selection}  }}
}}
"""


def _updated(native: Native, after: bool) -> str:
    """The issues updated at or after `$since`; ascending, so one changed while paging comes later."""
    page = ", after: $after" if after else ""
    return (
        f"    {UPDATED_ALIAS}: issues(filterBy: {{since: $since}}, orderBy: {{field: UPDATED_AT, direction: ASC}}, "
        f"first: {ISSUES_PER_QUERY}{page}) {{\n"
        f"      pageInfo {{ hasNextPage endCursor }}\n      nodes {{ ...IssueFields{native.spreads()} }}\n    }}"
    )


def _pulls(after: bool) -> str:
    """The open PRs from branches named `$branch`: perfbot's own, and forks' that share the name."""
    page = ", after: $after" if after else ""
    return (
        f"    {PULLS_ALIAS}: pullRequests(headRefName: $branch, states: [OPEN], first: {PULLS_PER_BRANCH}{page}) {{\n"
        "      pageInfo { hasNextPage endCursor }\n      nodes { ...PullFields }\n    }"
    )


ENDED_ALIAS = "endedPulls"
# The newest merged or closed PRs from `$branch` read for perfbot's own commit when its branch is
# gone or none of its last commits is perfbot's: a PR keeps its commits after its branch is deleted.
ENDED_PULLS = 5


def _ended_pulls() -> str:
    return (
        f"    {ENDED_ALIAS}: pullRequests(headRefName: $branch, states: [CLOSED, MERGED], last: {ENDED_PULLS}) {{\n"
        f"      nodes {{ number isCrossRepository commits(last: {OWN_COMMIT_DEPTH}) {{ nodes {{ commit {{ oid message "
        "...CommitAuthor } } } }\n    }"
    )


def pulls_query() -> str:
    """The next page of open PRs from `$branch` (only when the first page held forks' PRs alone)."""
    document = f"""query MorePulls($owner: String!, $name: String!, $branch: String!, $after: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{_pulls(after=True)}
  }}
}}"""
    return _with_fragments(document)


def pull_alias(number: int) -> str:
    return f"pull{int(number)}"


def force_pushes_query(numbers: Iterable[int]) -> str:
    """The newest force-pushes of each PR in `numbers`, with the commits they took off its branch:
    read only when no commit of perfbot's is found on its branch or in its PRs' commits."""
    pulls = "\n".join(f"    {pull_alias(n)}: pullRequest(number: {int(n)}) {{ ...ForcePushes }}" for n in numbers)
    document = f"""query ForcePushes($owner: String!, $name: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{pulls}
  }}
}}"""
    return _with_fragments(document)


def _issues(numbers: Iterable[int], native: Native = NONE) -> str:
    fields = "...IssueFields" + native.spreads()
    return "\n".join(f"    {issue_alias(n)}: issue(number: {int(n)}) {{ {fields} }}" for n in numbers)


def _used(document: str, fragments: str) -> str:
    """Only the fragments a document uses (GraphQL refuses unused ones)."""
    blocks = ["fragment " + block.strip() for block in fragments.split("fragment ") if block.strip()]
    needed: list[str] = []
    pending = [document]
    while pending:
        text = pending.pop()
        for block in blocks:
            name = block.split()[1]
            if block not in needed and f"...{name}" in text:
                needed.append(block)
                pending.append(block)
    return document + "\n" + "\n".join(sorted(needed)) + "\n"


def branch_file_alias(index: int) -> str:
    return f"branchFile{index}"


def branch_file_fields(count: int) -> tuple[str, list[str]]:
    """Files on other branches, read in the first query (the published lease readback): the
    variable declarations (`branchFile0`.., `BRANCH:PATH` expressions) and one `object` field
    each. Apart from the rest of the first query, which other readings extend."""
    declarations = "".join(f", ${branch_file_alias(i)}: String!" for i in range(count))
    fields = [
        f"    {branch_file_alias(i)}: object(expression: ${branch_file_alias(i)}) {{ ...BlobText }}"
        for i in range(count)
    ]
    return declarations, fields


def _with_fragments(document: str) -> str:
    return _used(document, _FRAGMENTS + FORCE_PUSH_FRAGMENT + _NATIVE_FRAGMENTS + PULL_FRAGMENTS)


def first_query(
    tip_files: int,
    head_files: int,
    numbers: Sequence[int],
    with_viewer: bool,
    branch_files: int = 0,
    native: Native = NONE,
    since: bool = False,
    dashboard: bool = False,
    pull_leases: bool = False,
    elsewhere: Sequence[Sequence[int]] = (),
) -> str:
    """Variables: owner, name, branch, branchRef, tip0.., head0.. and branchFile0.. (`REF:PATH`
    expressions), labelPrefix when state labels are read, since (a DateTime) with `since`,
    dashboardLabel with `dashboard`. `pull_leases` reads the open and recently closed PRs.
    `elsewhere`: the issues of each other repository (variables r0Owner, r0Name, ...)."""
    label_var, state_labels = native.repository_labels()
    dashboard_var, dashboards = _dashboard(dashboard)
    wanted = [("tip", i) for i in range(tip_files)] + [("head", i) for i in range(head_files)]
    tip_vars = "".join(f", ${file_alias(where, i)}: String!" for where, i in wanted)
    branch_vars, branch_fields = branch_file_fields(branch_files)
    blobs = "\n".join(
        [
            *(
                f"    {file_alias(where, i)}: object(expression: ${file_alias(where, i)}) {{ ...BlobText }}"
                for where, i in wanted
            ),
            *branch_fields,
        ]
    )
    viewer = "  viewer { login }\n" if with_viewer else ""
    since_var, updated = (", $since: DateTime!", _updated(native, after=False) + "\n") if since else ("", "")
    variables = (
        f"$owner: String!, $name: String!, $branch: String!, $branchRef: String!{tip_vars}{branch_vars}{label_var}"
        f"{since_var}{dashboard_var}{elsewhere_variables(len(elsewhere))}"
    )
    document = f"""query Observe({variables}) {{
{RATE_LIMIT}{viewer}  repository(owner: $owner, name: $name) {{
    id
    nameWithOwner
    defaultBranchRef {{ name target {{ oid ... on Commit {{ tree {{ oid }} }} }} }}
{blobs}
    branchHead: ref(qualifiedName: $branchRef) {{
      target {{
        oid ...CommitAuthor
        ... on Commit {{ history(first: {OWN_COMMIT_DEPTH}) {{ nodes {{ oid message ...CommitAuthor }} }} }}
      }}
    }}
{_pulls(after=False)}
{_ended_pulls()}
{state_labels}{dashboards}{pull_selection() if pull_leases else ""}{updated}{_issues(numbers, native)}
  }}
{elsewhere_fields(elsewhere, native, label_names=True, since=since)}}}"""
    return qualified(_with_fragments(document)) if elsewhere else _with_fragments(document)


# --- other repositories: the issues a snapshot names as `owner/repo#N` ------------------------
# Each repository is one more aliased `repository` field of the same first query (`r0`, `r1`, ...),
# its owner and name as variables, with its issues aliased as in the bot's own repository. Beside
# the issue fields, each issue says what the token may do on it (`viewerCanUpdate`,
# `viewerCanLabel`: GitHub answers both for a GitHub App's token as for a person's, where
# `Repository.viewerPermission` is null for an App), so a run knows before it writes which
# repositories it cannot write.
ELSEWHERE_FIELDS = "viewerCanUpdate viewerCanLabel"


def qualified(document: str) -> str:
    """The document with each linked issue's repository read too: across repositories a number alone
    does not say which issue it is."""
    return document.replace("nodes { number } }", "nodes { number repository { nameWithOwner } } }").replace(
        "parent { number }", "parent { number repository { nameWithOwner } }"
    )


def elsewhere_alias(index: int) -> str:
    return f"r{index}"


def elsewhere_variables(count: int) -> str:
    return "".join(f", ${elsewhere_alias(i)}Owner: String!, ${elsewhere_alias(i)}Name: String!" for i in range(count))


def elsewhere_fields(
    numbers: Sequence[Sequence[int]], native: Native = NONE, label_names: bool = False, since: bool = False
) -> str:
    """One aliased `repository` per other repository, with its issues (and, with state labels on, its
    state labels by name, the same variables as the bot's own repository's; with `since`, as in the
    bot's own repository, its issues changed since the observation cache's watermark)."""
    _, labels = native.repository_labels() if label_names else ("", "")
    if since:
        labels += _updated(native, after=False) + "\n"
    fields = "...IssueFields" + native.spreads() + " " + ELSEWHERE_FIELDS
    blocks = []
    for index, group in enumerate(numbers):
        alias = elsewhere_alias(index)
        issues = "\n".join(f"    {issue_alias(n)}: issue(number: {int(n)}) {{ {fields} }}" for n in group)
        blocks.append(
            f"  {alias}: repository(owner: ${alias}Owner, name: ${alias}Name) {{\n    nameWithOwner\n"
            f"{labels}{issues}\n  }}\n"
        )
    return "".join(blocks)


def elsewhere_query(numbers: Sequence[int], native: Native = NONE) -> str:
    """Further issues of one other repository (past the first query's `ISSUES_PER_QUERY`); variables
    `r0Owner`, `r0Name`."""
    document = f"""query MoreIssuesElsewhere({elsewhere_variables(1)[2:]}) {{
{RATE_LIMIT}{elsewhere_fields([numbers], native)}}}"""
    return qualified(_with_fragments(document))


def updated_query(native: Native = NONE) -> str:
    """The next page of `updated`; variables since and after (the previous page's end cursor)."""
    document = f"""query MoreUpdated($owner: String!, $name: String!, $since: DateTime!, $after: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{_updated(native, after=True)}
  }}
}}"""
    return _with_fragments(document)


def issues_query(numbers: Sequence[int], native: Native = NONE) -> str:
    document = f"""query MoreIssues($owner: String!, $name: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{_issues(numbers, native)}
  }}
}}"""
    return _with_fragments(document)


def comments_query(numbers: Sequence[int]) -> str:
    """The next page of comments of each issue; variable `cN` is issue N's cursor."""
    variables = "".join(f", $c{int(n)}: String!" for n in numbers)
    pages = "\n".join(
        f"    {issue_alias(n)}: issue(number: {int(n)}) {{ comments(first: {COMMENTS_PER_PAGE}, after: $c{int(n)}) "
        "{ ...CommentPage } }"
        for n in numbers
    )
    document = f"""query MoreComments($owner: String!, $name: String!{variables}) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{pages}
  }}
}}"""
    return _used(document, _FRAGMENTS)


def newest_comments_query(numbers: Sequence[int]) -> str:
    """These issues' newest comments, author, editor and body: the markers comment writes re-read."""
    issues = "\n".join(
        f"    {issue_alias(n)}: issue(number: {int(n)}) {{\n"
        f"      comments(last: {COMMENTS_PER_PAGE}) {{ nodes {{ author {{ __typename login }} "
        "editor { __typename login } lastEditedAt body } }\n    }"
        for n in numbers
    )
    return f"""query NewestComments($owner: String!, $name: String!) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{issues}
  }}
}}
"""


def links_alias(number: int, field: str) -> str:
    return f"{issue_alias(number)}_{field}"


def links_query(pending: Sequence[tuple[int, str]]) -> str:
    """The next page of each (issue, link field); variable `<alias>` is that list's cursor."""
    variables = "".join(f", ${links_alias(n, f)}: String!" for n, f in pending)
    pages = "\n".join(
        f"    {alias}: issue(number: {int(n)}) {{ {f}(first: {LINKS_PER_PAGE}, after: ${alias}) {{ ...LinkPage }} }}"
        for n, f in pending
        for alias in [links_alias(n, f)]
    )
    document = f"""query MoreLinks($owner: String!, $name: String!{variables}) {{
{RATE_LIMIT}  repository(owner: $owner, name: $name) {{
{pages}
  }}
}}"""
    return _used(document, _NATIVE_FRAGMENTS)


# How GitHub (and graphql-core, in the tests' double) says that a field does not exist.
_UNKNOWN_FIELD = re.compile(r"Field '(\w+)' doesn't exist on type|Cannot query field '(\w+)' on type")


class FieldsRefused(GitHubError):
    """GitHub does not know some fields of the query (an older GitHub Enterprise Server)."""

    def __init__(self, message: str, fields: frozenset[str]) -> None:
        super().__init__(message)
        self.fields = fields


def query(
    session: Session,
    document: str,
    variables: dict[str, Any],
    what: str,
    refused: Refusals | None = None,
) -> dict[str, Any]:
    """The `data` of a query. GitHub reports a primary limit as a 200 with an error, which the
    retry policy never sees: it is waited out here once, within the run's budget for limits. A
    secondary limit answered with 200 is raised inside the client's retry loop instead
    (`client.GraphQLSecondaryLimit`) and waited out there; here it only becomes the run's error.

    `refused`: the top-level aliases (other repositories) whose refusal is an answer, not a
    failure: when every error is about one of them, what GitHub said of each is put there and the
    rest of the data is returned."""
    for attempt in range(2):
        try:
            data = session.github.graphql.request(
                document, {"owner": session.conn.owner, "name": session.conn.name, **variables}
            )
            session.traffic.cost((data.get("rateLimit") or {}).get("cost"))
            return data
        except GraphQLFailed as exc:
            partial = _refused_aliases(exc.response, refused)
            if partial is not None:
                session.traffic.cost(((exc.response.data or {}).get("rateLimit") or {}).get("cost"))
                return partial
            names = refused.names if refused is not None else {}
            raise _errors(exc.response, session.conn.repository, what, names) from exc
        except GraphQLSecondaryLimit as exc:  # the retry policy waited as long as the budget allows
            raise failure(exc, what, session) from exc
        except RateLimitExceeded as exc:
            limit = limited(exc)
            delay = session.limits.take(limit) if limit is not None and attempt == 0 else None
            if delay is None:
                raise rate_limited(what, exc.retry_after, session.now) from exc
            session.wait(delay)
        except GitHubException as exc:
            raise failure(exc, what, session) from exc
    raise AssertionError("unreachable")  # pragma: no cover


def mutate(session: Session, document: str, variables: dict[str, Any], what: str) -> dict[str, Any]:
    """The `data` of a mutation. A mutation is a write: never sent twice by the retry policy, and an
    answer that was lost may have landed (`client.failure`, not repeatable). GitHub's refusal comes
    back as `MutationRefused`, with its messages, for the caller to tell apart."""
    try:
        return session.github.graphql.request(document, variables)
    except GraphQLFailed as exc:
        errors = exc.response.errors or []
        said = "; ".join(neutral(error.message, 300) for error in errors)
        raise MutationRefused(f"{what}: GitHub refused ({said})", {str(e.type) for e in errors if e.type}) from exc
    except GitHubException as exc:
        raise failure(exc, what, session, repeatable=False) from exc


class MutationRefused(GitHubError):
    """GitHub answered a mutation with errors: nothing of it was applied. `kinds` are the errors'
    types (`STALE_DATA`, `NOT_FOUND`, ...)."""

    def __init__(self, message: str, kinds: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.kinds = frozenset(kinds)


@dataclass
class Refusals:
    """The aliases of other repositories in a query (alias -> `owner/name`), and what GitHub said
    of each it refused (the token cannot see it)."""

    names: dict[str, str]
    said: dict[str, str] = field(default_factory=dict)


def _refused_aliases(response: GraphQLResponse, refused: Refusals | None) -> dict[str, Any] | None:
    """The data of an answer whose every error is about a whole other repository, each error's
    words put into `refused`; None when any other error is there."""
    if refused is None or response.data is None:
        return None
    said: dict[str, str] = {}
    for error in response.errors or []:
        path = [str(p) for p in error.path or []]
        if len(path) != 1 or path[0] not in refused.names:
            return None
        said[path[0]] = neutral(f"{error.type or 'error'}: {error.message}", 300)
    refused.said.update(said)
    return response.data


def _unknown_fields(response: GraphQLResponse) -> frozenset[str]:
    """The fields GitHub says do not exist, when that is all its errors say."""
    found = set()
    for error in response.errors or []:
        match = _UNKNOWN_FIELD.search(error.message)
        if match is None:
            return frozenset()
        found.add(match.group(1) or match.group(2))
    return frozenset(found)


def _errors(response: GraphQLResponse, repository: str, what: str, names: dict[str, str]) -> GitHubError:
    unknown = _unknown_fields(response)
    if unknown:
        return FieldsRefused(f"{what}: GitHub does not know the fields {', '.join(sorted(unknown))}", unknown)
    messages = []
    for error in response.errors or []:
        path = [str(p) for p in error.path or []]
        if error.type == "NOT_FOUND" and path == ["repository"]:
            return GitHubError(
                f"repository {repository} not found, or the token cannot see it; check GITHUB_REPOSITORY or --repo"
            )
        if error.type == "NOT_FOUND" and len(path) == 2 and path[1][1:].isdigit():
            where = names.get(path[0], repository)
            shown = f"#{path[1][1:]}" if where == repository else f"{where}#{path[1][1:]}"
            return GitHubError(
                f"issue {shown}, named by the snapshot, is not an issue of {where} "
                "(missing, transferred, or a pull request)"
            )
        messages.append(neutral(f"{error.type or 'error'}: {error.message}", 300))
    return GitHubError(f"{what}: GitHub answered with errors: " + "; ".join(messages))


# --- pull requests as leases (`leases.sources: [pull-requests]`) -------------------------------
# The first query reads the open PRs (`OPEN_ALIAS`, oldest first, `PULLS_PER_PAGE` of them) and
# the most recently closed or merged ones (`CLOSED_ALIAS`, `CLOSED_READ`: the released leases a
# ready comment names), each with its author, draft flag, file count, first page of changed paths,
# closing references and newest commit (its time is the lease's heartbeat). Follow-up queries read
# only what one page did not hold: further open PRs, and further pages of a PR's paths or closing
# references (`observe.PullReads`).
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
PULL_FRAGMENTS = f"""
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


def pull_selection(after: bool = False) -> str:
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


def more_pull_leases_query() -> str:
    return f"""query MorePullLeases($owner: String!, $name: String!, $after: String!) {{
  rateLimit {{ cost }}
  repository(owner: $owner, name: $name) {{
{pull_selection(after=True)}  }}
}}
{PULL_FRAGMENTS}"""


def pages_alias(number: int) -> str:
    return f"p{int(number)}"


def pull_pages_query(pending: dict[int, tuple[str | None, str | None]]) -> str:
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
