"""Which handler answers which REST request (paths exactly as GitHub's REST documentation)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import unquote

from tests.github_double import openapi_check, rest_dashboard, rest_git, rest_issues, rest_native, rest_pulls
from tests.github_double.context import Context
from tests.github_double.protocol import HttpError, Response, error_body, not_found

Handler = Callable[..., Response]
REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ISSUE = REPO + r"/issues/(?P<number>\d+)"
COMMENT = REPO + r"/issues/comments/(?P<comment_id>\d+)"

ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", REPO, rest_issues.get_repository),
    ("GET", ISSUE, rest_issues.get_issue),
    ("GET", ISSUE + "/comments", rest_issues.list_comments),
    ("POST", ISSUE + "/comments", rest_issues.create_comment),
    ("GET", COMMENT, rest_issues.get_comment),
    ("PATCH", COMMENT, rest_issues.update_comment),
    ("GET", COMMENT + "/reactions", rest_issues.list_reactions),
    ("POST", COMMENT + "/reactions", rest_issues.create_reaction),
    ("DELETE", COMMENT + r"/reactions/(?P<reaction_id>\d+)", rest_issues.delete_reaction),
    ("POST", ISSUE + "/assignees", rest_issues.add_assignees),
    ("DELETE", ISSUE + "/assignees", rest_issues.remove_assignees),
    ("GET", REPO + r"/collaborators/(?P<username>[^/]+)/permission", rest_issues.permission),
    ("POST", REPO + r"/labels", rest_native.create_label),
    ("POST", ISSUE + "/labels", rest_native.add_labels),
    ("DELETE", ISSUE + r"/labels/(?P<name>.+)", rest_native.remove_label),
    ("POST", ISSUE + "/dependencies/blocked_by", rest_native.add_blocked_by),
    ("DELETE", ISSUE + r"/dependencies/blocked_by/(?P<issue_id>\d+)", rest_native.remove_blocked_by),
    ("POST", ISSUE + "/sub_issues", rest_native.add_sub_issue),
    ("DELETE", ISSUE + "/sub_issue", rest_native.remove_sub_issue),
    ("GET", REPO + r"/git/ref/(?P<ref>.+)", rest_git.get_ref),
    ("POST", REPO + r"/git/trees", rest_git.create_tree),
    ("POST", REPO + r"/git/commits", rest_git.create_commit),
    ("GET", REPO + r"/git/commits/(?P<sha>[0-9a-f]{40})", rest_git.get_commit),
    ("POST", REPO + r"/git/refs", rest_git.create_ref),
    ("PATCH", REPO + r"/git/refs/(?P<ref>.+)", rest_git.update_ref),
    ("GET", REPO + r"/compare/(?P<basehead>.+)", rest_git.compare),
    ("GET", REPO + r"/commits", rest_git.list_commits),
    ("GET", REPO + r"/pulls", rest_pulls.list_pulls),
    ("POST", REPO + r"/pulls", rest_pulls.create_pull),
    ("GET", REPO + r"/pulls/(?P<number>\d+)", rest_pulls.get_pull),
    ("PATCH", REPO + r"/pulls/(?P<number>\d+)", rest_pulls.update_pull),
    ("PUT", REPO + r"/pulls/(?P<number>\d+)/merge", rest_pulls.merge_pull),
    ("POST", REPO + r"/pulls/(?P<number>\d+)/requested_reviewers", rest_pulls.request_reviewers),
    ("POST", REPO + r"/dispatches", rest_git.create_dispatch),
    ("POST", REPO + r"/issues", rest_dashboard.create_issue),
    ("PATCH", ISSUE, rest_dashboard.update_issue),
]
COMPILED = [(method, re.compile(pattern), handler) for method, pattern, handler in ROUTES]


def _its_url(ctx: Context, answer: Response) -> str:
    url: str = answer.body["url"]
    return url


def _posted_to(ctx: Context, answer: Response) -> str:
    return ctx.api + ctx.request.path


# The creates whose 201 carries a `Location` header on GitHub (its OpenAPI description documents
# one for each): the created resource's API URL, which is the body's `url`, or for a link between
# two issues, whose body is one of the issues, the list the link was added to (the URL posted to).
# `rest_issues.create_comment` sets its own.
LOCATIONS: dict[Handler, Callable[[Context, Response], str]] = {
    rest_native.create_label: _its_url,
    rest_native.add_blocked_by: _posted_to,
    rest_native.add_sub_issue: _posted_to,
    rest_git.create_tree: _its_url,
    rest_git.create_commit: _its_url,
    rest_git.create_ref: _its_url,
    rest_pulls.create_pull: _its_url,
}


# What the double serves in another repository the state holds issues of (`repositories`): the
# issue, comment, label and link routes perfbot uses there.
ELSEWHERE: frozenset[Handler] = frozenset(
    {
        rest_issues.get_issue,
        rest_issues.list_comments,
        rest_issues.create_comment,
        rest_issues.get_comment,
        rest_issues.update_comment,
        rest_issues.list_reactions,
        rest_issues.create_reaction,
        rest_issues.add_assignees,
        rest_issues.remove_assignees,
        rest_issues.permission,
        rest_native.create_label,
        rest_native.add_labels,
        rest_native.remove_label,
        rest_native.add_blocked_by,
        rest_native.remove_blocked_by,
        rest_native.add_sub_issue,
        rest_native.remove_sub_issue,
    }
)


def _reachable(ctx: Context, named: str) -> str:
    """Another repository, when the viewer may do there what the request does: a token that cannot see
    it gets GitHub's 404; one that may only read it gets, for a write, 403 "Resource not accessible
    by integration" (as GitHub answers an installation token outside its installation's reach) where
    GitHub's description documents a 403 for the operation, and 404 where it documents none."""
    reach = ctx.world.reach(named, ctx.viewer)
    if reach == "none":
        raise not_found()
    if ctx.request.method != "GET" and reach != "write":
        if not openapi_check.documents(ctx.request, 403):
            raise not_found()
        docs = "https://docs.github.com/rest/overview/permissions-required-for-github-apps"
        raise HttpError(403, error_body(403, "Resource not accessible by integration", docs))
    return named


def dispatch(ctx: Context) -> Response:
    """The handler's answer; 404 with GitHub's body for any other path, method or repository."""
    path = unquote(ctx.request.path.rstrip("/"))
    for method, pattern, handler in COMPILED:
        match = pattern.fullmatch(path)
        if match is None or method != ctx.request.method:
            continue
        params = match.groupdict()
        named = f"{params.pop('owner')}/{params.pop('repo')}"
        if named.lower() != ctx.world.repository.lower():
            if handler not in ELSEWHERE:
                break
            ctx = replace(ctx, repository=_reachable(ctx, named))
        answer = handler(ctx, **params)
        if answer.status == 201 and handler in LOCATIONS:
            answer.headers.setdefault("location", LOCATIONS[handler](ctx, answer))
        return answer
    raise not_found()
