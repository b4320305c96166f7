"""GitHub's answers read in one place (`bodies.py`): what is the JSON a request expects, what is
not and how it is named; how the retry policy and the failures treat a broken answer."""

from __future__ import annotations

import base64
import datetime as dt
import json
from typing import Any

import httpx
import pytest
from githubkit import Response
from githubkit.exception import RequestFailed
from githubkit.graphql import GraphQLResponse
from githubkit.utils import UNSET
from githubkit_schemas.latest.models import Blob, GitRef, Label

from bot.github.live.client import (
    READ_TRIES,
    Connection,
    LimitBudget,
    Malformed,
    RetryPolicy,
    Session,
    Traffic,
    blob_text,
    build_client,
    check,
    error_body,
    failure,
    parsed,
    transient,
)
from bot.github.port import AmbiguousWriteError, GitHubError

API = "https://api.github.com"
REF = f"{API}/repos/o/n/git/ref/heads/main"
LABELS = f"{API}/repos/o/n/issues/1/labels"
GRAPHQL = f"{API}/graphql"
GOOD_REF = {
    "ref": "refs/heads/main",
    "node_id": "R",
    "url": REF,
    "object": {"type": "commit", "sha": "a" * 40, "url": REF},
}
HTML = b"<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n"


def answer(
    content: bytes | Any,
    model: object,
    *,
    method: str = "GET",
    url: str = REF,
    status: int = 200,
    kind: str | None = "",
) -> Response[Any]:
    """An answer as githubkit hands it on; `kind` is its content type (None: no header at all)."""
    body = content if isinstance(content, bytes) else json.dumps(content).encode()
    headers = {} if kind is None else {"content-type": kind or "application/json; charset=utf-8"}
    raw = httpx.Response(status, content=body, headers=headers, request=httpx.Request(method, url))
    return Response(raw, Any if model is UNSET else model)  # type: ignore[arg-type]


def said(content: bytes | Any, model: object, **where: Any) -> str:
    """What the check says came, after holding that the error carries the answer it is about."""
    given = answer(content, model, **where)
    with pytest.raises(Malformed) as broken:
        check(given, model)
    assert broken.value.response is given.raw_response
    return broken.value.said


# --- what a read expects: its whole model


def test_a_read_whose_body_fits_its_model_passes_and_is_parsed_once() -> None:
    good = answer(GOOD_REF, GitRef)
    check(good, GitRef)
    assert parsed(good).object_.sha == "a" * 40


@pytest.mark.parametrize(
    ("content", "kind", "expected"),
    [
        (b"", "", "an empty body"),
        (b"  \n", "", "an empty body"),
        (HTML, "text/html; charset=utf-8", "an HTML page"),
        (HTML, "", "an HTML page"),  # a page labelled as JSON is a page
        (b"  <html>", "application/json", "an HTML page"),
        (b"nonsense", "text/html", "an HTML page"),  # labelled a page and not JSON
        (b"nonsense", "Text/HTML; charset=utf-8", "an HTML page"),
        (b"nonsense", None, "8 bytes that are not JSON"),  # no content type at all
        (b"<p>", None, "an HTML page"),
        (json.dumps(GOOD_REF).encode()[:40], "", "JSON cut off after 40 bytes"),  # mid-string
        (b'{"ref": "refs/heads/main",', "", "JSON cut off after 26 bytes"),  # between values
        (b'{"ref": 1,,}', "", "12 bytes that are not JSON"),
        (b"nonsense", "", "8 bytes that are not JSON"),
        (b"\xff\xfe{}", "", "4 bytes that are not JSON"),
    ],
)
def test_a_read_answered_with_what_is_not_json_names_what_came(content: bytes, kind: str, expected: str) -> None:
    assert said(content, GitRef, kind=kind) == expected


@pytest.mark.parametrize(
    ("content", "model", "expected"),
    [
        ([], GitRef, "a JSON list where an object was expected"),
        ("main", GitRef, "a JSON string where an object was expected"),
        (3, GitRef, "a JSON number where an object was expected"),
        (True, GitRef, "a JSON true where an object was expected"),
        (None, GitRef, "a JSON null where an object was expected"),
        ({"data": {}}, list[Label], "a JSON object where a list was expected"),
        ({"data": {}}, GitRef, "JSON without `ref`"),
        (
            {**GOOD_REF, "object": {"type": "commit", "sha": 7, "url": REF}},
            GitRef,
            "JSON whose `object.sha` is not what GitHub sends",
        ),
    ],
)
def test_a_read_answered_with_json_of_another_shape_names_it(content: Any, model: object, expected: str) -> None:
    assert said(content, model) == expected


def test_a_read_of_a_list_is_held_to_a_list() -> None:
    labels = [
        {
            "id": 1,
            "node_id": "L",
            "url": LABELS,
            "name": "perf/ready",
            "color": "1a7f37",
            "default": False,
            "description": None,
            "archived_at": None,
            "archived_by": None,
        }
    ]
    check(answer(labels, list[Label]), list[Label])
    check(answer(b"\n[]", list[Label]), list[Label])
    assert said([{"name": 3}], list[Label]) == "JSON without `0.id`"


def test_json_that_opens_otherwise_than_its_kind_is_not_the_answer_expected() -> None:
    """A byte order mark: Python's reader reads past it, GitHub never sends one."""
    assert (
        said(b"\xef\xbb\xbf" + json.dumps(GOOD_REF).encode(), GitRef) == "a JSON object that is not the answer expected"
    )


def test_a_read_opening_with_whitespace_is_read_as_its_json() -> None:
    check(answer(b" \r\n\t" + json.dumps(GOOD_REF).encode(), GitRef), GitRef)
    assert said(b"\n []", GitRef) == "a JSON list where an object was expected"


def test_a_read_of_any_json_passes_any_json_and_no_other() -> None:
    check(answer([1, "x"], UNSET), UNSET)
    assert said(HTML, UNSET) == "an HTML page"


def test_no_content_is_no_body_to_check() -> None:
    check(answer(b"", GitRef, status=204), GitRef)
    check(answer(b"", GitRef, method="DELETE", status=204), GitRef)


def test_a_wrong_content_type_on_good_json_is_no_fault() -> None:
    check(answer(GOOD_REF, GitRef, kind="text/plain"), GitRef)
    check(answer(GOOD_REF, GitRef, kind="text/html"), GitRef)


# --- GraphQL: every perfbot query reads the repository


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"data": {"repository": None}}, "GraphQL data without the repository"),
        ({"data": {}}, "GraphQL data without the repository"),
        ({"data": {"repository": []}}, "GraphQL data without the repository"),
        ({"data": {"viewer": {"login": "me"}}}, "GraphQL data without the repository"),
        ([], "a JSON list where an object was expected"),
        ({"data": None}, "a JSON object that is not the answer expected"),  # neither data nor errors
        ({"errors": "x"}, "JSON whose `errors` is not what GitHub sends"),
    ],
)
def test_a_graphql_answer_without_the_repository_is_not_github_s(content: Any, expected: str) -> None:
    assert said(content, GraphQLResponse, method="POST", url=GRAPHQL) == expected


@pytest.mark.parametrize(
    "content",
    [
        {"data": {"repository": {}}},
        {"data": {"repository": None}, "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": "gone"}]},
        {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded"}]},
    ],
)
def test_a_graphql_answer_with_the_repository_or_with_errors_is_left_to_the_query(content: Any) -> None:
    check(answer(content, GraphQLResponse, method="POST", url=GRAPHQL), GraphQLResponse)


def test_the_repository_is_asked_of_graphql_answers_only() -> None:
    check(answer({"data": {}}, UNSET), UNSET)  # a GET whose model reads any JSON


# --- what a write expects: JSON of its model's kind; the model where perfbot reads it


def test_a_write_answer_is_held_to_its_kind_not_its_whole_model() -> None:
    check(answer([{"name": "x"}], list[Label], method="POST", url=LABELS), list[Label])  # Label lacks most fields
    check(answer({"anything": 1}, GitRef, method="PATCH", url=REF), GitRef)
    assert said({}, list[Label], method="POST", url=LABELS) == "a JSON object where a list was expected"
    assert said([], GitRef, method="PATCH", url=REF) == "a JSON list where an object was expected"
    assert said(b"", GitRef, method="POST", url=REF) == "an empty body"
    assert said(HTML, Label, method="DELETE", url=LABELS) == "an HTML page"


def test_a_write_githubkit_expects_no_body_of_is_not_read() -> None:
    check(answer(b"", UNSET, method="DELETE", url=LABELS), UNSET)
    check(answer(HTML, UNSET, method="PUT", url=LABELS), UNSET)


def test_a_write_answer_perfbot_reads_is_validated_where_it_is_read() -> None:
    made = answer({"ref": "refs/heads/x"}, GitRef, method="POST", url=REF, status=201)
    check(made, GitRef)
    with pytest.raises(Malformed) as broken:
        parsed(made)
    assert broken.value.said == "JSON without `node_id`"


def test_a_malformed_answer_names_the_request_and_its_status_inertly() -> None:
    broken = Malformed(
        answer(HTML, GitRef, method="POST", url=f"{API}/repos/o/n/git/trees", status=201).raw_response, "an HTML page"
    )
    assert str(broken) == "POST /repos/o/n/git/trees answered 201 with an HTML page"
    assert broken.request.method == "POST"
    odd = Malformed(answer(b"", GitRef).raw_response, "JSON without `\x1b[31m`")
    assert "\x1b" not in str(odd)
    long = str(Malformed(answer(b"", GitRef).raw_response, "x" * 400))
    assert (len(long), long[-2:]) == (300, "x…")  # one line of 300 characters at most


# --- blobs and error bodies


def blob(content: str) -> Response[Blob]:
    body = {"content": content, "encoding": "base64", "url": REF, "sha": "b" * 40, "size": 3, "node_id": "B"}
    return answer(body, Blob)


def test_a_blob_is_its_base64_content_as_text() -> None:
    assert blob_text(blob(base64.b64encode("héllo\n".encode()).decode())) == "héllo\n"
    assert blob_text(blob(base64.b64encode(b"a\xffb").decode())) == "a\ufffdb"


def test_a_blob_whose_content_is_not_base64_is_malformed() -> None:
    given = blob("abc")  # a length no base64 has
    with pytest.raises(Malformed) as broken:
        blob_text(given)
    assert (broken.value.said, broken.value.response) == ("a blob whose content is not base64", given.raw_response)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"message": "Not Found", "errors": [{"code": "missing"}]},
            {"message": "Not Found", "errors": [{"code": "missing"}]},
        ),
        (["Not Found"], {}),
        (HTML, {}),
        (b"", {}),
    ],
)
def test_an_error_body_is_github_s_json_object_or_nothing(content: Any, expected: dict[str, Any]) -> None:
    assert error_body(answer(content, UNSET, status=404).raw_response) == expected


# --- the retry policy and the failures


def malformed(method: str = "GET", url: str = REF) -> Malformed:
    return Malformed(answer(HTML, GitRef, method=method, url=url).raw_response, "an HTML page")


def test_a_broken_answer_to_a_read_is_tried_again_and_to_a_write_never() -> None:
    waits: list[float] = []
    policy = RetryPolicy(waits.append, LimitBudget())
    assert transient(malformed())
    assert [policy(malformed(), n).do_retry for n in range(READ_TRIES)] == [True, True, False]
    assert policy(malformed("POST", GRAPHQL), 0).do_retry  # a query is a read
    assert not policy(malformed("POST", LABELS), 0).do_retry
    assert waits == [1.0, 4.0, 1.0]


def test_the_policy_counts_the_sends_of_the_request_that_failed_last() -> None:
    policy = RetryPolicy(lambda _: None, LimitBudget())
    first, last = malformed(), malformed()
    policy(first, 0)
    policy(last, 2)
    assert (policy.tries(last), policy.tries(first)) == (3, 1)  # one it did not see last was sent once
    assert RetryPolicy(lambda _: None, LimitBudget()).tries(last) == 1


def session(transport: httpx.BaseTransport | None = None) -> Session:
    retry = RetryPolicy(lambda _: None, LimitBudget())
    conn = Connection("t", "o/n", API)
    traffic = Traffic(lambda: 0.0, lambda _: None)
    client = build_client(conn, traffic, retry, transport)
    return Session(client, conn, traffic, lambda _: None, dt.datetime(2026, 8, 27, tzinfo=dt.UTC), retry)


def test_a_read_that_stays_broken_counts_its_tries_and_a_write_may_have_landed() -> None:
    run = session()
    read = malformed()
    run.retry(read, 2)
    error = failure(read, "reading the default branch", run)
    assert type(error) is GitHubError
    assert str(error) == (
        "reading the default branch: GitHub's answer was not the JSON expected (GET /repos/o/n/git/ref/heads/main "
        "answered 200 with an HTML page) after 3 tries; run perfbot again later"
    )
    once = failure(malformed(), "reading the default branch", run)
    assert "tries" not in str(once)
    write = failure(malformed("POST", LABELS), "adding label perf/ready on #1", run)
    assert isinstance(write, AmbiguousWriteError)
    assert str(write) == (
        "adding label perf/ready on #1: GitHub's answer was not the JSON expected (POST /repos/o/n/issues/1/labels "
        "answered 200 with an HTML page), so it may have been applied; this run makes no further writes, and the "
        "next run reads what landed and finishes the rest"
    )


def test_a_server_error_counts_the_tries_made_not_a_constant() -> None:
    run = session()
    raw = httpx.Response(502, request=httpx.Request("POST", LABELS))
    sent_once = RequestFailed(Response(raw, Any))
    run.retry(sent_once, 0)
    assert (
        str(failure(sent_once, "adding label x on #1", run))
        == "adding label x on #1: GitHub failed (502); run perfbot again later"
    )
    read = RequestFailed(Response(httpx.Response(502, request=httpx.Request("GET", REF)), Any))
    run.retry(read, 1)
    assert (
        str(failure(read, "reading x", run)) == "reading x: GitHub failed (502) after 2 tries; run perfbot again later"
    )


def test_the_client_checks_each_answer_inside_its_retry_loop() -> None:
    """githubkit parses a body only when it is used, after its loop: the client's own check is what
    turns a broken answer into a retried failure."""
    bodies = [HTML, b"", json.dumps(GOOD_REF).encode()]
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.method)
        return httpx.Response(200, content=bodies.pop(0), headers={"content-type": "application/json"})

    run = session(httpx.MockTransport(handler))
    with run.github:
        found = parsed(run.github.rest.git.get_ref("o", "n", "heads/main"))
        assert (found.object_.sha, sent) == ("a" * 40, ["GET", "GET", "GET"])
        bodies[:] = [HTML, HTML, HTML]
        with pytest.raises(Malformed) as broken:
            run.github.rest.git.get_ref("o", "n", "heads/main")
    assert run.retry.tries(broken.value) == READ_TRIES
