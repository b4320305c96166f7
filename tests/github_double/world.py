"""The double's world: the offline state (issues, comments, reactions, PRs) plus its git model.

Writes to comments, reactions, assignees and PR records go through `OfflineGitHub`'s own methods,
so the state changes exactly as an offline run would change it; the git model is kept beside it
under the state's optional `git` key (see `state_format`).
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from bot.errors import InputError, Problem
from bot.files import MAX_STATE_BYTES, read_text, write_atomic
from bot.github.observed import Observed
from bot.github.offline import OfflineGitHub, parse_state
from bot.issue_refs import IssueKey, in_repository
from bot.json_text import indented
from tests.github_double import branches
from tests.github_double.activity import Activity, sidecar
from tests.github_double.gitstore import GitStore
from tests.github_double.lag import Lag
from tests.github_double.record_index import RecordIndex, issue_named
from tests.github_double.state_format import GitSection

T = TypeVar("T")
# The double keeps its git objects in the state file besides what perfbot's state holds: at 100
# times the seed with a PR open, 30 MB.
DOUBLE_STATE_BYTES = 4 * MAX_STATE_BYTES
Clock = Callable[[], dt.datetime]


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class World:
    """One repository as the double holds it; not thread-safe (the double serialises requests)."""

    def __init__(
        self, raw: dict[str, Any], *, path: Path | None, repo_dir: Path, clock: Clock, parsed: bool = False
    ) -> None:
        self.path, self.repo_dir, self.clock = path, repo_dir, clock
        self.raw: dict[str, Any] = {}
        self.git = GitStore()
        self.default_branch = "main"
        self.pinned = False  # the default branch was moved by a write, so it no longer follows the files
        self.derived: str | None = None
        self.pull_git: dict[int, dict[str, Any]] = {}
        self.source_files: dict[str, str] | None = None
        self.git_written = False
        self._stamp: tuple[int, int] | None = None
        self.activity = Activity(sidecar(path), clock)
        self.lag = Lag()
        # Reads of a PR's merge state that answer UNKNOWN (GitHub computing mergeability): a fault.
        self.unknown_merge_reads = 0
        self._index: RecordIndex | None = None
        self.load(raw, parsed=parsed)

    @classmethod
    def open(cls, path: Path, *, repo_dir: Path, clock: Clock) -> World:
        raw = parse_state(read_text(path, DOUBLE_STATE_BYTES), str(path))[0]
        world = cls(raw, path=path, repo_dir=repo_dir, clock=clock, parsed=True)
        world._stamp = world._file_stamp()
        return world

    # --- the state ------------------------------------------------------------------------
    def load(self, raw: dict[str, Any], *, parsed: bool = False) -> None:
        """Replace the whole world by `raw` (validated as `perfbot reconcile --offline` does), or by
        what `parse_state` just read from the state file (`parsed`: valid, and no one else's)."""
        name = str(self.path or "the state")
        self.forget_indexes()
        if not parsed:
            raw = copy.deepcopy(raw)
            parse_state(json.dumps(raw), name)
        try:
            section = GitSection.model_validate(raw.get("git", {}))
        except ValidationError as exc:
            raise InputError(
                [Problem(name, 0, 0, f"git.{'.'.join(map(str, e['loc']))}: {e['msg']}") for e in exc.errors()]
            ) from exc
        self.raw = raw
        self.git = GitStore(refs=dict(section.refs))
        self.git.load_objects({oid: record.model_dump() for oid, record in section.objects.items()})
        self.default_branch = section.default_branch
        self.pinned = section.default_branch in section.refs
        self.derived = section.derived
        self.source_files = section.files
        self.pull_git = {int(n): p.model_dump() for n, p in section.pulls.items()}
        self.git_written = "git" in raw
        branches.derive_default(self)
        branches.synthesize_pulls(self)
        branches.synthesize_branch_files(self)

    def refresh(self) -> None:
        """Pick up edits made to the state file by someone else, and the working tree's files."""
        if self.path is not None and self._file_stamp() != self._stamp:
            known = self.git
            self.load(parse_state(read_text(self.path, DOUBLE_STATE_BYTES), str(self.path))[0], parsed=True)
            # Objects are content-addressed: keep those made since (a tree awaiting its commit).
            self.git.blobs |= known.blobs
            self.git.trees |= known.trees
            self.git.commits |= known.commits
            self._stamp = self._file_stamp()
        else:
            branches.derive_default(self)

    def notice(self) -> None:
        """Date the issues that changed since the last look (their `updatedAt`)."""
        self.activity.notice(self.raw)

    def snapshot(self) -> dict[str, Any]:
        """A copy of the current state, as the state file would hold it."""
        self._sync_git()
        return copy.deepcopy(self.raw)

    def save(self) -> None:
        self.forget_indexes()
        self._sync_git()
        if self.path is not None:
            write_atomic(self.path, indented(self.raw) + "\n")  # as a write saves
            self._stamp = self._file_stamp()

    def apply(self, viewer: str, write: Callable[[OfflineGitHub], T]) -> T:
        """Run one of `OfflineGitHub`'s writes as `viewer`; it saves the state file itself."""
        self._sync_git()
        observed = Observed(repository=self.repository, bot_login=viewer)
        offline = OfflineGitHub(self.raw, observed, self.clock(), self.path)
        try:
            result = write(offline)
        finally:
            self.forget_indexes()
        self._stamp = self._file_stamp()
        return result

    def index(self) -> RecordIndex:
        """The state's records indexed for reading (`record_index`): kept until the next write or
        `forget_indexes`, which each GraphQL request starts with."""
        if self._index is None:
            self._index = RecordIndex(self)
        return self._index

    def forget_indexes(self) -> None:
        self._index = None

    def git_changed(self) -> None:
        self.git_written = True

    def _sync_git(self) -> None:
        if not self.git_written:
            return
        refs = {b: oid for b, oid in self.git.refs.items() if b != self.default_branch or self.pinned}
        tips = [*refs.values(), *([self.derived] if self.derived else [])]
        tips += [str(p["closed_head"]) for p in self.pull_git.values() if p.get("closed_head")]
        tips += [str(f["before"]) for p in self.pull_git.values() for f in p.get("force_pushes") or ()]
        section: dict[str, Any] = {"default_branch": self.default_branch}
        if self.source_files is not None:
            section["files"] = self.source_files
        if self.derived:
            section["derived"] = self.derived
        section["refs"] = dict(sorted(refs.items()))
        section["pulls"] = {str(n): _written(self.pull_git[n]) for n in sorted(self.pull_git)}
        section["objects"] = self.git.reachable(tips).dump_objects()
        self.raw["git"] = section

    def _file_stamp(self) -> tuple[int, int] | None:
        if self.path is None or not self.path.exists():
            return None
        stat = self.path.stat()
        return stat.st_mtime_ns, stat.st_size

    # --- reading ------------------------------------------------------------------------------
    @property
    def repository(self) -> str:
        return str(self.raw.get("repository", "owner/name"))

    @property
    def owner(self) -> str:
        return self.repository.split("/")[0]

    @property
    def bot_login(self) -> str:
        return str(self.raw.get("bot_login", "perfbot[bot]"))

    def now(self) -> str:
        return iso(self.clock())

    def records(self, key: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.raw.get(key, [])
        return found

    def listed(self, key: str) -> list[dict[str, Any]]:
        """The records a list shows (`comments`, `pulls`): without those made too recently (`lag`)."""
        return self.lag.shown(key, self.records(key))

    def issue(self, number: int, repository: str | None = None) -> dict[str, Any] | None:
        """Issue `number` of the state's own repository, or of another one it holds issues of."""
        where = self.other(repository)
        return next(
            (i for i in self.records("issues") if i["number"] == number and self.other(i.get("repository")) == where),
            None,
        )

    def issue_by(self, reference: object) -> dict[str, Any] | None:
        """The issue a state value names: a number here, `owner/repo#N` elsewhere."""
        named = issue_named(reference)
        return None if named is None else self.issue(*named)

    def key(self, record: dict[str, Any]) -> IssueKey:
        """How perfbot names an issue record: its number here, `owner/repo#N` elsewhere."""
        where = self.other(record.get("repository"))
        return in_repository(None if where is None else str(record["repository"]), int(record["number"]))

    def other(self, repository: object) -> str | None:
        """Another repository's name as the state spells it (case folded); None for the state's own."""
        if not repository or str(repository).casefold() == self.repository.casefold():
            return None
        return str(repository).casefold()

    def elsewhere(self, repository: str) -> dict[str, Any] | None:
        """Another repository the state holds (`repositories`): what the bot's token may do there
        (`token`: write, read or none), each login's permission there, its labels."""
        found = self.raw.get("repositories") or {}
        return next((v for k, v in found.items() if k.casefold() == repository.casefold()), None)

    def reach(self, repository: str, viewer: str) -> str:
        """What `viewer` may do in another repository: the bot by its token's access; a person by
        their permission there (read or more reads; triage or more writes issues)."""
        found = self.elsewhere(repository)
        if found is None:
            return "none"
        if viewer == self.bot_login:
            return str(found.get("token", "write"))
        role = str((found.get("permissions") or {}).get(viewer, "none"))
        return "write" if role in ("triage", "write", "maintain", "admin") else "read" if role == "read" else "none"

    def comment(self, comment_id: int) -> dict[str, Any] | None:
        return next((c for c in self.records("comments") if c["id"] == comment_id), None)

    def pull(self, number: int) -> dict[str, Any] | None:
        return next((p for p in self.records("pulls") if p["number"] == number), None)

    def permission(self, login: str, repository: str | None = None) -> str:
        if repository is not None:
            return str(((self.elsewhere(repository) or {}).get("permissions") or {}).get(login, "none"))
        return str(self.raw.get("permissions", {}).get(login, "none"))

    def tip(self, branch: str | None = None) -> str | None:
        return self.git.refs.get(branch or self.default_branch)

    def pull_base(self, number: int) -> str:
        return str(self.pull_git.get(number, {}).get("base") or self.default_branch)

    def fork_of(self, pull: dict[str, Any]) -> str | None:
        """The fork (`OWNER/NAME`) a PR's branch is in; None for a branch of this repository."""
        fork = pull.get("head_repository")
        return None if fork is None or str(fork).casefold() == self.repository.casefold() else str(fork)

    def pull_head(self, pull: dict[str, Any]) -> str | None:
        """The head commit: the branch tip while open, the tip it had when it was closed after; a
        fork's PR has a commit of its own (the double keeps no fork's history)."""
        fork = self.fork_of(pull)
        if fork is not None:
            return str(pull.get("head_oid") or hashlib.sha1(f"{fork}:{pull['number']}".encode()).hexdigest())
        closed = self.pull_git.get(pull["number"], {}).get("closed_head")
        if pull["state"] != "open" and closed:
            return str(closed)
        return self.tip(pull["head"]) or self.tip()


def _written(pull: dict[str, Any]) -> dict[str, Any]:
    """A PR's git record as the state file keeps it: `force_pushes` only once there is one."""
    return {key: value for key, value in pull.items() if key != "force_pushes" or value}
