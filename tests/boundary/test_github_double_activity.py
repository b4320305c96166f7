"""The double's `updatedAt`: moved by what GitHub records on an issue, not by reactions; kept
across a restart; and the `issues(filterBy: {since})` window the incremental read asks for."""

from __future__ import annotations

import datetime as dt
import email.utils
import json
from pathlib import Path
from typing import Any

import githubkit

from tests.github_double import GitHubDouble
from tests.github_double.activity import Activity, fingerprints
from tests.support import double_queries as q
from tests.support.double_support import NAME, NOW, OWNER, client, comment, example_state, graphql
from tests.support.paths import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> dt.datetime:
        return self.now

    def later(self, minutes: int) -> str:
        self.now += dt.timedelta(minutes=minutes)
        return self.now.strftime("%Y-%m-%dT%H:%M:%SZ")


def changed(gh: githubkit.GitHub[Any], since: dt.datetime, direction: str = "ASC") -> list[tuple[int, str]]:
    data = graphql(gh, q.CHANGED_SINCE, since=since.isoformat(), direction=direction)
    return [(n["number"], n["updatedAt"]) for n in data["repository"]["issues"]["nodes"]]


def test_comments_assignees_and_state_move_updated_at_and_a_reaction_does_not(tmp_path: Path) -> None:
    clock = Clock()
    state = example_state(comments=[comment(7, 8325, "alice", "hi")], reactions=[])
    double = GitHubDouble(state, state_path=tmp_path / "state.json", repo_dir=ROOT, clock=clock)
    with client(double) as gh:
        assert changed(gh, NOW) == [(n, "2026-08-27T23:00:00Z") for n in sorted(i["number"] for i in state["issues"])]
        commented = clock.later(10)
        gh.rest.issues.create_comment(OWNER, NAME, 8324, body="a comment")
        assigned = clock.later(10)
        gh.rest.issues.add_assignees(OWNER, NAME, 8635, assignees=["alice"])
        clock.later(10)
        gh.rest.reactions.create_for_issue_comment(OWNER, NAME, 7, content="eyes")
        clock.later(10)
        raw = double.state()
        next(i for i in raw["issues"] if i["number"] == 9497)["state"] = "closed"
        (tmp_path / "state.json").write_text(json.dumps(raw), encoding="utf-8")  # a person closes it
        edited = clock.later(10)  # an edit of the file is dated when the double next answers
        window = changed(gh, NOW + dt.timedelta(minutes=1))
        assert window == [(8324, commented), (8635, assigned), (9497, edited)]  # not 8325: a reaction
        newest_first = changed(gh, NOW + dt.timedelta(minutes=1), "DESC")
        assert newest_first == window[::-1]
        assert changed(gh, NOW + dt.timedelta(minutes=15)) == window[1:]  # at or after `since`


def test_updated_at_survives_a_restart_and_answers_carry_the_doubles_date(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "state.json"
    double = GitHubDouble(example_state(), state_path=path, repo_dir=ROOT, clock=clock)
    with client(double) as gh:
        changed(gh, NOW)
        clock.later(60)
        gh.rest.issues.create_comment(OWNER, NAME, 8324, body="a comment")
    clock.later(60)
    again = GitHubDouble(state_path=path, repo_dir=ROOT, clock=clock)
    with client(again) as gh:
        assert changed(gh, NOW + dt.timedelta(minutes=1)) == [(8324, "2026-08-28T00:00:00Z")]
        response = gh.rest.issues.get(OWNER, NAME, 8324)
    assert email.utils.parsedate_to_datetime(response.headers["date"]) == clock.now


def test_a_record_changed_in_place_gets_a_new_digest() -> None:
    """An edit in place and a value of another type that compares equal both count as a change."""
    raw = example_state(comments=[comment(7, 8325, "alice", "hi")])
    first = fingerprints(raw)
    note = raw["comments"][0]
    for change in ("body", "edited"), ("draft", 0), ("draft", False), ("at", NOW):
        note[change[0]] = change[1]
        again = fingerprints(raw)
        assert again["8325"] != first["8325"]
        first = again


def test_a_look_dates_each_change_in_place_even_one_that_compares_equal() -> None:
    """Each look compares with the last one cheaply (`marshal` bytes, a digest kept per issue), and
    still dates every change: one value changed in place, then one replaced by another type that
    compares equal (0 by False), each on its own issue, between looks."""
    clock = Clock()
    raw = example_state(comments=[comment(7, 8325, "alice", "hi", draft=0), comment(8, 8324, "bob", "ho")])
    seen = Activity(None, clock)
    seen.notice(raw)
    first = seen.updated_at(8325)
    clock.later(5)
    seen.notice(raw)  # nothing changed
    assert (seen.updated_at(8325), seen.updated_at(8324)) == (first, first)
    raw["comments"][1]["body"] = "ho ho"
    moved = clock.later(5)
    seen.notice(raw)
    assert (seen.updated_at(8325), seen.updated_at(8324)) == (first, moved)
    raw["comments"][0]["draft"] = False
    again = clock.later(5)
    seen.notice(raw)
    assert (seen.updated_at(8325), seen.updated_at(8324)) == (again, moved)
