"""The double's optional `git` key in the offline state file: branches, git objects, PR heads.

Everything else in the state file is the offline format (docs/reference.md, "Offline state
file"), read and written exactly as `bot/github/offline.py` does. The `git` key is optional, and so is each of its keys:

```json
"git": {
  "default_branch": "main",
  "files": {"config/snapshot.yaml": "…", "docs/current-constraints.md": "…"},
  "derived": "<commit oid>",
  "refs": {"perfbot/update": "<commit oid>"},
  "pulls": {"7": {"base": "main", "closed_head": null, "force_pushes": []}},
  "objects": {
    "<oid>": {"type": "blob", "text": "…"},
    "<oid>": {"type": "tree", "entries": {"config/snapshot.yaml": ["100644", "<blob oid>"]}},
    "<oid>": {"type": "commit", "tree": "<oid>", "parents": ["<oid>"], "message": "…",
              "author": {"name": "…", "email": "…", "date": "2026-08-27T23:00:00Z", "login": "perfbot[bot]"},
              "committer": {"…": "as author"}, "verified": true}
  }
}
```

- The default branch's files are `files` when given, else the files `--repo-dir` holds at the paths
  its `config/perfbot.yaml` names (the config itself, the snapshot, the page and the lease file).
  They become a commit (`derived`) whose oid follows from their content; when they change, the next
  derived commit has the previous one as parent, as if someone had pushed to the default branch.
- `refs` names branches. The default branch appears there only once a write moved it (a merge, a
  push, `update_ref`, `createCommitOnBranch`); from then on it no longer follows `files`/`--repo-dir`.
- `pulls` holds what the offline `pulls` records lack: each PR's base branch, the head a closed
  PR had when it was closed (GitHub refuses to reopen it when its branch no longer descends from it),
  and the force-pushes of its branch while it was open (`force_pushes`: before, after, at, actor),
  GitHub's `HeadRefForcePushedEvent`s, whose commits stay reachable.
- A branch of the state's `branch_files` (files on other branches, such as the published lease
  readback) without a ref gets one: a commit by the bot with no parent holding those files. When
  the branch moves, its `branch_files` entry follows it, so the offline adapter reads the same.
- An open PR record without a branch gets one: a commit by the bot on the default branch with the
  record's `files` (and, when `foreign_commits` is true, an empty commit by a person on top).
- The double writes the `git` key only once the git model differs from what the rest of the state
  implies, and then keeps only the objects that branches, derived commits and closed PRs reach.
- Trees are flat (full path -> mode and blob oid); their oids are those of git's nested trees.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BlobRecord(Strict):
    type: Literal["blob"]
    text: str


class TreeRecord(Strict):
    type: Literal["tree"]
    entries: dict[str, tuple[str, str]]


class PersonRecord(Strict):
    name: str
    email: str
    date: str
    login: str | None = None


class CommitRecord(Strict):
    type: Literal["commit"]
    tree: str
    parents: tuple[str, ...] = ()
    message: str
    author: PersonRecord
    committer: PersonRecord
    verified: bool = False


class ForcePush(Strict):
    """A push that moved an open PR's branch to a commit not descending from its head: GitHub's
    `HeadRefForcePushedEvent` on the PR's timeline, which keeps the commit it took off (`before`)."""

    before: str
    after: str
    at: str
    actor: str | None = None


class PullGit(Strict):
    base: str
    closed_head: str | None = None
    force_pushes: tuple[ForcePush, ...] = ()


GitObjectRecord = Annotated[BlobRecord | TreeRecord | CommitRecord, Field(discriminator="type")]


class GitSection(Strict):
    default_branch: str = "main"
    files: dict[str, str] | None = None
    derived: str | None = None
    refs: dict[str, str] = {}
    pulls: dict[str, PullGit] = {}
    objects: dict[str, GitObjectRecord] = {}
