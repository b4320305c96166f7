"""A GitHub answer that is not the JSON expected (issue #26, part 2): an empty body, a load
balancer's HTML page, JSON cut off halfway, `[]`, GraphQL data without the repository.

Each is the GitHub double's answer broken on its way back (`Faults.malformed`: the request is
handled, so a write lands) at one request of a representative run: three commands (reactions,
replies, an assignment), the regeneration PR (a tree, a commit, the default branch read again,
the branch, the PR), labels created, added and removed, links removed and put back, and the
records of the links. Through the CLI, over the in-process transport and, for a few, loopback
HTTP: a broken answer to a read is tried again and the run ends as a clean one; one to a write
stops the run with one line naming the request and its status, exit 1, and the next run ends
where one clean run ends, with nothing posted twice.
"""

from __future__ import annotations

import glob
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main
from tests.boundary.test_live import Live
from tests.github_double import GitHubDouble
from tests.github_double.faults import GRAPHQL, MALFORMED, Fault, wrong_content_type
from tests.github_double.protocol import Response
from tests.support.backends import NOW, FakeClock, double_on, wired
from tests.support.harness import Repo, SharedTemplates
from tests.support.property_budget import examples

REPO = "anthony-chaudhary/fak"
BRANCH = "perfbot/update"
KINDS = tuple(MALFORMED)
# Every request of the representative run is a k of the enumeration; a k past its last request
# breaks nothing, so the run is a clean one (`test_the_representative_run_...` holds it under this).
MOST_REQUESTS = 40
THREE = [
    (101, 8325, "/perf complete mac.m1-streamed-q4k-no-copy result: Exact campaign accepted. receipt: #9482"),
    (102, 8324, "/perf review metal-resident-decode by 2026-09-04"),
    (103, 9497, "/perf claim profile.real-cuda\n/perf block profile.real-cuda waiting for an A100 window"),
]
APPLIED = re.compile(r"applied \d+ actions; \d+ deferred to the next run")
# The comment saying perfbot put back a link taken off by hand comes just before the link's write,
# with a marker for the link: a run stopped between the two leaves the next run to put the link
# back and say nothing twice, so the comment is there exactly once (bot/reconcile/labels_and_links.py).
RESTORED = "native-restored"


def representative(state: dict[str, Any]) -> dict[str, Any]:
    """The example state with three commands, labels and links as a person left them, and a link
    perfbot made that it no longer wants."""
    issues = {issue["number"]: issue for issue in state["issues"]}
    issues[9497]["labels"] = []
    issues[9230]["labels"] = ["perf/ready"]
    issues[9498]["labels"] = []
    state["labels"] = [label for label in state["labels"] if label["name"] != "perf/waiting-evidence"]
    issues[8324]["blocked_by"] = []
    issues[8395].pop("parent")
    # A link perfbot recorded for cuda-cold-decode and the snapshot no longer implies: it goes.
    issues[8635]["blocked_by"] = [9420, 8325]
    record = next(c for c in state["comments"] if c["body"].startswith("<!-- perfbot:native-links cuda-cold-decode"))
    kept = "<!-- perfbot:native-link blocked_by:8635:9420 -->\n"
    record["body"] = record["body"].replace(kept, kept + "<!-- perfbot:native-link blocked_by:8635:8325 -->\n")
    # A link perfbot recorded and the snapshot no longer implies, left in place: it is removed.
    issues[9497]["blocked_by"] = [*issues[9497].get("blocked_by", []), 9420]
    record = next(
        c for c in state["comments"] if c["body"].startswith("<!-- perfbot:native-links profile-control-loop")
    )
    first, rest = record["body"].split("\n", 1)
    record["body"] = f"{first}\n<!-- perfbot:native-link blocked_by:9497:9420 -->\n{rest}"
    state["permissions"] = {"alice": "write"}
    state["comments"] += [
        {"id": cid, "issue": issue, "user": "alice", "created_at": f"2026-08-27T10:0{cid % 10}:00Z", "body": body}
        for cid, issue, body in THREE
    ]
    return state


@dataclass
class Outcome:
    status: int
    err: str
    log: list[dict[str, Any]]

    def lines(self) -> list[str]:
        """What the run said on stderr besides its count of actions."""
        return [line for line in self.err.splitlines() if not APPLIED.fullmatch(line)]

    def writes(self) -> list[str]:
        return [f"{r['method']} {r['path']}" for r in self.log if r["kind"] == "rest_write"]


class Site:
    """The representative repository, put back as it was before each case, and what one clean run
    of it leaves (a second clean run writes nothing)."""

    def __init__(self, root: Path, templates: SharedTemplates) -> None:
        self.repo = Repo(root, templates=templates.path)
        self.repo.write_state(representative(self.repo.state()))
        double_on(self.repo.state_path, self.repo.root)  # the files the double keeps beside the state
        self.initial = self._files()
        self.clock = FakeClock()
        clean = self.run()
        assert clean.status == 0, clean.err
        self.clean_log, self.clean_world = clean.log, self.world()
        self.second = self.run()

    def _files(self) -> dict[Path, bytes]:
        state = self.repo.state_path
        return {path: path.read_bytes() for path in state.parent.glob(glob.escape(state.name) + "*")}

    def reset(self) -> None:
        for path in set(self._files()) - set(self.initial):
            path.unlink()
        for path, data in self.initial.items():
            path.write_bytes(data)

    def run(self, *faults: Callable[[GitHubDouble], object], through: str = "transport") -> Outcome:
        double = double_on(self.repo.state_path, self.repo.root)
        for fault in faults:
            fault(double)
        argv = ["reconcile", "--config", str(self.repo.config), "--json", "--now", NOW.isoformat()]
        out, err = io.StringIO(), io.StringIO()
        with wired(double, self.clock, through, REPO) as environ, redirect_stdout(out), redirect_stderr(err):
            status = main(argv, environ=environ)
        return Outcome(status, err.getvalue(), list(double.requests))

    def world(self) -> dict[str, Any]:
        """What GitHub shows after the runs: the state, the bot's comments by what they say (their ids
        follow the order they were posted in), and the PR branch's files."""
        state = self.repo.state()
        comments = state.pop("comments")
        state["comments"] = sorted(json.dumps({k: v for k, v in c.items() if k != "id"}) for c in comments)
        state["branch"] = double_on(self.repo.state_path, self.repo.root).files(BRANCH)
        return state


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, shared_templates: SharedTemplates) -> Site:
    return Site(tmp_path_factory.mktemp("malformed"), shared_templates)


def assert_same_world(site: Site, what: str) -> None:
    """The world one clean run leaves: nothing more and nothing less, the comment on the links put
    back (`RESTORED`) included."""
    world, clean = site.world(), site.clean_world
    extra = Counter(world["comments"]) - Counter(clean["comments"])
    lost = Counter(clean["comments"]) - Counter(world["comments"])
    assert not extra, f"{what}: posted beyond what a clean run posts: {list(extra)}"
    assert not lost, f"{what}: never posted: {list(lost)}"
    assert any(f"perfbot:{RESTORED} " in c for c in world["comments"]), what
    assert {**world, "comments": []} == {**clean, "comments": []}, what


def request_of(entry: dict[str, Any]) -> str:
    """A logged request as an error names it: the method and the path, decoded, without a query."""
    return f"{entry['method']} {unquote(urlsplit(entry['path']).path)}"


@dataclass(frozen=True)
class Target:
    """The (after+1)-th request of this method and path (regular expressions) of a run."""

    method: str = ".*"
    path: str = ".*"
    after: int = 0

    def fault(self, kind: str) -> Callable[[GitHubDouble], Fault]:
        return lambda double: double.faults.malformed(kind, self.method, self.path, after=self.after)

    def hit(self, log: list[dict[str, Any]]) -> dict[str, Any] | None:
        matching = [e for e in log if re.fullmatch(self.method, e["method"]) and re.fullmatch(self.path, path_of(e))]
        return matching[self.after] if len(matching) > self.after else None


def path_of(entry: dict[str, Any]) -> str:
    return unquote(urlsplit(entry["path"]).path)


# A write answered with one of these stops the run; `[]` or other JSON of the kind a write's answer
# has is left unread where perfbot reads nothing of it (a label added, a reaction), and the run goes on.
NOT_JSON = frozenset({"empty body", "HTML page", "truncated JSON"})
STOPPED = "so it may have been applied; this run makes no further writes, and the next run reads what landed and finishes the rest"


def broken_at(site: Site, kind: str, target: Target, through: str = "transport") -> None:
    """One broken answer: a read's is tried again and the run is a clean one; a write's stops the
    run with one line naming it, exit 1, and the next run ends where one clean run ends."""
    site.reset()
    first = site.run(target.fault(kind), through=through)
    assert "Traceback" not in first.err
    hit = target.hit(first.log)
    what = f"{kind} answering {hit and request_of(hit)}"
    if hit is None or not hit["write"]:  # a read, REST or GraphQL
        assert (first.status, first.lines()) == (0, []), what
    elif first.status == 0 and kind not in NOT_JSON:
        assert first.lines() == [], what
    else:
        assert first.status == 1, what
        assert first.lines() == [first.lines()[-1]], what
        line = first.lines()[-1]
        assert f"GitHub's answer was not the JSON expected ({request_of(hit)} answered {hit['status']} with " in line
        assert line.endswith(STOPPED), line
        again = site.run()
        assert again.status == 0, f"{what}: {again.err}"
    assert_same_world(site, what)


FAMILIES = {
    "the first read": r"POST /graphql",
    "a permission": r"GET .*/collaborators/\w+/permission",
    "a reaction": r"POST .*/issues/comments/\d+/reactions",
    "a comment": r"POST .*/issues/\d+/comments",
    "an assignment": r"POST .*/issues/\d+/assignees",
    "a tree": r"POST .*/git/trees",
    "a commit": r"POST .*/git/commits",
    "a ref read": r"GET .*/git/ref/heads/main",
    "the PR": r"POST .*/pulls",
    "a label made": rf"POST /repos/{REPO}/labels",
    "a label added": r"POST .*/issues/\d+/labels",
    "a label removed": r"DELETE .*/issues/\d+/labels/.+",
    "a link removed": r"DELETE .*/dependencies/blocked_by/\d+",
    "a link put back": r"POST .*/dependencies/blocked_by",
    "a sub-issue put back": r"POST .*/sub_issues",
}


def test_the_representative_run_makes_every_kind_of_request_and_settles_in_one_run(site: Site) -> None:
    sent = [request_of(entry) for entry in site.clean_log]
    assert [name for name, shape in FAMILIES.items() if not any(re.fullmatch(shape, r) for r in sent)] == []
    # the read, the re-read before the replies, and the branch made (`updateRefs`)
    assert sum(1 for r in sent if r == "POST /graphql") == 3
    assert len(sent) <= MOST_REQUESTS
    assert (site.second.status, site.second.writes()) == (0, [])


# --- the enumeration: every kind of broken answer at every request of the run

COMMENTS = rf"/repos/{REPO}/issues/\d+/comments"


@pytest.mark.parametrize(
    ("kind", "target"),
    [
        ("HTML page", Target(*GRAPHQL)),  # the first read
        ('{"data":{"repository":null}}', Target(*GRAPHQL)),  # once taken as an empty repository
        ('{"data":{}}', Target(*GRAPHQL, after=1)),  # the re-read of the comments before the replies
        ("empty body", Target("GET", rf"/repos/{REPO}/collaborators/\w+/permission")),
        ("HTML page", Target("POST", COMMENTS)),
        ("truncated JSON", Target("POST", rf"/repos/{REPO}/git/trees")),
        ("empty body", Target("GET", rf"/repos/{REPO}/git/ref/.*")),
        ('{"data":{}}', Target("POST", rf"/repos/{REPO}/pulls")),
        ("HTML page", Target("DELETE", rf"/repos/{REPO}/issues/\d+/labels/.+")),
        # A link put back (landed, the answer lost): its comment is there already, and not said again.
        ("HTML page", Target("POST", rf"/repos/{REPO}/issues/\d+/dependencies/blocked_by")),
        ("truncated JSON", Target("POST", rf"/repos/{REPO}/issues/\d+/sub_issues")),
    ],
    ids=lambda value: value if isinstance(value, str) else f"{value.method} {value.path} {value.after}",
)
def test_each_request_the_issue_saw_fail_answered_broken(site: Site, kind: str, target: Target) -> None:
    broken_at(site, kind, target)


@pytest.mark.parametrize("kind", ["[]", "HTML page", '{"data":{}}'])
def test_the_branch_move_answered_broken_stops_the_run_as_any_write_does(site: Site, kind: str) -> None:
    """The PR branch moves by a GraphQL mutation (`updateRef`): a write, whose broken answer stops the
    run with one line, though it is a POST to /graphql as every read is."""
    graphql = [entry for entry in site.clean_log if entry["kind"] == "graphql"]
    (move,) = [index for index, entry in enumerate(graphql) if entry["write"]]
    broken_at(site, kind, Target(*GRAPHQL, after=move))


def test_the_comment_on_what_was_put_back_answered_broken_is_said_once_and_the_links_follow(site: Site) -> None:
    """#8395's only comment of the run says perfbot put its sub-issue link back; it comes before the
    link's write, so a stop after it leaves the next run to put the link back without saying it again."""
    on_8395 = [c for c in site.clean_world["comments"] if '"issue": 8395' in c and "perfbot[bot]" in c]
    (said,) = on_8395
    assert f"perfbot:{RESTORED} " in said
    broken_at(site, "HTML page", Target("POST", rf"/repos/{REPO}/issues/8395/comments"))


@settings(max_examples=examples(len(KINDS) * MOST_REQUESTS, bounded=3), deadline=None)
@given(st.sampled_from([(kind, k) for kind in KINDS for k in range(MOST_REQUESTS)]))
def test_every_broken_answer_at_every_request_is_one_line_and_a_rerun_converges(
    site: Site, case: tuple[str, int]
) -> None:
    kind, k = case
    broken_at(site, kind, Target(after=k))


@pytest.mark.parametrize(
    ("kind", "target"),
    [
        ("HTML page", Target(*GRAPHQL)),
        ("truncated JSON", Target("POST", COMMENTS)),
    ],
    ids=["graphql", "comment"],
)
def test_over_loopback_http_too(site: Site, kind: str, target: Target) -> None:
    broken_at(site, kind, target, through="server")


# --- what every run needs, the tries counted, and what is no fault


def test_a_read_that_stays_broken_is_one_line_counting_its_tries(site: Site) -> None:
    site.reset()
    outcome = site.run(*[Target(*GRAPHQL).fault("HTML page")] * 3)
    assert (outcome.status, outcome.err) == (
        1,
        "reading the repository: GitHub's answer was not the JSON expected (POST /graphql answered 200 with an "
        "HTML page) after 3 tries; run perfbot again later\n",
    )
    assert outcome.writes() == []


def test_graphql_data_without_the_repository_is_no_empty_repository(site: Site) -> None:
    """Once read as a repository with no issues, comments or files: the run reacted and replied,
    then GitHub refused the PR's tree."""
    for kind in ('{"data":{"repository":null}}', '{"data":{}}'):
        site.reset()
        outcome = site.run(*[Target(*GRAPHQL).fault(kind)] * 3)
        assert outcome.status == 1
        assert outcome.err == (
            "reading the repository: GitHub's answer was not the JSON expected (POST /graphql answered 200 with "
            "GraphQL data without the repository) after 3 tries; run perfbot again later\n"
        )
        assert outcome.writes() == []


def first_answer(change: Callable[[dict[str, Any]], None]) -> Callable[[GitHubDouble], Fault]:
    def mangle(answer: Response) -> Response:
        body = json.loads(answer.content())
        change(body["data"])
        return Response(answer.status, body, answer.headers)

    return lambda double: double.faults.add(Fault(*GRAPHQL, mangle=mangle))


def test_a_repository_without_a_default_branch_stops_before_any_write(site: Site) -> None:
    """An empty repository: GitHub names no default branch, and the PR has nothing to build on."""
    site.reset()
    outcome = site.run(first_answer(lambda data: data["repository"].update(defaultBranchRef=None)))
    assert (outcome.status, outcome.err) == (
        1,
        f"reading the repository: GitHub's answer names no default branch with a commit for {REPO}; perfbot "
        "proposes its changes on top of it (an empty repository needs a first commit)\n",
    )
    assert outcome.writes() == []


def test_an_answer_that_names_no_login_for_the_token_stops_before_any_write(site: Site) -> None:
    site.reset()
    outcome = site.run(first_answer(lambda data: data.update(viewer=None)))
    assert (outcome.status, outcome.writes()) == (1, [])
    assert outcome.err == (
        "reading the repository: GitHub's answer names no login for the token; set bot_login in the config\n"
    )


def test_a_write_sent_once_is_not_reported_as_three_tries(site: Site) -> None:
    site.reset()
    labels = rf"/repos/{REPO}/issues/\d+/labels"
    outcome = site.run(lambda double: double.faults.answer("POST", labels, 502))
    assert outcome.status == 1
    [line] = outcome.lines()
    assert re.fullmatch(r"adding label perf/\S+ on #\d+: GitHub failed \(502\); run perfbot again later", line), line
    assert sum(1 for write in outcome.writes() if re.fullmatch(rf"POST {labels}", write)) == 1


def test_answers_labelled_other_than_json_are_read_as_the_json_they_are(site: Site) -> None:
    site.reset()
    faults = [lambda d: d.faults.add(Fault(".*", ".*", mangle=wrong_content_type))] * MOST_REQUESTS
    outcome = site.run(*faults)
    assert (outcome.status, outcome.lines()) == (0, [])
    assert_same_world(site, "every answer labelled text/plain")


# --- publish-leases: one read, then a tree, a commit and the branch


@pytest.mark.parametrize(
    ("target", "what"),
    [
        (Target(*GRAPHQL), None),
        (Target("POST", rf"/repos/{REPO}/git/trees"), "writing the readback"),
        (Target("POST", rf"/repos/{REPO}/git/commits"), "committing the readback"),
        (Target("POST", rf"/repos/{REPO}/git/refs"), "creating branch perfbot/leases"),
    ],
    ids=["read", "tree", "commit", "branch"],
)
def test_publish_leases_answered_broken_ends_with_one_commit(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path, target: Target, what: str | None
) -> None:
    live = Live(sandbox, capsys)
    source = tmp_path / "live.json"
    source.write_text("[]", encoding="utf-8")
    publish = ("--from", str(source), "--now", NOW.isoformat())
    target.fault("HTML page")(live.double)
    status, _, err = live.run(*publish, command="publish-leases")
    hit = target.hit(live.double.requests)
    assert hit is not None
    if what is None:
        assert (status, err) == (0, "")
    else:
        assert status == 1
        said = f"{what}: GitHub's answer was not the JSON expected ({request_of(hit)} answered 201 with an HTML page)"
        assert err.startswith(f"{said}, so it may have been applied;")
        assert err.count("\n") == 1
        assert live.run(*publish, command="publish-leases")[0] == 0
    tip = live.double.tip("perfbot/leases")
    assert tip is not None
    assert list(live.double.world.git.ancestors(tip)) == [tip]  # one commit, whatever landed first
    assert json.loads(live.double.files("perfbot/leases")["leases.json"])["leases"] == []
