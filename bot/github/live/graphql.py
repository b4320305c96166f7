"""Sending a GraphQL query: partial data with errors is a clear error, never half a reading."""

from __future__ import annotations

import re
from typing import Any

from githubkit.exception import GitHubException, GraphQLFailed, RateLimitExceeded
from githubkit.graphql import GraphQLResponse

from bot.github.live.client import Session
from bot.github.live.failures import failure, rate_limited
from bot.github.live.limits import GraphQLSecondaryLimit, limited
from bot.github.port import GitHubError
from bot.untrusted import neutral

# How GitHub (and graphql-core, in the tests' double) says that a field does not exist.
_UNKNOWN_FIELD = re.compile(r"Field '(\w+)' doesn't exist on type|Cannot query field '(\w+)' on type")


class FieldsRefused(GitHubError):
    """GitHub does not know some fields of the query (an older GitHub Enterprise Server)."""

    def __init__(self, message: str, fields: frozenset[str]) -> None:
        super().__init__(message)
        self.fields = fields


def query(session: Session, document: str, variables: dict[str, Any], what: str) -> dict[str, Any]:
    """The `data` of a query. GitHub reports a primary limit as a 200 with an error, which the
    retry policy never sees: it is waited out here once, within the run's budget for limits. A
    secondary limit answered with 200 is raised inside the client's retry loop instead
    (`limits.GraphQLSecondaryLimit`) and waited out there; here it only becomes the run's error."""
    for attempt in range(2):
        try:
            data = session.github.graphql.request(
                document, {"owner": session.conn.owner, "name": session.conn.name, **variables}
            )
            session.traffic.cost((data.get("rateLimit") or {}).get("cost"))
            return data
        except GraphQLFailed as exc:
            raise _errors(exc.response, session.conn.repository, what) from exc
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
    answer that was lost may have landed (`failures.failure`, not repeatable). GitHub's refusal
    comes back as `MutationRefused`, with its messages, for the caller to tell apart."""
    try:
        return session.github.graphql.request(document, variables)
    except GraphQLFailed as exc:
        said = "; ".join(neutral(error.message, 300) for error in exc.response.errors or [])
        raise MutationRefused(f"{what}: GitHub refused ({said})") from exc
    except GitHubException as exc:
        raise failure(exc, what, session, repeatable=False) from exc


class MutationRefused(GitHubError):
    """GitHub answered a mutation with errors: nothing of it was applied."""


def _unknown_fields(response: GraphQLResponse) -> frozenset[str]:
    """The fields GitHub says do not exist, when that is all its errors say."""
    found = set()
    for error in response.errors or []:
        match = _UNKNOWN_FIELD.search(error.message)
        if match is None:
            return frozenset()
        found.add(match.group(1) or match.group(2))
    return frozenset(found)


def _errors(response: GraphQLResponse, repository: str, what: str) -> GitHubError:
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
            return GitHubError(
                f"issue #{path[1][1:]}, named by the snapshot, is not an issue of {repository} "
                "(missing, transferred, or a pull request)"
            )
        messages.append(neutral(f"{error.type or 'error'}: {error.message}", 300))
    return GitHubError(f"{what}: GitHub answered with errors: " + "; ".join(messages))
