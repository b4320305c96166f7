"""A pull request's changed files and closing references, as GitHub gives them.

Changed files (GraphQL `PullRequest.files`, REST "List pull requests files"): the record's
`paths` when the state lists them (a fork's PR, whose history the double does not keep), else the
three-dot diff of its branch against the merge base with its base branch, by path. GitHub lists
at most 3,000 of them ("Responses include a maximum of 3000 files", the REST reference);
`changedFiles` counts them all.

Closing references (`PullRequest.closingIssuesReferences`): the issues linked by hand (the
record's `closes`) and those a closing keyword in the body names ("Linking a pull request to an
issue": close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved, any case, an
optional colon, then `#N`, or `OWNER/REPOSITORY#N` for "an issue in a different repository"),
the keywords only when the PR's base is the default branch; issues the double does not have, and
those of a repository the viewer cannot read, are left out. `userLinkedOnly` gives the hand-made
links alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.github_double.world import World

LISTED = 3000
_KEYWORD = re.compile(
    r"(?<![\w/#])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?[ \t]+([A-Za-z0-9][\w.-]*/[\w.-]+)?#(\d+)\b", re.IGNORECASE
)


def changed(world: World, record: dict[str, Any], base: str) -> list[tuple[str, str]]:
    """(path, GitHub's change type) of every file the PR changes, by path."""
    listed = record.get("paths")
    if listed is not None:
        return [(str(path), "MODIFIED") for path in listed]
    head, tip = world.pull_head(record), world.tip(base)
    if world.fork_of(record) is not None or head is None or tip is None or head not in world.git.commits:
        return []
    since = world.git.merge_base(head, tip)
    before = world.git.files(since) if since else {}
    after = world.git.files(head)
    found = []
    for path in sorted(before.keys() | after.keys()):
        if path not in before:
            found.append((path, "ADDED"))
        elif path not in after:
            found.append((path, "DELETED"))
        elif before[path] != after[path]:
            found.append((path, "MODIFIED"))
    return found


def closing(
    world: World, record: dict[str, Any], base: str, user_linked_only: bool, viewer: str
) -> list[dict[str, Any]]:
    written: list[object] = list(record.get("closes", []))
    if not user_linked_only and base == world.default_branch:
        body = str(record.get("body", ""))
        written += [f"{m.group(1)}#{m.group(2)}" if m.group(1) else int(m.group(2)) for m in _KEYWORD.finditer(body)]
    found = [world.issue_by(reference) for reference in dict.fromkeys(written)]
    return [issue for issue in found if issue is not None and _readable(world, issue, viewer)]


def _readable(world: World, issue: dict[str, Any], viewer: str) -> bool:
    where = world.other(issue.get("repository"))
    return where is None or world.reach(where, viewer) != "none"


def order_key(field: str) -> Callable[[dict[str, Any]], Any]:
    """`IssueOrder` on PRs: by number for CREATED_AT (the double opens them in order), else by the
    last time the double knows of (closed, else pushed), then number."""
    if field == "CREATED_AT":
        return lambda p: int(p["number"])
    return lambda p: (str(p.get("closed_at") or p.get("pushed_at") or ""), int(p["number"]))
