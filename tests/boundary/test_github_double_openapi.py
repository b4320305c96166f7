"""The GitHub double held to GitHub's OpenAPI description of api.github.com (npm @octokit/openapi,
fetched by `.ci/fetch-openapi`): every route's exchange validates, each create says where its
resource is, and a wrong shape planted in the double fails its exchange, naming the operation.

With CI=true a missing description fails these tests; elsewhere they skip and say how to fetch it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.boundary.test_github_double_fidelity import _rest_scenario
from tests.github_double import GitHubDouble, bodies, openapi, openapi_check, rest_native, routes
from tests.github_double.openapi import Description
from tests.github_double.openapi_check import NotGitHubs
from tests.github_double.protocol import Request, Response, error_body
from tests.github_double.server import serve
from tests.support.double_support import BASE_URL, NAME, OWNER, comment, example_state, make_double

REPO = f"/repos/{OWNER}/{NAME}"
HEADERS = {"authorization": "token test-token"}
PREFIX = "the GitHub double's exchange is not GitHub's: "
# Every operation the double serves, as GitHub's description names it.
SERVED = [
    "git/create-commit",
    "git/create-ref",
    "git/create-tree",
    "git/get-commit",
    "git/get-ref",
    "git/update-ref",
    "issues/add-assignees",
    "issues/add-blocked-by-dependency",
    "issues/add-labels",
    "issues/add-sub-issue",
    "issues/create",
    "issues/create-comment",
    "issues/create-label",
    "issues/get",
    "issues/get-comment",
    "issues/list-comments",
    "issues/remove-assignees",
    "issues/remove-dependency-blocked-by",
    "issues/remove-label",
    "issues/remove-sub-issue",
    "issues/update",
    "issues/update-comment",
    "pulls/create",
    "pulls/get",
    "pulls/list",
    "pulls/merge",
    "pulls/request-reviewers",
    "pulls/update",
    "reactions/create-for-issue-comment",
    "reactions/delete-for-issue-comment",
    "reactions/list-for-issue-comment",
    "repos/compare-commits-with-basehead",
    "repos/create-dispatch-event",
    "repos/get",
    "repos/get-collaborator-permission-level",
    "repos/list-commits",
]


@pytest.fixture(scope="module")
def description() -> Description:
    found = openapi.load()
    if found is None:
        why = f"GitHub's OpenAPI description is not at {openapi.location()}; run .ci/fetch-openapi to fetch it"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return found


@pytest.fixture
def double(description: Description) -> GitHubDouble:
    return make_double(example_state(comments=[comment(1, 8325, "alice", "hello")], permissions={"alice": "write"}))


@pytest.fixture
def http(double: GitHubDouble) -> Iterator[httpx.Client]:
    with httpx.Client(transport=double.transport(), base_url=BASE_URL, headers=HEADERS) as client:
        yield client


def refused(send: Callable[[], Any]) -> str:
    """What the check says of the one exchange `send` makes; it is kept, once, for the suite too."""
    with pytest.raises(NotGitHubs) as raised:
        send()
    said = str(raised.value).removeprefix(PREFIX)
    assert openapi_check.take_violations() == [said]
    return said


def test_every_route_of_the_double_is_an_operation_of_github_and_validates(
    description: Description, http: httpx.Client
) -> None:
    calls = _rest_scenario(http)  # the check raises on the first exchange that is not GitHub's
    assert openapi_check.take_violations() == []
    served = {
        operation.id
        for method, _, answer, _ in calls
        if (operation := description.operation(method, answer.request.url.raw_path.decode().partition("?")[0]))
        is not None
        and answer.status_code < 300
    }
    assert sorted(served) == SERVED
    assert len(served) == len(routes.ROUTES)


def test_each_create_says_where_its_resource_is(description: Description, http: httpx.Client) -> None:
    """GitHub's Location: the created resource's API URL, or the list a link between issues joined."""
    located = {}
    for method, _, answer, _ in _rest_scenario(http):
        operation = description.operation(method, answer.request.url.raw_path.decode())
        if answer.status_code == 201 and operation is not None:
            body, posted, where = answer.json(), str(answer.request.url), answer.headers.get("location")
            located[operation.id] = where and (
                "url" if where == body["url"] else "posted" if where == posted else where
            )
    assert located == {
        "issues/create-comment": "url",
        "reactions/create-for-issue-comment": None,  # neither documents a Location
        "issues/add-assignees": None,
        "pulls/request-reviewers": None,  # documents none either
        "issues/create-label": "url",
        "issues/add-blocked-by-dependency": "posted",
        "issues/add-sub-issue": "posted",
        "git/create-tree": "url",
        "git/create-commit": "url",
        "git/create-ref": "url",
        "pulls/create": "url",
        "issues/create": "url",
    }


def test_a_body_missing_a_required_field_names_the_operation(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    issue = bodies.issue
    monkeypatch.setattr(bodies, "issue", lambda *args: {k: v for k, v in issue(*args).items() if k != "assignee"})
    assert refused(lambda: http.get(f"{REPO}/issues/8325")) == (
        "issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): status 200: "
        "response body (the whole body): 'assignee' is a required property"
    )


def test_a_wrong_type_deep_in_a_body_says_where(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    user = bodies.user
    monkeypatch.setattr(bodies, "user", lambda *args: user(*args) | {"id": str(user(*args)["id"])})
    said = refused(lambda: http.get(f"{REPO}/issues/8325/comments"))
    assert said.startswith(
        "issues/list-comments (GET /repos/{owner}/{repo}/issues/{issue_number}/comments): status 200:"
    )
    assert "response body 0/user/id:" in said
    assert "is not of type 'integer'" in said


def test_an_undocumented_status_names_the_operation(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def conflict(*_: Any, **__: Any) -> Response:
        return Response(409, error_body(409, "Conflict"))

    planted = [(m, p, conflict if m == "GET" and p.pattern == routes.ISSUE else h) for m, p, h in routes.COMPILED]
    monkeypatch.setattr(routes, "COMPILED", planted)
    assert refused(lambda: http.get(f"{REPO}/issues/8325")) == (
        "issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): "
        "status 409 is not documented (documented: 200, 301, 304, 404, 410)"
    )


def test_a_create_without_its_location_names_the_operation(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(routes.LOCATIONS, rest_native.create_label)
    assert refused(lambda: http.post(f"{REPO}/labels", json={"name": "perf/new", "color": "ededed"})) == (
        "issues/create-label (POST /repos/{owner}/{repo}/labels): "
        "status 201: no Location header (GitHub sends the created resource's API URL)"
    )


CREATE = "issues/create-comment (POST /repos/{owner}/{repo}/issues/{issue_number}/comments)"
LIST = "issues/list-comments (GET /repos/{owner}/{repo}/issues/{issue_number}/comments)"
COMMENTS = f"{REPO}/issues/8325/comments"


@pytest.mark.parametrize(
    ("send", "said"),
    [
        (lambda h: h.post(COMMENTS, json={"body": 5}), f"{CREATE}: request body body: 5 is not of type 'string'"),
        (lambda h: h.post(COMMENTS), f"{CREATE}: the request body is required"),
        (
            lambda h: h.post(COMMENTS, json={"text": "hi"}),
            f"{CREATE}: request body (the whole body): 'body' is a required property",
        ),
        (
            lambda h: h.request("GET", COMMENTS, json={"body": "hi"}),
            f"{LIST}: a request body, where the operation takes none",
        ),
        (
            lambda h: h.get(COMMENTS, params={"per_page": "many"}),
            f"{LIST}: query parameter 'per_page' = 'many': 'many' is not of type 'integer'",
        ),
        (lambda h: h.get(COMMENTS, params={"colour": "red"}), f"{LIST}: query parameter 'colour' is not documented"),
        (
            lambda h: h.get(COMMENTS, params={"since": "yesterday"}),
            f"{LIST}: query parameter 'since' = 'yesterday': 'yesterday' is not a 'date-time'",
        ),
        (
            lambda h: h.get(f"{REPO}/issues/first/comments"),
            f"{LIST}: path parameter 'issue_number' = 'first': 'first' is not of type 'integer'",
        ),
    ],
)
def test_a_request_github_would_refuse_names_the_operation(
    http: httpx.Client, send: Callable[[httpx.Client], Any], said: str
) -> None:
    assert refused(lambda: send(http)) == said


def test_a_path_github_has_no_operation_for_is_refused_unless_probed(http: httpx.Client) -> None:
    assert refused(lambda: http.delete(f"{REPO}/pulls")) == (
        f"DELETE {REPO}/pulls: no such operation in GitHub's REST API"
    )
    with openapi_check.unserved():
        assert http.delete(f"{REPO}/pulls").status_code == 404
        assert http.get(f"{REPO}/actions/runs").status_code == 404  # GitHub serves it; the double does not
    assert refused(lambda: http.get(f"{REPO}/actions/runs")).endswith("status 404 is not documented (documented: 200)")


def test_a_known_exception_lets_exactly_its_request_through(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        openapi_check.KNOWN, ("issues/create-comment", "request body body: 5 is not of type 'string'"), "a test's"
    )
    assert http.post(f"{REPO}/issues/8325/comments", json={"body": 5}).status_code == 422
    assert refused(lambda: http.post(f"{REPO}/issues/8325/comments", json={"body": ["hi"]})).endswith(
        "request body body: ['hi'] is not of type 'string'"
    )


def test_a_faults_answer_is_not_checked_but_its_request_and_the_doubles_answer_are(
    double: GitHubDouble, http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 502 or a 429 is GitHub's answer to any request, which the description documents nowhere."""
    path = f"{REPO}/issues/8325/comments"
    double.faults.lost_response("POST", path)  # the comment lands, then a 502
    assert http.post(path, json={"body": "hi"}).status_code == 502
    double.faults.answer("POST", path, 429, error_body(429, "You have exceeded a secondary rate limit."))
    assert http.post(path, json={"body": "hi"}).status_code == 429
    assert refused(lambda: http.post(path, json={"body": 1})).endswith("request body body: 1 is not of type 'string'")
    double.faults.lost_response("POST", path)
    monkeypatch.setattr(bodies, "comment", lambda *args: {"id": 1, "url": f"{BASE_URL}{REPO}/issues/comments/1"})
    assert "status 201: response body (the whole body): 'node_id' is a required property" in refused(
        lambda: http.post(path, json={"body": "hi"})
    )


def test_over_http_the_client_is_told_which_operation(double: GitHubDouble, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(double, 0)
    monkeypatch.setattr(bodies, "issue", lambda *args: {"number": 8325})
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}{REPO}/issues/8325"
        answer = httpx.get(url, headers=HEADERS, timeout=10)
    finally:
        server.shutdown()
        server.server_close()
    kept = openapi_check.take_violations()
    assert answer.status_code == 500
    assert answer.json()["message"] == PREFIX + kept[0]
    assert kept[0].startswith("issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): status 200: ")


def test_a_kept_violation_fails_the_test_after_it(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """perfbot reports a transport's exception as a failed request, which a test may expect: the
    suite's fixture (tests/conftest.py) fails the test from what was kept."""
    monkeypatch.setattr(bodies, "issue", lambda *args: {"number": 8325})
    for _ in range(2):
        with pytest.raises(NotGitHubs):
            http.get(f"{REPO}/issues/8325")
    with pytest.raises(NotGitHubs, match=r"^2 exchange\(s\) with the GitHub double are not GitHub's; the first: "):
        openapi_check.assert_none_kept()
    openapi_check.assert_none_kept()  # each is reported once


def test_refs_into_components_are_followed(description: Description) -> None:
    """`nullable-simple-user` is nullable itself and reaches no further; `issue` reaches users,
    labels, milestones, apps and more through its `$ref`s."""
    account = bodies.user("https://api.github.com", "alice")
    user = description.validator(("test", "user"), {"$ref": "#/components/schemas/nullable-simple-user"})
    assert [user.is_valid(v) for v in (None, account, account | {"login": 5})] == [True, True, False]
    issue = description.validator(("test", "issue"), {"$ref": "#/components/schemas/issue"})
    assert not issue.is_valid({"id": 1})
    assert isinstance(issue.schema, dict)
    assert len(issue.schema["components"]["schemas"]) > 5


def test_an_operation_is_found_by_its_literal_segments_first(description: Description) -> None:
    def found(method: str, path: str) -> tuple[str, dict[str, str]] | None:
        operation = description.operation(method, path)
        return None if operation is None else (operation.id, operation.path_values(path))

    assert found("GET", "/repos/o/r/issues/events") == ("issues/list-events-for-repo", {"owner": "o", "repo": "r"})
    assert found("GET", "/repos/o/r/issues/7") == ("issues/get", {"owner": "o", "repo": "r", "issue_number": "7"})
    # A ref may hold slashes (x-multi-segment); a label's name keeps its %2F inside its segment.
    assert found("GET", "/repos/o/r/git/ref/heads/perfbot/update") == (
        "git/get-ref",
        {"owner": "o", "repo": "r", "ref": "heads/perfbot/update"},
    )
    assert found("DELETE", "/repos/o/r/issues/7/labels/perf%2Fready") == (
        "issues/remove-label",
        {"owner": "o", "repo": "r", "issue_number": "7", "name": "perf%2Fready"},
    )
    assert found("DELETE", "/repos/o/r/issues/7/labels/perf/ready") is None


# A small description of the check's own, for the rules GitHub's operations the double serves do not
# reach (a boolean or a required query parameter, an integer header, ranges of statuses, bodies
# other than JSON). These tests need no fetched file.
SMALL: dict[str, Any] = {
    "paths": {
        "/things/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {
                "operationId": "things/get",
                "parameters": [
                    {"name": "fresh", "in": "query", "schema": {"type": "boolean"}},
                    {"$ref": "#/components/parameters/q"},
                ],
                "responses": {
                    "200": {
                        "description": "",
                        "headers": {"X-Count": {"schema": {"type": "integer"}}},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/thing"}}},
                    },
                    "204": {"description": ""},
                    "4XX": {"$ref": "#/components/responses/error"},
                },
            },
            "put": {
                "operationId": "things/put",
                "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
                "responses": {"default": {"description": ""}},
            },
            "patch": {
                "operationId": "things/patch",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {"200": {"description": ""}},
            },
        }
    },
    "components": {
        "schemas": {
            "thing": {
                "type": "object",
                "required": ["id", "owner"],
                "properties": {"id": {"type": "integer"}, "owner": {"$ref": "#/components/schemas/owner"}},
            },
            "owner": {"type": "object", "nullable": True, "properties": {"login": {"type": "string"}}},
        },
        "parameters": {"q": {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}},
        "responses": {
            "error": {
                "description": "",
                "content": {"application/json": {"schema": {"type": "object", "required": ["message"]}}},
            }
        },
    },
}
THING = {"id": 1, "owner": None}


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> Description:
    described = Description(SMALL)
    monkeypatch.setattr(openapi, "load", lambda: described)
    return described


def asked(method: str, path: str, query: dict[str, str] | None = None, body: bytes = b"") -> Request:
    return Request(method, path.partition("?")[0], query or {}, {}, body, raw_path=path)


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (asked("GET", "/things/1", {"q": "x", "fresh": "true"}), None),
        (asked("GET", "/things/1", {"q": "x", "fresh": "false"}), None),
        (
            asked("GET", "/things/1", {"q": "x", "fresh": "maybe"}),
            "query parameter 'fresh' = 'maybe': 'maybe' is not of type 'boolean'",
        ),
        (asked("GET", "/things/1"), "query parameter 'q' is required"),
        (asked("GET", "/things/-1", {"q": "x"}), None),
        (asked("PUT", "/things/1", body=b"text"), "a JSON request body, where the operation takes text/plain"),
        (asked("PUT", "/things/1"), None),
        (asked("PATCH", "/things/1", body=b"{nope"), "the request body is not JSON"),
        (asked("PATCH", "/things/1", body=b"[]"), "request body (the whole body): [] is not of type 'object'"),
    ],
)
def test_each_rule_of_a_request(small: Description, request_: Request, said: str | None) -> None:
    if said is None:
        assert openapi_check.on_request(request_) is not None
        return
    assert refused(lambda: openapi_check.on_request(request_)) == (
        f"things/{request_.method.lower()} ({request_.method} /things/{{id}}): {said}"
    )


@pytest.mark.parametrize(
    ("method", "response", "said"),
    [
        ("GET", Response(200, THING, {"X-Count": "3"}), None),
        ("GET", Response(200, THING | {"owner": {"login": "alice"}}), None),
        ("GET", Response(200, THING, {"x-count": "many"}), "header X-Count 'many': 'many' is not of type 'integer'"),
        ("GET", Response(200, {"id": 1}), "response body (the whole body): 'owner' is a required property"),
        ("GET", Response(200), "no body, where the description has one"),
        ("GET", Response(204, {}), "a JSON body, where the description has none"),
        ("GET", Response(204), None),
        ("GET", Response(409, {"message": "Conflict"}), None),  # 4XX
        ("GET", Response(409, {}), "response body (the whole body): 'message' is a required property"),
        ("GET", Response(500), "status 500 is not documented (documented: 200, 204, 4XX)"),
        ("PUT", Response(500), None),  # default
    ],
)
def test_each_rule_of_an_answer(small: Description, method: str, response: Response, said: str | None) -> None:
    operation = small.operation(method, "/things/1")
    if said is None:
        openapi_check.on_response(operation, response)
        return
    where = "" if said.startswith("status") else f"status {response.status}: "
    assert refused(lambda: openapi_check.on_response(operation, response)) == (
        f"things/get (GET /things/{{id}}): {where}{said}"
    )


def test_nullable_admits_null_and_only_where_it_is_said(small: Description) -> None:
    nullable = small.validator(("test", "nullable"), {"type": "string", "nullable": True})
    plain = small.validator(("test", "plain"), {"type": "string"})
    named = small.validator(("test", "named"), {"type": "object", "properties": {"nullable": {"type": "string"}}})
    assert [nullable.is_valid(v) for v in (None, "x", 5)] == [True, True, False]
    assert [plain.is_valid(v) for v in (None, "x")] == [False, True]
    assert [named.is_valid(v) for v in ({"nullable": "x"}, {"nullable": None})] == [True, False]


def test_formats_are_checked(small: Description) -> None:
    checks = {
        "date-time": [
            "2026-08-27T10:00:00Z",
            "2026-08-27T10:00:00.5+02:00",
            "2026-08-27 10:00",
            "2026-13-01T00:00:00Z",
        ],
        "date": ["2026-08-27", "2026-02-30", "27.08.2026"],
        "uri": ["https://api.github.com/repos/a/b", "http://127.0.0.1:8000/x", "a b", "no-scheme"],
    }
    valid = {
        name: [small.validator(("test", name), {"type": "string", "format": name}).is_valid(v) for v in values]
        for name, values in checks.items()
    }
    assert valid == {
        "date-time": [True, True, False, False],
        "date": [True, False, False],
        "uri": [True, True, False, False],
    }
