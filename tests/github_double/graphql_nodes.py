"""GraphQL objects of the double: each field of `schema.graphql` is an attribute or method here,
named in snake_case (`defaultBranchRef` -> `default_branch_ref`); see `graphql_resolvers`.

Bots are `Bot` authors whose login comes without `[bot]`, as GitHub sends them; comment ids come
as `fullDatabaseId` (a BigInt, so a string) and `databaseId` (a 32-bit Int that fails past 2^31).
"""

from __future__ import annotations

import base64
import binascii
import functools
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError, GraphQLResolveInfo

from tests.github_double import merging, pull_files
from tests.github_double.activity import record_key
from tests.github_double.gitstore import Person
from tests.github_double.graphql_labels import issue_id, label_event, label_node, unassigned_event
from tests.github_double.world import World

MAX_PAGE = 100
# GitHub lists every reaction group, in this order, whether or not anyone reacted so.
REACTION_GROUPS = ("THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES")
REST_CONTENT = {"THUMBS_UP": "+1", "THUMBS_DOWN": "-1"}


def error(kind: str, message: str) -> GraphQLError:
    """An error GitHub types at the top level of its entry (`NOT_FOUND`, `STALE_DATA`, ...)."""
    return GraphQLError(message, extensions={"type": kind})


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _position(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(base64.b64decode(cursor).decode().removeprefix("cursor:v2:"))
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise error("INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor.") from exc


def connection(info: GraphQLResolveInfo[Any], items: list[Any], **args: Any) -> dict[str, Any]:
    """A cursor page of `items`; `first` or `last` (1-100) is required when nodes are asked for."""
    first, last = args.get("first"), args.get("last")
    name = info.field_name
    if first is None and last is None and _asked(info) & {"nodes", "edges"}:
        message = f"You must provide a `first` or `last` value to properly paginate the `{name}` connection."
        raise error("MISSING_PAGINATION_BOUNDARIES", message)
    for bound, value in (("first", first), ("last", last)):
        if value is not None and value > MAX_PAGE:
            message = (
                f"Requesting {value} records on the `{name}` connection exceeds the `{bound}` limit of 100 records."
            )
            raise error("EXCESSIVE_PAGINATION", message)
    after, before = _position(args.get("after")), _position(args.get("before"))
    start = 0 if after is None else after + 1
    end = len(items) if before is None else before
    window = list(range(start, min(end, len(items))))
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    return {
        "nodes": [items[i] for i in window],
        "totalCount": len(items),
        "pageInfo": {
            "startCursor": _cursor(window[0]) if window else None,
            "endCursor": _cursor(window[-1]) if window else None,
            "hasNextPage": bool(window) and window[-1] + 1 < min(end, len(items)),
            "hasPreviousPage": bool(window) and window[0] > 0,
        },
    }


def _asked(info: GraphQLResolveInfo[Any]) -> set[str]:
    return {s.name.value for node in info.field_nodes for s in node.selection_set.selections if hasattr(s, "name")}  # type: ignore[union-attr]


@dataclass(frozen=True)
class Node:
    world: World
    viewer: str


@dataclass(frozen=True)
class BlobNode(Node):
    oid: str
    text: str
    typename = "Blob"
    is_binary = False
    is_truncated = False

    @property
    def byte_size(self) -> int:
        return len(self.text.encode("utf-8"))


@dataclass(frozen=True)
class TreeNode(Node):
    oid: str
    typename = "Tree"


GHOST = "ghost"  # GitHub's stand-in for a deleted account


def _actor(who: Person) -> dict[str, Any]:
    """A GitActor; its `user` is a User, so GitHub gives null for a Bot (an App's commits)."""
    user = {"login": who.login} if who.login and not who.login.endswith("[bot]") else None
    return {"name": who.name, "email": who.email, "date": who.date, "user": user}


@dataclass(frozen=True)
class CommitNode(Node):
    oid: str
    typename = "Commit"

    @property
    def message(self) -> str:
        return self.world.git.commits[self.oid].message

    def author(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any]:
        return _actor(self.world.git.commits[self.oid].author)

    def committer(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any]:
        return _actor(self.world.git.commits[self.oid].committer)

    def committed_date(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(self.world.git.commits[self.oid].committer.date)

    def parents(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        found = [CommitNode(self.world, self.viewer, p) for p in self.world.git.commits[self.oid].parents]
        return connection(info, found, **page)

    def history(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        """The commit and its ancestors, newest first ("in the same order as `git log`": by commit date)."""
        git = self.world.git
        found = list(git.ancestors(self.oid))
        order = {oid: index for index, oid in enumerate(found)}
        found.sort(key=lambda oid: (git.commits[oid].committer.date, -order[oid]), reverse=True)
        return connection(info, [CommitNode(self.world, self.viewer, oid) for oid in found], **page)

    def signature(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any] | None:
        """GitHub's signature of a commit it made (the web interface, or the API with no author,
        committer or signature of the caller's: "Signature verification for bots", GitHub Docs,
        About commit signature verification); null for an unsigned commit. The double's people
        sign nothing themselves, so every signature is GitHub's."""
        if not self.world.git.commits[self.oid].verified:
            return None
        return {"typename": "GpgSignature", "isValid": True, "state": "VALID", "wasSignedByGitHub": True}

    def tree(self, info: GraphQLResolveInfo[Any]) -> TreeNode:
        return TreeNode(self.world, self.viewer, self.world.git.commits[self.oid].tree)


@dataclass(frozen=True)
class RefNode(Node):
    name: str
    prefix = "refs/heads/"

    def target(self, info: GraphQLResolveInfo[Any]) -> CommitNode | None:
        oid = self.world.tip(self.name)
        return None if oid is None else CommitNode(self.world, self.viewer, oid)


@dataclass(frozen=True)
class CommentNode(Node):
    record: dict[str, Any]

    def author(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any] | None:
        """The comment's author; null for a deleted account (REST shows GitHub's `ghost` user)."""
        kind = self.record.get("user_type", "User")
        login = str(self.record["user"])
        if login == GHOST:
            return None
        return {"typename": kind, "login": login.removesuffix("[bot]") if kind == "Bot" else login}

    def body(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(self.record.get("body", ""))

    def created_at(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(self.record["created_at"])

    def database_id(self, info: GraphQLResolveInfo[Any]) -> int:
        return int(self.record["id"])

    def full_database_id(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(self.record["id"])

    def last_edited_at(self, info: GraphQLResolveInfo[Any]) -> str | None:
        edited = self.record.get("edited", False)
        return str(self.record.get("updated_at", self.record["created_at"])) if edited else None

    def editor(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any] | None:
        """GitHub's `editor` ("The actor who edited the comment"): null while it is unedited; a
        state that says it is edited without naming who edited it was edited by its author."""
        if not self.record.get("edited", False):
            return None
        return actor(str(self.record.get("editor") or self.record["user"]))

    def reaction_groups(self, info: GraphQLResolveInfo[Any]) -> list[dict[str, Any]]:
        mine = self.world.index().reactions.get(self.record["id"], [])
        groups = []
        for content in REACTION_GROUPS:
            rest = REST_CONTENT.get(content, content.lower())
            users = [r["user"] for r in mine if r["content"] == rest]
            reactors = functools.partial(connection_of, users)
            groups.append({"content": content, "viewerHasReacted": self.viewer in users, "reactors": reactors})
        return groups


def connection_of(items: list[Any], info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
    return connection(info, items, **page)


@dataclass(frozen=True)
class NumberedNode(Node):
    """An issue or a pull request: a numbered, titled record of the state."""

    record: dict[str, Any]

    @property
    def number(self) -> int:
        return int(self.record["number"])

    @property
    def title(self) -> str:
        return str(self.record.get("title", ""))


@dataclass(frozen=True)
class IssueNode(NumberedNode):
    @property
    def state(self) -> str:
        return str(self.record.get("state", "open")).upper()

    @property
    def key(self) -> str:
        return record_key(self.record)

    @property
    def elsewhere(self) -> str | None:
        """The other repository this issue is in (None: the state's own)."""
        return self.world.other(self.record.get("repository"))

    def updated_at(self, info: GraphQLResolveInfo[Any]) -> str:
        return self.world.activity.updated_at(self.number, self.elsewhere)

    def viewer_can_update(self, info: GraphQLResolveInfo[Any]) -> bool:
        """In another repository, what the viewer may do there (`World.reach`); here, as before."""
        return self.elsewhere is None or self.world.reach(self.elsewhere, self.viewer) == "write"

    def viewer_can_label(self, info: GraphQLResolveInfo[Any]) -> bool:
        return self.viewer_can_update(info)

    def state_reason(self, info: GraphQLResolveInfo[Any], enable_duplicate: bool = False) -> str | None:
        reason = self.record.get("state_reason")
        if reason is None or (reason == "duplicate" and not enable_duplicate):
            return None if reason is None else "COMPLETED"
        return str(reason).upper()

    def assignees(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        return connection(info, [{"login": login} for login in self.record.get("assignees", [])], **page)

    def author(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any]:
        """Who opened it (the state's `user`, else the repository's owner); a Bot without `[bot]`."""
        login = str(self.record.get("user") or self.world.owner)
        kind = "Bot" if login.endswith("[bot]") else "User"
        return {"typename": kind, "login": login.removesuffix("[bot]")}

    def body(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(self.record.get("body", ""))

    def repository(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any]:
        where = str(self.record.get("repository") or self.world.repository)
        return {"nameWithOwner": where, "name": where.split("/")[1]}

    def labels(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        return connection(info, [label_node(self.world, name) for name in self.record.get("labels", [])], **page)

    def full_database_id(self, info: GraphQLResolveInfo[Any]) -> str:
        return str(issue_id(self.number, self.elsewhere))

    def blocked_by(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        index = self.world.index()
        found = [index.issue_by(self._from_here(n)) for n in self.record.get("blocked_by", [])]
        return connection(info, [IssueNode(self.world, self.viewer, r) for r in found if r is not None], **page)

    def parent(self, info: GraphQLResolveInfo[Any]) -> IssueNode | None:
        value = self.record.get("parent")
        found = None if value is None else self.world.index().issue_by(self._from_here(value))
        return None if found is None else IssueNode(self.world, self.viewer, found)

    def sub_issues(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        found = self.world.index().sub_issues.get(self.key, [])
        return connection(info, [IssueNode(self.world, self.viewer, r) for r in found], **page)

    def _from_here(self, value: object) -> object:
        """A link's value as the state holds it: a bare number is in the state's own repository."""
        return value

    def timeline_items(
        self, info: GraphQLResolveInfo[Any], item_types: list[str] | None = None, **page: Any
    ) -> dict[str, Any]:
        """Label events, and the unassignments the issue's record keeps (`unassigned`, written as
        GitHub's timeline records an assignee taken off): the double keeps no other timeline."""
        events = []
        for index, event in self.world.index().label_events.get(self.key, []):
            kind = "LabeledEvent" if event["action"] == "labeled" else "UnlabeledEvent"
            wanted = (
                item_types is None or ("LABELED_EVENT" if kind == "LabeledEvent" else "UNLABELED_EVENT") in item_types
            )
            if wanted:
                events.append(label_event(self.world, kind, index, event))
        if item_types is None or "UNASSIGNED_EVENT" in item_types:
            events += [unassigned_event(self.number, i, e) for i, e in enumerate(self.record.get("unassigned", []))]
        events.sort(key=lambda e: str(e["createdAt"]))
        return connection(info, events, **page)

    def comments(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        mine = self.world.index().comments.get(self.key, [])
        return connection(info, [CommentNode(self.world, self.viewer, c) for c in mine], **page)


@dataclass(frozen=True)
class PullRequestNode(NumberedNode):
    @property
    def body(self) -> str:
        return str(self.record.get("body", ""))

    @property
    def head_ref_name(self) -> str:
        return str(self.record["head"])

    def editor(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any] | None:
        """GitHub's `editor` ("The actor who edited this pull request's body"): null until the body
        is edited after the PR was opened; a title edit is not a body edit."""
        editor = self.record.get("editor")
        return None if editor is None else actor(str(editor))

    @property
    def state(self) -> str:
        return str(self.record["state"]).upper()

    @property
    def head_ref_oid(self) -> str:
        return self.world.pull_head(self.record) or ""

    @property
    def is_cross_repository(self) -> bool:
        return self.world.fork_of(self.record) is not None

    @property
    def id(self) -> str:
        return merging.node_id(self.number)

    @property
    def merge_state_status(self) -> str:
        return merging.state(self.world, self.record)

    @property
    def auto_merge_request(self) -> dict[str, Any] | None:
        method = self.record.get("auto_merge")
        if not method or self.record["state"] != "open":
            return None
        return {"enabledAt": self.record.get("auto_merge_at"), "mergeMethod": method}

    def head_repository(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any] | None:
        """The repository of the PR's branch: a fork's (None once deleted), or this one."""
        fork = self.world.fork_of(self.record)
        if fork == "":
            return None
        return {"nameWithOwner": fork or self.world.repository}

    @property
    def base_ref_name(self) -> str:
        return self.world.pull_base(self.record["number"])

    @property
    def base_ref_oid(self) -> str:
        return self.world.tip(self.base_ref_name) or ""

    def commits(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        head, base = self.world.pull_head(self.record), self.world.tip(self.base_ref_name)
        mine = self.world.fork_of(self.record) is None
        found = self.world.git.only_in(head, base) if mine and head and base else []
        return connection(info, [{"commit": CommitNode(self.world, self.viewer, oid)} for oid in found], **page)

    def timeline_items(
        self, info: GraphQLResolveInfo[Any], item_types: list[str] | None = None, **page: Any
    ) -> dict[str, Any]:
        """The force-pushes of its branch while it was open (GitHub's `HeadRefForcePushedEvent`, whose
        `beforeCommit` GitHub keeps): the double keeps no other timeline of a PR."""
        if item_types is not None and "HEAD_REF_FORCE_PUSHED_EVENT" not in item_types:
            return connection(info, [], **page)
        pushes = self.world.pull_git.get(self.number, {}).get("force_pushes") or ()
        events = [
            {
                "typename": "HeadRefForcePushedEvent",
                "id": base64.b64encode(f"HeadRefForcePushedEvent:{self.number}:{index + 1}".encode()).decode(),
                "createdAt": push["at"],
                "actor": actor(str(push["actor"])) if push.get("actor") else None,
                "beforeCommit": CommitNode(self.world, self.viewer, str(push["before"])),
                "afterCommit": CommitNode(self.world, self.viewer, str(push["after"])),
            }
            for index, push in enumerate(pushes)
        ]
        return connection(info, events, **page)

    # --- what makes a person's PR a lease: its author, draft flag, changed files and closing references
    def author(self, info: GraphQLResolveInfo[Any]) -> dict[str, Any]:
        """Who opened it (the record's `user`, else the repository's owner); a Bot without `[bot]`."""
        login = str(self.record.get("user") or self.world.owner)
        kind = "Bot" if login.endswith("[bot]") or self.record.get("user_type") == "Bot" else "User"
        return {"typename": kind, "login": login.removesuffix("[bot]")}

    @property
    def is_draft(self) -> bool:
        return bool(self.record.get("draft", False))

    @property
    def closed_at(self) -> str | None:
        found = self.record.get("closed_at")
        return None if self.record["state"] == "open" or found is None else str(found)

    @property
    def changed_files(self) -> int:
        return len(pull_files.changed(self.world, self.record, self.base_ref_name))

    def files(self, info: GraphQLResolveInfo[Any], **page: Any) -> dict[str, Any]:
        """GitHub lists at most 3,000 files of a PR (`changedFiles` counts them all)."""
        listed = pull_files.changed(self.world, self.record, self.base_ref_name)[: pull_files.LISTED]
        nodes = [{"path": path, "changeType": kind, "additions": 0, "deletions": 0} for path, kind in listed]
        return connection(info, nodes, **page)

    def closing_issues_references(
        self, info: GraphQLResolveInfo[Any], user_linked_only: bool = False, order_by: Any = None, **page: Any
    ) -> dict[str, Any]:
        found = pull_files.closing(self.world, self.record, self.base_ref_name, user_linked_only, self.viewer)
        return connection(info, [IssueNode(self.world, self.viewer, record) for record in found], **page)


def actor(login: str) -> dict[str, Any]:
    """An `Actor` as GraphQL shows it: a Bot's login without the `[bot]` REST shows."""
    kind = "Bot" if login.endswith("[bot]") else "User"
    return {"typename": kind, "login": login.removesuffix("[bot]")}
