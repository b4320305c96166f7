"""Git objects of the double: blobs, flat trees and commits whose oids are real git oids.

A tree is held flat (repository path -> mode and blob oid), but its oid is the one git gives the
nested trees (`git mktree` per directory), and blobs and commits are hashed in git's own object
encoding, so an oid here equals the one `git hash-object` / `git commit-tree` would print.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

FILE_MODE = "100644"
DIRECTORY_MODE = "40000"


def hash_object(kind: str, payload: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(payload)}\0".encode() + payload, usedforsecurity=False).hexdigest()


def blob_oid(text: str) -> str:
    return hash_object("blob", text.encode("utf-8"))


def _tree_payload(entries: dict[str, tuple[str, str]]) -> bytes:
    """One directory level: `mode name\\0<20-byte oid>`, in git's order (directories sort as `name/`)."""
    children: dict[str, dict[str, tuple[str, str]]] = {}
    level: dict[str, tuple[str, str]] = {}
    for path, entry in entries.items():
        head, _, rest = path.partition("/")
        if rest:
            children.setdefault(head, {})[rest] = entry
        else:
            level[head] = entry
    for name, nested in children.items():
        level[name] = (DIRECTORY_MODE, hash_object("tree", _tree_payload(nested)))
    ordered = sorted(level.items(), key=lambda item: item[0] + ("/" if item[1][0] == DIRECTORY_MODE else ""))
    return b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid) for name, (mode, oid) in ordered)


def tree_oid(entries: dict[str, tuple[str, str]]) -> str:
    return hash_object("tree", _tree_payload(entries))


@dataclass(frozen=True)
class Person:
    """A commit's author or committer; `login` is the GitHub account it maps to, if any."""

    name: str
    email: str
    date: str
    login: str | None = None

    def signature(self) -> str:
        moment = dt.datetime.fromisoformat(self.date.replace("Z", "+00:00"))
        return f"{self.name} <{self.email}> {int(moment.timestamp())} +0000"

    def dump(self) -> dict[str, Any]:
        return {"name": self.name, "email": self.email, "date": self.date, "login": self.login}


@dataclass(frozen=True)
class Commit:
    tree: str
    parents: tuple[str, ...]
    message: str
    author: Person
    committer: Person
    verified: bool = False

    @property
    def oid(self) -> str:
        lines = [f"tree {self.tree}", *(f"parent {p}" for p in self.parents)]
        lines += [f"author {self.author.signature()}", f"committer {self.committer.signature()}"]
        return hash_object("commit", ("\n".join(lines) + "\n\n" + self.message).encode("utf-8"))

    def dump(self) -> dict[str, Any]:
        return {
            "type": "commit",
            "tree": self.tree,
            "parents": list(self.parents),
            "message": self.message,
            "author": self.author.dump(),
            "committer": self.committer.dump(),
            "verified": self.verified,
        }


def noreply(login: str, user_id: int) -> str:
    return f"{user_id}+{login}@users.noreply.github.com"


@dataclass
class GitStore:
    """Every object the double knows, by oid, and the branches (name -> commit oid)."""

    blobs: dict[str, str] = field(default_factory=dict)
    trees: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    commits: dict[str, Commit] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    # The tree of each set of files put (`put_files`), by its paths and texts in order.
    file_trees: dict[tuple[tuple[str, str], ...], str] = field(default_factory=dict, repr=False, compare=False)

    def put_blob(self, text: str) -> str:
        oid = blob_oid(text)
        self.blobs[oid] = text
        return oid

    def put_tree(self, entries: dict[str, tuple[str, str]]) -> str:
        oid = tree_oid(entries)
        self.trees[oid] = dict(sorted(entries.items()))
        return oid

    def put_files(self, files: dict[str, str]) -> str:
        # The same files again (the default branch's, before every request) are not hashed again.
        key = tuple(files.items())
        oid = self.file_trees.get(key)
        if oid is None:
            oid = self.file_trees[key] = self.put_tree(
                {path: (FILE_MODE, self.put_blob(text)) for path, text in files.items()}
            )
        return oid

    def put_commit(self, commit: Commit) -> str:
        oid = commit.oid
        self.commits[oid] = commit
        return oid

    def files(self, commit: str) -> dict[str, str]:
        """The text of every file in a commit's tree."""
        return {path: self.blobs[oid] for path, (_, oid) in self.trees[self.commits[commit].tree].items()}

    def ancestors(self, commit: str) -> Iterator[str]:
        """`commit` and everything reachable from it, breadth first."""
        seen, queue = {commit}, deque([commit])
        while queue:
            oid = queue.popleft()
            yield oid
            for parent in self.commits[oid].parents:
                if parent not in seen:
                    seen.add(parent)
                    queue.append(parent)

    def merge_base(self, one: str, other: str) -> str | None:
        reachable = set(self.ancestors(one))
        return next((oid for oid in self.ancestors(other) if oid in reachable), None)

    def only_in(self, head: str, base: str) -> list[str]:
        """Commits reachable from `head` but not from `base`, oldest first (GitHub's compare order)."""
        excluded = set(self.ancestors(base))
        newest_first = [oid for oid in self.ancestors(head) if oid not in excluded]
        order = {oid: -index for index, oid in enumerate(newest_first)}
        return sorted(newest_first, key=lambda oid: (self.commits[oid].committer.date, order[oid]))

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return ancestor in set(self.ancestors(descendant))

    def resolve(self, revision: str) -> str | None:
        """A branch name (optionally `refs/heads/`), `HEAD` of the default branch, or a full oid."""
        name = revision.removeprefix("refs/heads/")
        if name in self.refs:
            return self.refs[name]
        if revision in self.commits:
            return revision
        return None

    def reachable(self, tips: Iterable[str]) -> GitStore:
        """A copy holding only what the given commits reach: what the state file keeps."""
        kept = GitStore(refs=dict(self.refs))
        for tip in tips:
            for oid in self.ancestors(tip):
                commit = self.commits[oid]
                kept.commits[oid] = commit
                kept.trees[commit.tree] = self.trees[commit.tree]
                for _, blob in self.trees[commit.tree].values():
                    kept.blobs[blob] = self.blobs[blob]
        return kept

    def dump_objects(self) -> dict[str, Any]:
        objects: dict[str, Any] = {oid: {"type": "blob", "text": text} for oid, text in self.blobs.items()}
        objects |= {
            oid: {"type": "tree", "entries": {p: list(e) for p, e in t.items()}} for oid, t in self.trees.items()
        }
        objects |= {oid: c.dump() for oid, c in self.commits.items()}
        return dict(sorted(objects.items()))

    def load_objects(self, objects: dict[str, Any]) -> None:
        for oid, item in objects.items():
            if item["type"] == "blob":
                self.blobs[oid] = item["text"]
            elif item["type"] == "tree":
                self.trees[oid] = {path: (mode, sha) for path, (mode, sha) in item["entries"].items()}
            else:
                author, committer = Person(**item["author"]), Person(**item["committer"])
                parents = tuple(item["parents"])
                verified = bool(item.get("verified", False))
                self.commits[oid] = Commit(item["tree"], parents, item["message"], author, committer, verified)
