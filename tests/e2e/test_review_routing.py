"""Where review nudges go (issue #45), through the CLI, offline and against the GitHub double.

A constraint's review nudge goes to its `review_issue`; a snapshot written before that field keeps
working through the first `#N` of `authority_owner`; a constraint with neither is listed, due or
not, in the dashboard's *Reviews*, in the plan (JSON and printed) and in `perfbot status`.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from tests.support.harness import Repo

LATE = "2026-08-30T18:00:00Z"  # two seed constraints are overdue: metal-resident-decode, active-native-lane-collision


def board(repo: Repo) -> str:
    (issue,) = [i for i in repo.state()["issues"] if "perfbot-dashboard" in i.get("labels", [])]
    body: str = issue["body"]
    return body.split("### Reviews\n", 1)[1].split("\n### ", 1)[0]


def test_a_constraint_with_nowhere_to_go_is_listed_and_an_explicit_issue_wins(
    either: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    text = either.config.read_text(encoding="utf-8")
    either.config.write_text(text.replace("dashboard:\n  enabled: false", "dashboard:\n  enabled: true"), "utf-8")
    # No `#N` left in two owners; one of them is given a review issue, the other has nowhere to go.
    either.edit_snapshot("authority_owner: 'issue #8324'", "authority_owner: 'the decode team'")
    either.edit_snapshot(
        "authority_owner: 'DOS lease WAL; issue #9420'", "authority_owner: 'DOS lease WAL'\n    review_issue: 8635"
    )
    plan = either.reconcile(capsys, "--now", LATE)
    assert plan["unrouted_reviews"] == ["metal-resident-decode"]
    assert [(o["constraint"], o["issue"]) for o in plan["overdue"]] == [
        ("active-native-lane-collision", 8635),
        ("metal-resident-decode", None),
    ]
    nudged = sorted(a["issue"] for a in plan["actions"] if a["kind"] == "comment" and a["topic"] == "review-overdue")
    assert nudged == [8635]
    reviews = board(either)
    assert "- **overdue** `metal-resident-decode`: review by 2026-08-27 · no review issue\n" in reviews
    assert "- **overdue** `active-native-lane-collision`: review by 2026-08-28 · #8635\n" in reviews
    assert (
        "- `metal-resident-decode`: **no review issue**, so its review nudge reaches nobody; "
        "set `review_issue` in the snapshot\n" in reviews
    )
    # Listed while it is not due, too: the plan, printed and in JSON, and `perfbot status`.
    argv = ["reconcile", "--config", str(either.config), "--dry-run", "--now", "2026-08-20T00:00:00Z"]
    offline = ["--offline", str(either.state_path)] if either.adapter == "offline" else []
    if offline:
        assert main([*argv, *offline]) == 0
        printed = capsys.readouterr().out
        assert "No review issue (their review nudges go nowhere; set review_issue in the snapshot):\n" in printed
        assert "\n  metal-resident-decode\n" in printed
        status = ["status", "--config", str(either.config), "--json", "--now", "2026-08-20T00:00:00Z", *offline]
        assert main(status) == 0
        assert json.loads(capsys.readouterr().out)["unrouted_reviews"] == ["metal-resident-decode"]


def test_every_constraint_with_an_issue_lists_nothing(either: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    plan = either.reconcile(capsys, "--now", LATE)
    assert "unrouted_reviews" not in plan
