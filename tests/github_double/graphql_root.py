"""The GraphQL roots: `viewer`, `repository(...)`, `rateLimit`, `createCommitOnBranch` and `updateRefs`.

`object(expression: "REV:PATH")` takes REV as `HEAD`, a branch (with or without `refs/heads/`) or
a full oid. A missing repository or issue is `null` plus a `NOT_FOUND` error, as on GitHub; a
stale `expectedHeadOid` is a `STALE_DATA` error and writes nothing.

`updateRefs` is GitHub's schema description of it (`.cache/graphql-schema/schema.graphql`, npm
@octokit/graphql-schema): every update applies or none does; `beforeOid` is where the ref must point
first (forty zeros: it must not exist), `afterOid` where it points after (forty zeros: deleted), and a
non-fast-forward needs `force`. GitHub documents no error type or wording for a refused update, so
the double's (`UNPROCESSABLE`, in git's words) are its own, and perfbot reads neither: it reads the
ref again to tell a moved branch from another refusal.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLResolveInfo

from tests.github_double import branches, merging, pull_files
from tests.github_double.gitstore import Commit, blob_oid, tree_oid
from tests.github_double.graphql_labels import label_node
from tests.github_double.graphql_nodes import (
    BlobNode,
    CommitNode,
    IssueNode,
    Node,
    PullRequestNode,
    RefNode,
    TreeNode,
    connection,
    error,
)
from tests.github_double.world import World

ZERO_OID = "0" * 40


def repository_id(repository: str) -> str:
    """The repository's node id: opaque, as GitHub's are, and the same on every read."""
    return "R_" + base64.b64encode(repository.lower().encode()).decode().rstrip("=")


def repository_issues(
    node: Node,
    where: str | None,
    info: GraphQLResolveInfo[Any],
    filter_by: dict[str, Any] | None,
    order_by: dict[str, Any] | None,
    states: list[str] | None,
    labels: list[str] | None,
    **page: Any,
) -> dict[str, Any]:
    """`Repository.issues` of the state's own repository (`where` None) or of another one it holds."""
    world = node.world
    since = (filter_by or {}).get("since")
    bound = dt.datetime.fromisoformat(str(since)) if since is not None else None
    activity = world.activity

    def updated(record: dict[str, Any]) -> str:
        return activity.updated_at(record["number"], where)

    found = [
        record
        for record in world.records("issues")
        if world.other(record.get("repository")) == world.other(where)
        and (states is None or str(record.get("state", "open")).upper() in states)
        and (not labels or set(labels) & set(record.get("labels", [])))
        and (bound is None or dt.datetime.fromisoformat(updated(record)) >= bound)
    ]
    order = order_by or {"field": "CREATED_AT", "direction": "ASC"}
    keys: dict[str, Callable[[dict[str, Any]], Any]] = {
        "CREATED_AT": lambda r: r["number"],
        "UPDATED_AT": lambda r: (updated(r), r["number"]),
        "COMMENTS": lambda r: sum(c["issue"] == r["number"] for c in world.records("comments")),
    }
    found.sort(key=keys[order["field"]], reverse=order["direction"] == "DESC")
    return connection(info, [IssueNode(world, node.viewer, r) for r in found], **page)


@dataclass(frozen=True)
class IssuesNode(Node):
    """A repository's issues: the state's own (`where` None) or another one's it holds."""

    @property
    def where(self) -> str | None:
        return None

    def issue(self, info: GraphQLResolveInfo[Any], number: int) -> IssueNode:
        record = self.world.index().issue(number, self.where)
        if record is None:
            raise error("NOT_FOUND", f"Could not resolve to an Issue with the number of {number}.")
        return IssueNode(self.world, self.viewer, record)

    def issues(
        self,
        info: GraphQLResolveInfo[Any],
        filter_by: dict[str, Any] | None = None,
        order_by: dict[str, Any] | None = None,
        states: list[str] | None = None,
        labels: list[str] | None = None,
        **page: Any,
    ) -> dict[str, Any]:
        """Issues (never PRs: the double's records are issues); `filterBy` only by `since`, which
        GitHub documents as "updated at or after the given date"."""
        return repository_issues(self, self.where, info, filter_by, order_by, states, labels, **page)


@dataclass(frozen=True)
class OtherRepositoryNode(IssuesNode):
    """Another repository the state holds issues of (`repositories`): its name, issues and labels,
    which is all perfbot reads there."""

    named: str

    @property
    def id(self) -> str:
        return repository_id(self.named)

    @property
    def name(self) -> str:
        return self.named.split("/")[1]

    @property
    def name_with_owner(self) -> str:
        return self.named

    @property
    def where(self) -> str | None:
        return self.named

    def label(self, info: GraphQLResolveInfo[Any], name: str) -> dict[str, Any] | None:
        labels = (self.world.elsewhere(self.named) or {}).get("labels") or []
        record = next((label for label in labels if str(label["name"]).casefold() == name.casefold()), None)
        if record is None:
            return None
        return {
            "name": record["name"],
            "color": record.get("color", "ededed"),
            "description": record.get("description"),
        }


@dataclass(frozen=True)
class RepositoryNode(IssuesNode):
    @property
    def id(self) -> str:
        return repository_id(self.world.repository)

    @property
    def name(self) -> str:
        return self.world.repository.split("/")[1]

    @property
    def name_with_owner(self) -> str:
        return self.world.repository

    def default_branch_ref(self, info: GraphQLResolveInfo[Any]) -> RefNode | None:
        return self.ref(info, self.world.default_branch)

    def ref(self, info: GraphQLResolveInfo[Any], qualified_name: str) -> RefNode | None:
        name = qualified_name.removeprefix("refs/heads/")
        return RefNode(self.world, self.viewer, name) if self.world.tip(name) else None

    def labels(self, info: GraphQLResolveInfo[Any], query: str | None = None, **page: Any) -> dict[str, Any]:
        """GitHub's reference: `query`, "If provided, searches labels by name and description"."""
        found = [
            label_node(self.world, label["name"])
            for label in self.world.records("labels")
            if query is None
            or query.lower() in str(label["name"]).lower()
            or query.lower() in str(label.get("description") or "").lower()
        ]
        return connection(info, found, **page)

    def label(self, info: GraphQLResolveInfo[Any], name: str) -> dict[str, Any] | None:
        """GitHub's reference: `label(name:)`, "Returns a single label by name"; names are
        case-insensitive on GitHub (a second label differing only in case is refused)."""
        found = (label for label in self.world.records("labels") if str(label["name"]).casefold() == name.casefold())
        record = next(found, None)
        return None if record is None else label_node(self.world, record["name"])

    def pull_request(self, info: GraphQLResolveInfo[Any], number: int) -> PullRequestNode:
        record = self.world.pull(number)
        if record is None:
            raise error("NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}.")
        return PullRequestNode(self.world, self.viewer, record)

    @property
    def auto_merge_allowed(self) -> bool:
        return bool(merging.rules(self.world)["auto_merge_allowed"])

    @property
    def delete_branch_on_merge(self) -> bool:
        return bool(self.world.raw.get("delete_branch_on_merge"))

    @property
    def merge_commit_allowed(self) -> bool:
        return "MERGE" in merging.rules(self.world)["methods"]

    @property
    def squash_merge_allowed(self) -> bool:
        return "SQUASH" in merging.rules(self.world)["methods"]

    @property
    def rebase_merge_allowed(self) -> bool:
        return "REBASE" in merging.rules(self.world)["methods"]

    def pull_requests(self, info: GraphQLResolveInfo[Any], **args: Any) -> dict[str, Any]:
        states = args.get("states")
        order = args.get("order_by") or {"field": "CREATED_AT", "direction": "ASC"}
        found = [
            PullRequestNode(self.world, self.viewer, p)
            for p in sorted(
                self.world.listed("pulls"),
                key=pull_files.order_key(order["field"]),
                reverse=order["direction"] == "DESC",
            )
            if (states is None or str(p["state"]).upper() in states)
            and args.get("head_ref_name") in (None, p["head"])
            and args.get("base_ref_name") in (None, self.world.pull_base(p["number"]))
            and not args.get("labels")  # PR records carry no labels
        ]
        page = {k: args[k] for k in ("first", "last", "after", "before") if k in args}
        return connection(info, found, **page)

    def object(
        self, info: GraphQLResolveInfo[Any], expression: str | None = None, oid: str | None = None
    ) -> Node | None:
        if oid is not None:
            return self._by_oid(oid)
        if expression is None:
            return None
        revision, colon, path = expression.partition(":")
        commit = self.world.tip() if revision == "HEAD" else self.world.git.resolve(revision)
        if commit is None:
            return None
        if not colon:
            return CommitNode(self.world, self.viewer, commit)
        return self._at_path(commit, path.strip("/"))

    def _by_oid(self, oid: str) -> Node | None:
        git = self.world.git
        if oid in git.commits:
            return CommitNode(self.world, self.viewer, oid)
        if oid in git.trees:
            return TreeNode(self.world, self.viewer, oid)
        return BlobNode(self.world, self.viewer, oid, git.blobs[oid]) if oid in git.blobs else None

    def _at_path(self, commit: str, path: str) -> Node | None:
        entries = self.world.git.trees[self.world.git.commits[commit].tree]
        if path in entries:
            oid = entries[path][1]
            return BlobNode(self.world, self.viewer, oid, self.world.git.blobs[oid])
        inside = {p.removeprefix(path + "/"): e for p, e in entries.items() if not path or p.startswith(path + "/")}
        if inside:
            return TreeNode(self.world, self.viewer, tree_oid(inside))
        if commit == self.world.derived and self.world.source_files is None and not self.world.pinned:
            # The working tree stands in for the default branch: any of its files can be read.
            file = self.world.repo_dir / path
            if path and file.is_file():
                text = file.read_text(encoding="utf-8")
                return BlobNode(self.world, self.viewer, blob_oid(text), text)
        return None


@dataclass(frozen=True)
class Root:
    world: World
    login: str  # the token's viewer
    rate_limits: Callable[[], dict[str, Any]]

    def viewer(self, info: GraphQLResolveInfo[Any]) -> dict[str, str]:
        return {"login": self.login}

    def rate_limit(self, info: GraphQLResolveInfo[Any], dry_run: bool = False) -> dict[str, Any]:
        return self.rate_limits()

    def repository(
        self, info: GraphQLResolveInfo[Any], owner: str, name: str, follow_renames: bool = True
    ) -> RepositoryNode | OtherRepositoryNode:
        named = f"{owner}/{name}"
        if named.lower() == self.world.repository.lower():
            return RepositoryNode(self.world, self.login)
        if self.world.reach(named, self.login) != "none":
            return OtherRepositoryNode(self.world, self.login, named)
        raise error("NOT_FOUND", f"Could not resolve to a Repository with the name '{named}'.")

    def create_commit_on_branch(self, info: GraphQLResolveInfo[Any], input: dict[str, Any]) -> dict[str, Any]:
        world, target = self.world, input["branch"]
        if target.get("repositoryNameWithOwner", "").lower() != world.repository.lower() or not target.get(
            "branchName"
        ):
            raise error("NOT_FOUND", "The double resolves a branch by repositoryNameWithOwner and branchName only.")
        branch = target["branchName"].removeprefix("refs/heads/")
        tip = world.tip(branch)
        if tip is None:
            raise error("NOT_FOUND", f'A ref named "refs/heads/{branch}" does not exist.')
        if input["expectedHeadOid"] != tip:
            raise error(
                "STALE_DATA",
                f'Expected branch to point to "{input["expectedHeadOid"]}" but it did not. Pull and try again.',
            )
        files = world.git.files(tip) | _additions(input.get("fileChanges") or {})
        for deletion in (input.get("fileChanges") or {}).get("deletions") or []:
            if files.pop(deletion["path"], None) is None:
                message = f"A path was requested for deletion which does not exist as of commit oid `{tip}`"
                raise error("UNPROCESSABLE", message)
        message = input["message"]["headline"] + (
            f"\n\n{input['message']['body']}" if input["message"].get("body") else ""
        )
        who = branches.person(self.login, world.now())
        oid = world.git.put_commit(Commit(world.git.put_files(files), (tip,), message, who, who, verified=True))
        branches.move(world, branch, oid)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "commit": CommitNode(world, self.login, oid),
            "ref": RefNode(world, self.login, branch),
        }

    def update_refs(self, info: GraphQLResolveInfo[Any], input: dict[str, Any]) -> dict[str, Any]:
        world = self.world
        if input["repositoryId"] != repository_id(world.repository):
            raise error("NOT_FOUND", f"Could not resolve to a node with the global id of '{input['repositoryId']}'")
        moves = [_checked_update(world, update) for update in input["refUpdates"]]
        for branch, after in moves:  # all checked first: every update applies, or none does
            if after == ZERO_OID:
                world.git.refs.pop(branch, None)
                world.git_changed()
                world.save()
            else:
                branches.move(world, branch, after, self.login)
        return {"clientMutationId": input.get("clientMutationId")}

    def enable_pull_request_auto_merge(self, info: GraphQLResolveInfo[Any], input: dict[str, Any]) -> dict[str, Any]:
        """GitHub's native auto-merge (see `merging`): armed only on a PR that waits for requirements."""
        world = self.world
        number = merging.number_of(str(input["pullRequestId"]))
        record = world.pull(number) if number is not None else None
        if record is None:
            raise error("NOT_FOUND", f"Could not resolve to a node with the global id of '{input['pullRequestId']}'")
        if not merging.rules(world)["auto_merge_allowed"]:
            raise error("UNPROCESSABLE", "Auto merge is not allowed for this repository")
        head = input.get("expectedHeadOid")
        if head is not None and head != world.pull_head(record):
            raise error("UNPROCESSABLE", "Pull request head commit does not match the expected head oid")
        status = merging.state(world, record)
        if status != "BLOCKED":
            raise error("UNPROCESSABLE", f"Pull request Pull request is in {status.lower()} status")
        record["auto_merge"] = input.get("mergeMethod") or "MERGE"
        record["auto_merge_at"] = world.now()
        world.save()
        return {
            "clientMutationId": input.get("clientMutationId"),
            "pullRequest": PullRequestNode(world, self.login, record),
        }


def _checked_update(world: World, update: dict[str, Any]) -> tuple[str, str]:
    """The branch and its new oid, when GitHub would apply this update; else the error it refuses with."""
    name, after, before = update["name"], update["afterOid"], update.get("beforeOid")
    if not name.startswith("refs/heads/") or name == "refs/heads/":
        raise error("UNPROCESSABLE", f"{name}: the double holds branches (refs/heads/...) only")
    branch = name.removeprefix("refs/heads/")
    current = world.git.refs.get(branch)
    if before is not None and (current or ZERO_OID) != before:
        raise error("UNPROCESSABLE", f"cannot lock ref '{name}': is at {current or ZERO_OID} but expected {before}")
    if after != ZERO_OID and after not in world.git.commits:
        raise error("UNPROCESSABLE", f"{name}: object {after} does not exist")
    if (
        current is not None
        and after != ZERO_OID
        and not update.get("force")
        and not world.git.is_ancestor(current, after)
    ):
        raise error("UNPROCESSABLE", f"{name}: update is not a fast forward")
    return branch, after


def _additions(changes: dict[str, Any]) -> dict[str, str]:
    added = {}
    for addition in changes.get("additions") or []:
        try:
            added[addition["path"]] = base64.b64decode(addition["contents"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise error(
                "UNPROCESSABLE", f"The contents of {addition['path']} are not base64-encoded UTF-8 text."
            ) from exc
    return added
