"""Branches of the double: the default branch from the files, PR branches, and moves by people.

Also keeps each open PR record's `files` (and `foreign_commits`) true to its branch, the way the
offline adapter writes them: the snapshot and page the config names, then every other path that
differs from the merge base, with the content at the head.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.config import BotConfig
from bot.errors import BotError
from bot.github.actions import PullRequestAction
from bot.snapshot.store import parse_model
from tests.github_double.gitstore import Commit, Person, noreply
from tests.github_double.working_tree import file_text

if TYPE_CHECKING:
    from tests.github_double.world import World

CONFIG_PATH = "config/perfbot.yaml"
# Who makes the commits that are not the bot's: pushes to the default branch, edits of a PR branch.
PERSON = "octocat"
# Commits the double derives from the state alone carry a fixed date, so their oids are stable.
DERIVED_DATE = "2026-01-01T00:00:00Z"


@functools.lru_cache(maxsize=4096)  # pure; asked for each issue and person of every answer
def user_id(login: str) -> int:
    """A stable numeric account id per login (GitHub's are opaque integers too)."""
    return 1_000_000 + int.from_bytes(hashlib.sha1(login.encode(), usedforsecurity=False).digest()[:3], "big")


def person(login: str, date: str) -> Person:
    return Person(name=login, email=noreply(login, user_id(login)), date=date, login=login)


def commit(world: World, tree: str, parents: list[str], message: str, login: str, date: str | None = None) -> str:
    who = person(login, date or world.now())
    return world.git.put_commit(Commit(tree, tuple(parents), message, who, who, verified=True))


@functools.lru_cache(maxsize=8)  # read on every request; parsing it each time dominated a run's cost
def _config(text: str | None, file: str) -> BotConfig | None:
    if text is None:
        return None
    with contextlib.suppress(BotError):
        return parse_model(text, file, BotConfig).model
    return None


def working_tree_files(repo_dir: Path) -> dict[str, str]:
    """The files the default branch holds when the state does not carry them."""
    config_path = repo_dir / CONFIG_PATH
    config = _config(file_text(config_path), str(config_path))
    if config is None:
        return {}
    paths = [CONFIG_PATH, config.snapshot, config.page, *([config.lease_file] if config.lease_file else [])]
    found = {p: file_text(repo_dir / p) for p in paths}
    return {p: text for p, text in found.items() if text is not None}


def derive_default(world: World) -> None:
    """Point the default branch at a commit of its files, unless a write has moved it."""
    if world.pinned:
        return
    files = world.source_files if world.source_files is not None else working_tree_files(world.repo_dir)
    if not files:
        world.git.refs.pop(world.default_branch, None)
        return
    tree = world.git.put_files(files)
    previous = world.derived if world.derived in world.git.commits else None
    tip = previous
    if previous is None or world.git.commits[previous].tree != tree:
        message = "Update the default branch's files" if previous else "Initial commit"
        tip = commit(world, tree, [previous] if previous else [], message, PERSON, DERIVED_DATE)
    assert tip is not None
    world.derived = world.git.refs[world.default_branch] = tip


def synthesize_pulls(world: World) -> None:
    """Give every PR record without a branch one that holds its `files`, made by the bot."""
    base = world.tip()
    if base is None:
        return
    for pull in world.records("pulls"):
        branch, number = pull["head"], pull["number"]
        if world.fork_of(pull) is not None:
            continue  # its branch is in the fork, not here
        if pull["state"] == "open" and branch in world.git.refs:
            continue
        if pull["state"] != "open" and world.pull_git.get(number, {}).get("closed_head"):
            continue
        tree = world.git.put_files(world.git.files(base) | dict(pull.get("files", {})))
        # A person's PR (a record with its `user`) is their commit, pushed at its `pushed_at`.
        author, date = str(pull.get("user") or world.bot_login), str(pull.get("pushed_at") or DERIVED_DATE)
        head = commit(world, tree, [base], pull.get("title", ""), author, date)
        if pull.get("foreign_commits"):
            head = commit(world, tree, [head], "A change by a person", PERSON, DERIVED_DATE)
        world.pull_git.setdefault(number, {"base": world.default_branch, "closed_head": None})
        if pull["state"] == "open":
            world.git.refs[branch] = head
        else:
            world.pull_git[number]["closed_head"] = head


def synthesize_branch_files(world: World) -> None:
    """Give every branch of the state's `branch_files` without a ref one: a commit by the bot, with
    no parent, holding those files (as `perfbot publish-leases` makes it)."""
    for branch, files in sorted((world.raw.get("branch_files") or {}).items()):
        if branch not in world.git.refs and branch != world.default_branch:
            tree = world.git.put_files(dict(files))
            world.git.refs[branch] = commit(world, tree, [], f"Files of {branch}", world.bot_login, DERIVED_DATE)


def tracked_paths(world: World, files: dict[str, str]) -> list[str]:
    """The snapshot and page the config at that commit names: the files a perfbot PR carries."""
    config = _config(files.get(CONFIG_PATH), CONFIG_PATH)
    if config is None:
        config = _config(working_tree_files(world.repo_dir).get(CONFIG_PATH), CONFIG_PATH)
    return [] if config is None else [config.snapshot, config.page]


def pull_files(world: World, pull: dict[str, Any]) -> dict[str, str]:
    found = branch_files(world, pull["head"], world.pull_base(pull["number"]))
    return dict(pull.get("files", {})) if found is None else found


def branch_files(world: World, branch: str, base_branch: str) -> dict[str, str] | None:
    head, base = world.tip(branch), world.tip(base_branch)
    if head is None or base is None:
        return None
    start = world.git.merge_base(head, base) or base
    at_head, at_base = world.git.files(head), world.git.files(start)
    files = {p: at_head[p] for p in tracked_paths(world, at_head) if p in at_head}
    files |= {p: text for p, text in sorted(at_head.items()) if p not in files and at_base.get(p) != text}
    return files


def foreign(world: World, pull: dict[str, Any]) -> list[str]:
    """Commits on the PR's branch, not on its base, that the bot did not author."""
    head, base = world.tip(pull["head"]), world.tip(world.pull_base(pull["number"]))
    if head is None or base is None:
        return []
    return [oid for oid in world.git.only_in(head, base) if world.git.commits[oid].author.login != world.bot_login]


def sync_pulls(world: World, branch: str) -> None:
    """After `branch` moved: each open PR from it shows the branch's files, as OfflineGitHub writes them."""
    for pull in world.records("pulls"):
        if pull["head"] != branch or pull["state"] != "open" or world.fork_of(pull) is not None:
            continue
        files = pull_files(world, pull)
        if files != pull.get("files"):
            action = PullRequestAction(
                operation="update",
                number=pull["number"],
                branch=branch,
                title=pull["title"],
                body=pull["body"],
                files=files,
            )
            world.apply(world.bot_login, methodcaller("pull_request", action))
        keep_message(world, pull)
        moved_by_people = bool(foreign(world, pull))
        if moved_by_people or "foreign_commits" in pull:
            pull["foreign_commits"] = moved_by_people
            world.save()


def keep_message(world: World, pull: dict[str, Any]) -> None:
    """The record keeps the message of the bot's commit at its branch's head, as the offline state
    keeps the message of the commit it stands for (its trailers record quiet answers)."""
    head = world.tip(pull["head"])
    commit = world.git.commits.get(head) if head is not None else None
    if commit is not None and commit.author.login == world.bot_login and pull.get("message") != commit.message:
        pull["message"] = commit.message
        world.save()


def move(world: World, branch: str, oid: str, actor: str | None = None) -> None:
    """Point `branch` at `oid` (creating it), then bring its PR records in line."""
    force_pushed(world, branch, oid, actor)
    world.git.refs[branch] = oid
    world.pinned |= branch == world.default_branch
    listed = world.raw.get("branch_files") or {}
    if branch in listed:  # the offline adapter reads these first: they follow the branch
        listed[branch] = world.git.files(oid)
    world.git_changed()
    world.save()
    sync_pulls(world, branch)


def force_pushed(world: World, branch: str, oid: str, actor: str | None) -> None:
    """GitHub's `HeadRefForcePushedEvent` on each open PR from `branch` when it moves to a commit that
    does not descend from its head: the PR's timeline keeps the commit the push took off ("before")."""
    before = world.git.refs.get(branch)
    if before is None or before == oid or world.git.is_ancestor(before, oid):
        return
    for pull in world.records("pulls"):
        if pull["head"] == branch and pull["state"] == "open" and world.fork_of(pull) is None:
            record = world.pull_git.setdefault(pull["number"], {"base": world.pull_base(pull["number"])})
            event = {"before": before, "after": oid, "at": world.now(), "actor": actor}
            record["force_pushes"] = [*(record.get("force_pushes") or ()), event]


def push(
    world: World, branch: str, files: dict[str, str], login: str, message: str, deleted: tuple[str, ...] = ()
) -> str:
    """A commit by `login` on top of `branch` (a new branch starts at the default branch's tip)."""
    tip = world.tip(branch) or world.tip()
    current = world.git.files(tip) if tip else {}
    tree = world.git.put_files({p: t for p, t in (current | files).items() if p not in deleted})
    oid = commit(world, tree, [tip] if tip else [], message, login)
    move(world, branch, oid)
    return oid


def merge_pull(world: World, number: int, login: str) -> str:
    """Merge an open PR with a merge commit by `login`; its record becomes `merged`."""
    pull = world.pull(number)
    if pull is None or pull["state"] != "open":
        raise ValueError(f"pull request #{number} is not open")
    base_branch = world.pull_base(number)
    head, base = world.tip(pull["head"]), world.tip(base_branch)
    assert head is not None
    assert base is not None
    tree = world.git.commits[head].tree
    oid = commit(world, tree, [base, head], f"Merge pull request #{number} from {world.owner}/{pull['head']}", login)
    pull["state"] = "merged"
    world.pull_git.setdefault(number, {"base": base_branch, "closed_head": None})["closed_head"] = head
    move(world, base_branch, oid)
    head_deleted_on_merge(world, pull)
    return oid


def head_deleted_on_merge(world: World, pull: dict[str, Any]) -> None:
    """The repository's "Automatically delete head branches" setting (REST's `delete_branch_on_merge`,
    GraphQL's `Repository.deleteBranchOnMerge`; GitHub Docs, "Managing the automatic deletion of
    branches": after a pull request is merged, its head branch is deleted). Off by default, as on GitHub."""
    if world.raw.get("delete_branch_on_merge") and world.fork_of(pull) is None:
        world.git.refs.pop(pull["head"], None)
        world.git_changed()
        world.save()


def close_pull(world: World, number: int) -> None:
    """A person closes an open PR unmerged; GitHub keeps its branch (and the head it had)."""
    pull = world.pull(number)
    if pull is None or pull["state"] != "open":
        raise ValueError(f"pull request #{number} is not open")
    pull["state"] = "closed"
    world.pull_git.setdefault(number, {"base": world.pull_base(number), "closed_head": None})["closed_head"] = (
        world.tip(pull["head"])
    )
    world.git_changed()
    world.save()
