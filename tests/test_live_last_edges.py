"""The live adapter against GitHub's last documented edges (issue #40): GraphQL's secondary limit
answered with 200, bodies over GitHub's limit, the PR branch moved atomically, the sub-issue cap,
labels read by name past one page, the dashboard found by its marker, comments not read again
until edited, and nudges under lists that lag by any number of reads.

Each runs `perfbot` through the CLI against the GitHub double, over its in-process transport and
over loopback HTTP, every exchange held to GitHub's OpenAPI description and GraphQL schema.
"""

from __future__ import annotations

import pytest

from tests.harness import Repo
from tests.test_live_github_as_it_is import COMPLETE, Run, with_comments


@pytest.fixture(params=["transport", "server"])
def live(sandbox: Repo, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> Run:
    return Run(sandbox, capsys, request.param)


def replies(run: Run) -> list[str]:
    return [c["body"] for c in run.state()["comments"] if "command-reply" in c["body"]]


# --- GraphQL's secondary limit answered with 200


@pytest.mark.parametrize(("retry_after", "wait"), [(45, 45.0), (None, 60.0)])
def test_a_graphql_secondary_limit_answered_with_200_is_waited_out(
    live: Run, retry_after: int | None, wait: float
) -> None:
    live.sandbox.reply_to_all()
    with_comments(live.sandbox, (101, 8325, "alice", COMPLETE))
    live.double.faults.graphql_secondary_rate_limit(retry_after=retry_after)
    code, _, err = live.run()
    assert code == 0, err
    assert wait in live.clock.waits
    assert [r["status"] for r in live.double.requests if r["path"] == "/graphql"][:2] == [200, 200]
    assert len(replies(live)) == 1


def test_graphql_secondary_limits_past_the_runs_budget_stop_the_run_as_a_limit(live: Run) -> None:
    for _ in range(3):
        live.double.faults.graphql_secondary_rate_limit(retry_after=300)
    code, _, err = live.run()
    assert code == 1
    assert err.startswith("reading the repository: GitHub's secondary rate limit (too many requests in a short time)")
    assert "run perfbot again after" in err
    assert "answered with errors" not in err
    assert [w for w in live.clock.waits if w >= 60] == [300.0, 300.0]
    assert [r for r in live.double.requests if r["method"] != "POST" or r["path"] != "/graphql"] == []
