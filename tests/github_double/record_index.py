"""The state's records by the issue, comment or name they belong to, for one GraphQL answer.

An answer reads each issue's label events, comments and sub-issues, each comment's reactions, and
labels and issues by name and number, for every issue it holds: scanning every record for each
issue made an answer quadratic in the repository's size. Each index here is built at its first
use, in one pass, with the scan's order and its first match; `World` forgets them at every write
and each GraphQL request starts without them, so an answer never reads a state older than itself.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from bot.issue_refs import number_of, parse_issue, repository_of
from tests.github_double.activity import key

if TYPE_CHECKING:
    from tests.github_double.world import World


class RecordIndex:
    def __init__(self, world: World) -> None:
        self.world = world

    @functools.cached_property
    def label_events(self) -> dict[str, list[tuple[int, dict[str, Any]]]]:
        """Each issue's label events (by `activity.key`), with their places in the state's list."""
        found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for index, event in enumerate(self.world.records("label_events")):
            found.setdefault(key(event["issue"]), []).append((index, event))
        return found

    @functools.cached_property
    def comments(self) -> dict[str, list[dict[str, Any]]]:
        """Each issue's comments as its list shows them (`World.listed`), by id."""
        found: dict[str, list[dict[str, Any]]] = {}
        for comment in self.world.listed("comments"):
            found.setdefault(key(comment["issue"]), []).append(comment)
        return {issue: sorted(mine, key=lambda c: c["id"]) for issue, mine in found.items()}

    @functools.cached_property
    def sub_issues(self) -> dict[str, list[dict[str, Any]]]:
        """Each issue's sub-issues, by the key of their `parent`."""
        found: dict[str, list[dict[str, Any]]] = {}
        for record in self.world.records("issues"):
            if record.get("parent") is not None:
                found.setdefault(key(record["parent"]), []).append(record)
        return found

    @functools.cached_property
    def reactions(self) -> dict[Any, list[dict[str, Any]]]:
        found: dict[Any, list[dict[str, Any]]] = {}
        for reaction in self.world.records("reactions"):
            found.setdefault(reaction["comment_id"], []).append(reaction)
        return found

    @functools.cached_property
    def labels(self) -> dict[Any, dict[str, Any]]:
        """The repository's labels by name, the first of a name as a scan finds it."""
        found: dict[Any, dict[str, Any]] = {}
        for label in self.world.records("labels"):
            found.setdefault(label["name"], label)
        return found

    @functools.cached_property
    def issues(self) -> dict[tuple[Any, str | None], dict[str, Any]]:
        """Issues by number and repository (`World.other`), as `World.issue` finds them."""
        found: dict[tuple[Any, str | None], dict[str, Any]] = {}
        for record in self.world.records("issues"):
            found.setdefault((record["number"], self.world.other(record.get("repository"))), record)
        return found

    def issue(self, number: int, repository: str | None = None) -> dict[str, Any] | None:
        return self.issues.get((number, self.world.other(repository)))

    def issue_by(self, reference: object) -> dict[str, Any] | None:
        """`World.issue_by`: the issue a state value names."""
        named = issue_named(reference)
        return None if named is None else self.issue(*named)


def issue_named(reference: object) -> tuple[int, str | None] | None:
    """The number and repository of the issue a state value names: a number here, `owner/repo#N`
    elsewhere; None for a value that names no issue."""
    try:
        found = parse_issue(reference)
    except ValueError:
        return None
    return number_of(found), repository_of(found)
