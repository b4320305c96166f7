"""Fidelity of the double: its GraphQL schema is GitHub's, field by field; every document the tests
send validates against GitHub's published schema; every REST body parses with githubkit's models.

GitHub's schema comes from `.ci/fetch-graphql-schema` (npm @octokit/graphql-schema). With CI=true a
missing schema fails these tests; elsewhere they skip and say how to fetch it.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from githubkit_schemas.latest import models
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    ObjectTypeExtensionNode,
    build_schema,
    is_introspection_type,
    is_specified_scalar_type,
    parse,
    validate,
)
from pydantic import TypeAdapter

from tests.boundary.test_github_double_rest import BRANCH, SNAPSHOT
from tests.github_double import graphql_api, openapi_check, published, routes
from tests.support import double_queries
from tests.support.double_support import NAME, OWNER, comment, example_state, make_double

REPO = f"/repos/{OWNER}/{NAME}"


def _differences(name: str, ours: Any, theirs: Any) -> list[str]:
    """What our type has that GitHub's type of the same name does not (or has otherwise)."""
    if type(theirs) is not type(ours):
        return [f"{name}: {type(ours).__name__} here, {type(theirs).__name__} on GitHub"]
    if isinstance(ours, GraphQLEnumType):
        return [f"{name}.{value}: no such value on GitHub" for value in set(ours.values) - set(theirs.values)]
    if isinstance(ours, GraphQLUnionType):
        return [
            f"{name}: {t.name} is no member on GitHub"
            for t in ours.types
            if t.name not in {m.name for m in theirs.types}
        ]
    found = []
    if isinstance(ours, GraphQLObjectType | GraphQLInterfaceType):
        implemented = {i.name for i in theirs.interfaces}
        found += [f"{name} implements {i.name}: not on GitHub" for i in ours.interfaces if i.name not in implemented]
    for field_name, field in getattr(ours, "fields", {}).items():
        where, other = f"{name}.{field_name}", theirs.fields.get(field_name)
        if other is None:
            found.append(f"{where}: no such field on GitHub")
            continue
        if str(field.type) != str(other.type):
            found.append(f"{where}: {field.type} here, {other.type} on GitHub")
        if isinstance(ours, GraphQLInputObjectType) and repr(field.default_value) != repr(other.default_value):
            found.append(f"{where}: default {field.default_value!r} here, {other.default_value!r} on GitHub")
        for arg_name, arg in getattr(field, "args", {}).items():
            theirs_arg = other.args.get(arg_name)
            if theirs_arg is None or str(arg.type) != str(theirs_arg.type):
                found.append(f"{where}({arg_name}): {arg.type} here, {theirs_arg and theirs_arg.type} on GitHub")
            elif repr(arg.default_value) != repr(theirs_arg.default_value):
                found.append(f"{where}({arg_name}): default {arg.default_value!r} here, {theirs_arg.default_value!r}")
        required = [
            a
            for a, v in getattr(other, "args", {}).items()
            if isinstance(v.type, GraphQLNonNull) and repr(v.default_value) == "Undefined"
        ]
        found += [
            f"{where}({a}): required on GitHub, missing here" for a in required if a not in getattr(field, "args", {})
        ]
    return found


def test_the_schema_is_a_subset_of_githubs_field_by_field(github_schema: GraphQLSchema) -> None:
    ours = graphql_api.schema()
    named = [t for t in ours.type_map.values() if not is_introspection_type(t) and not is_specified_scalar_type(t)]
    assert len(named) > 40
    problems = []
    for kind in named:
        theirs = github_schema.type_map.get(kind.name)
        problems += (
            [f"{kind.name}: no such type on GitHub"] if theirs is None else _differences(kind.name, kind, theirs)
        )
    assert problems == []


def test_documented_fields_are_not_yet_in_the_published_schema(github_schema: GraphQLSchema) -> None:
    """documented.graphql only shrinks: once the package carries a field, it must leave the list."""
    document = parse(published.DOCUMENTED.read_text(encoding="utf-8"))
    added = [
        (definition.name.value, field.name.value)
        for definition in document.definitions
        if isinstance(definition, ObjectTypeExtensionNode)
        for field in definition.fields or ()
    ]
    assert ("Issue", "blockedBy") in added
    for type_name, field_name in added:
        fields = published.published_fields(type_name)
        assert fields is not None, f"{type_name} is not a published type"
        assert field_name not in fields, f"{type_name}.{field_name} is published now"
        assert field_name in github_schema.type_map[type_name].fields  # type: ignore[attr-defined]


def test_the_subset_check_catches_what_github_does_not_have(github_schema: GraphQLSchema) -> None:
    wrong = build_schema(
        "interface Named { name: String }\ntype Query { viewer: User }\n"
        "type User implements Named { login: Int nickname: String name: String repository(owner: String): User }"
    )
    assert _differences("User", wrong.type_map["User"], github_schema.type_map["User"]) == [
        "User implements Named: not on GitHub",
        "User.login: Int here, String! on GitHub",
        "User.nickname: no such field on GitHub",
        "User.repository: User here, Repository on GitHub",
        "User.repository(owner): String here, None on GitHub",
        "User.repository(name): required on GitHub, missing here",
    ]


@pytest.mark.parametrize("name", sorted(double_queries.DOCUMENTS))
def test_every_document_the_tests_send_is_valid_on_github(name: str, github_schema: GraphQLSchema) -> None:
    assert validate(github_schema, parse(double_queries.DOCUMENTS[name])) == []


def test_a_document_github_refuses_is_refused(github_schema: GraphQLSchema) -> None:
    assert validate(github_schema, parse(double_queries.UNKNOWN_FIELD)) != []


def _rest_scenario(http: httpx.Client) -> list[tuple[str, str, httpx.Response, Any]]:
    """One call of every endpoint the double serves (and its error bodies), with the model that must parse it."""
    calls: list[tuple[str, str, httpx.Response, Any]] = []

    def call(method: str, path: str, model: Any, body: Any = None, **params: str) -> Any:
        answer = http.request(method, path, json=body, params=params or None)
        calls.append((method, path, answer, model))
        return answer.json() if answer.content else None

    m = models
    call("GET", REPO, m.FullRepository)
    call("GET", f"{REPO}/issues/8325", m.Issue)
    call("GET", f"{REPO}/issues/8325/comments", list[m.IssueComment])
    posted = call("POST", f"{REPO}/issues/8325/comments", m.IssueComment, {"body": "hi"})["id"]
    call("PATCH", f"{REPO}/issues/comments/{posted}", m.IssueComment, {"body": "hi again"})
    call("GET", f"{REPO}/issues/comments/{posted}", m.IssueComment)
    eyes = call("POST", f"{REPO}/issues/comments/1/reactions", m.Reaction, {"content": "eyes"})["id"]
    call("GET", f"{REPO}/issues/comments/1/reactions", list[m.Reaction])
    call("DELETE", f"{REPO}/issues/comments/1/reactions/{eyes}", None)
    call("POST", f"{REPO}/issues/8325/assignees", m.Issue, {"assignees": ["alice"]})
    call("DELETE", f"{REPO}/issues/8325/assignees", m.Issue, {"assignees": ["alice"]})
    call("GET", f"{REPO}/collaborators/alice/permission", m.RepositoryCollaboratorPermission)
    call("POST", f"{REPO}/labels", m.Label, {"name": "perf/complete", "color": "6e7781", "description": "d"})
    call("POST", f"{REPO}/issues/8325/labels", list[m.Label], {"labels": ["perf/ready"]})
    call("DELETE", f"{REPO}/issues/8325/labels/perf%2Fready", list[m.Label])
    blocker = call("GET", f"{REPO}/issues/8324", m.Issue)["id"]
    call("POST", f"{REPO}/issues/8325/dependencies/blocked_by", m.Issue, {"issue_id": blocker})
    call("DELETE", f"{REPO}/issues/8325/dependencies/blocked_by/{blocker}", m.Issue)
    child = call("GET", f"{REPO}/issues/8819", m.Issue)["id"]
    call("POST", f"{REPO}/issues/9430/sub_issues", m.Issue, {"sub_issue_id": child})
    call("DELETE", f"{REPO}/issues/9430/sub_issue", m.Issue, {"sub_issue_id": child})
    call("POST", f"{REPO}/labels", m.ValidationError, {"name": "perf/ready"})
    tip = call("GET", f"{REPO}/git/ref/heads/main", m.GitRef)["object"]["sha"]
    tree = call("GET", f"{REPO}/git/commits/{tip}", m.GitCommit)["tree"]["sha"]
    entry = {"path": SNAPSHOT, "mode": "100644", "type": "blob", "content": "snapshot: next\n"}
    new_tree = call("POST", f"{REPO}/git/trees", m.GitTree, {"base_tree": tree, "tree": [entry]})["sha"]
    commit = call("POST", f"{REPO}/git/commits", m.GitCommit, {"message": "m", "tree": new_tree, "parents": [tip]})[
        "sha"
    ]
    call("POST", f"{REPO}/git/refs", m.GitRef, {"ref": f"refs/heads/{BRANCH}", "sha": commit})
    call("PATCH", f"{REPO}/git/refs/heads/{BRANCH}", m.GitRef, {"sha": commit, "force": True})
    call("GET", f"{REPO}/compare/main...{BRANCH}", m.CommitComparison)
    call("GET", f"{REPO}/commits", list[m.Commit], sha=BRANCH)
    number = call(
        "POST", f"{REPO}/pulls", m.PullRequest, {"title": "t", "head": BRANCH, "base": "main", "draft": True}
    )["number"]
    call("POST", f"{REPO}/issues/{number}/labels", list[m.Label], {"labels": ["automated"]})
    call("POST", f"{REPO}/pulls/{number}/requested_reviewers", m.PullRequestSimple, {"reviewers": ["alice"]})
    call("GET", f"{REPO}/pulls", list[m.PullRequestSimple], head=f"{OWNER}:{BRANCH}")
    call("GET", f"{REPO}/pulls/{number}", m.PullRequest)
    # `merge: auto`: a head that moved is refused (409).
    call("PUT", f"{REPO}/pulls/{number}/merge", m.BasicError, {"sha": "0" * 40})
    call("PATCH", f"{REPO}/pulls/{number}", m.PullRequest, {"state": "closed"})
    call("PATCH", f"{REPO}/pulls/{number}", m.PullRequest, {"state": "open"})
    call("PUT", f"{REPO}/pulls/{number}/merge", m.PullRequestMergeResult, {"merge_method": "merge"})
    made = call("POST", f"{REPO}/issues", m.Issue, {"title": "dashboard", "body": "b", "labels": ["perfbot-dashboard"]})
    call("PATCH", f"{REPO}/issues/{made['number']}", m.Issue, {"body": "edited"})
    # A dispatch answers 204 with no body.
    dispatch = {"event_type": "perfbot-leases", "client_payload": {"leases": "perfbot/leases:leases.json"}}
    calls.append(("POST", f"{REPO}/dispatches", http.post(f"{REPO}/dispatches", json=dispatch), None))
    # Error bodies parse with the error models githubkit expects for them.
    call("POST", f"{REPO}/pulls", m.ValidationError, {"title": "t", "head": "nope", "base": "main"})
    call("PATCH", f"{REPO}/git/refs/heads/{BRANCH}", m.ValidationError, {"sha": tip})
    with openapi_check.unserved():  # an operation the double does not serve: GitHub's 404 body
        call("GET", f"{REPO}/actions/runs", m.BasicError)
    return calls


def test_every_rest_body_parses_with_githubkits_models() -> None:
    double = make_double(example_state(comments=[comment(1, 8325, "alice", "hello")], permissions={"alice": "write"}))
    headers = {"authorization": "token test-token"}
    with httpx.Client(transport=double.transport(), base_url="https://api.github.com", headers=headers) as http:
        calls = _rest_scenario(http)
    covered = set()
    for method, path, answer, model in calls:
        assert answer.status_code < 300 or model in (models.ValidationError, models.BasicError), (
            method,
            path,
            answer.text,
        )
        if model is None:
            assert (answer.status_code, answer.content) == (204, b"")
        else:
            TypeAdapter(model).validate_python(answer.json())
        covered |= {(m, p.pattern) for m, p, _ in routes.COMPILED if m == method and p.fullmatch(path)}
    assert covered == {(method, pattern) for method, pattern, _ in routes.ROUTES}
    assert {a.status_code for _, _, a, _ in calls} >= {200, 201, 404, 422}
    assert all(re.fullmatch(r"\d+", a.headers["x-ratelimit-remaining"]) for _, _, a, _ in calls)
