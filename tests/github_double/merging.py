"""The double's merge rules: a PR's merge state, a direct merge, and GitHub's native auto-merge.

Modelled from GitHub's docs and published descriptions:

- `mergeStateStatus` (GraphQL `MergeStateStatus`): `BLOCKED` while the default branch requires
  status checks or reviews the PR has not passed (the state's `merge_rules.requires_checks`, until
  `checks_pass` is called: a PR opened with Actions' `GITHUB_TOKEN` starts no workflow, so nothing
  passes them by itself), `CLEAN` otherwise; `UNKNOWN` for the first `unknown_reads` reads after a
  PR was written, as GitHub computes mergeability after a push ("The state cannot currently be
  determined").
- `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` ("Merge a pull request"): 200 with `sha`,
  `merged` and `message`; 409 "Head branch was modified. Review and try the merge again." when
  `sha` is not the head; 405 when the PR cannot be merged (not open, blocked, or a method the
  repository does not allow: "Merge commits are not allowed on this repository.").
- `enablePullRequestAutoMerge` (GraphQL mutation): refused when the repository does not allow
  auto-merge ("Auto merge is not allowed for this repository"), when the PR could merge now
  ("Pull request is in clean status": there is nothing to wait for, as GitHub answers), or when
  `expectedHeadOid` is not the head; else the PR's `autoMergeRequest` is set, and GitHub merges it
  once its requirements pass (`checks_pass`).
"""

from __future__ import annotations

from typing import Any

from tests.github_double import branches
from tests.github_double.world import World

METHOD_WORDS = {"MERGE": "Merge commits", "SQUASH": "Squash merges", "REBASE": "Rebase merges"}


def rules(world: World) -> dict[str, Any]:
    found = world.raw.get("merge_rules") or {}
    return {
        "auto_merge_allowed": bool(found.get("auto_merge_allowed", False)),
        "requires_checks": bool(found.get("requires_checks", False)),
        "methods": tuple(found.get("methods", ("MERGE", "SQUASH", "REBASE"))),
    }


def node_id(number: int) -> str:
    return f"PR_kwDOdouble{number}"


def number_of(node: str) -> int | None:
    tail = node.removeprefix("PR_kwDOdouble")
    return int(tail) if tail != node and tail.isdigit() else None


def state(world: World, record: dict[str, Any]) -> str:
    """The PR's `mergeStateStatus` as GitHub would give it now."""
    if world.unknown_merge_reads > 0:
        world.unknown_merge_reads -= 1
        return "UNKNOWN"
    if record["state"] != "open" or world.fork_of(record) is not None:
        return "UNKNOWN"
    if rules(world)["requires_checks"] and record.get("checks_passed_on") != world.pull_head(record):
        return "BLOCKED"
    return "CLEAN"


def merge(world: World, record: dict[str, Any], method: str, login: str) -> str:
    """Merge the PR (a merge commit, or one commit of its tree for squash and rebase)."""
    number = int(record["number"])
    if method == "MERGE":
        return branches.merge_pull(world, number, login)
    base_branch = world.pull_base(number)
    head, base = world.tip(record["head"]), world.tip(base_branch)
    assert head is not None
    assert base is not None
    message = f"{record['title']} (#{number})"
    oid = branches.commit(world, world.git.commits[head].tree, [base], message, login)
    record["state"] = "merged"
    world.pull_git.setdefault(number, {"base": base_branch, "closed_head": None})["closed_head"] = head
    branches.move(world, base_branch, oid)
    branches.head_deleted_on_merge(world, record)
    return oid


def refusal(world: World, record: dict[str, Any], method: str, sha: str | None) -> tuple[int, str] | None:
    """GitHub's refusal of a merge (status and message), or None when it merges."""
    if record["state"] != "open":
        return 405, "Pull Request is not mergeable"
    if sha is not None and sha != world.pull_head(record):
        return 409, "Head branch was modified. Review and try the merge again."
    if method not in rules(world)["methods"]:
        return 405, f"{METHOD_WORDS[method]} are not allowed on this repository."
    if state(world, record) == "BLOCKED":
        return 405, "Pull Request is not mergeable"
    return None


def checks_pass(world: World, number: int) -> None:
    """The PR's required checks pass (a person re-ran them, or a GitHub App's token started them):
    an armed auto-merge merges it, as GitHub does."""
    record = world.pull(number)
    assert record is not None
    record["checks_passed_on"] = world.pull_head(record)  # checks pass for a head: a new push starts over
    armed = record.get("auto_merge")
    if armed and record["state"] == "open":
        merge(world, record, str(armed), world.bot_login)
    world.save()
