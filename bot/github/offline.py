"""The offline GitHub: a JSON state file read as observations and written as the effect of actions.

A file on another branch (the published lease readback) comes from the state's `branch_files`,
else from the `git` section the GitHub double keeps (`refs` and `objects`), when either has it.
Each write is made durable on its own, as a real GitHub write would be: a run that stops halfway
leaves exactly the writes it made, never half a file. Opened for a run (`journal=True`), the
adapter appends each write to a journal beside the state file and folds it in once, at the end
(`offline_journal`); otherwise each write rewrites the state file (temporary file, then rename).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from bot.errors import BotError, InputError, OutputError, Problem, validation_problems
from bot.files import probe_atomic, write_atomic
from bot.github import offline_journal
from bot.github.actions import (
    AssignAction,
    CommentAction,
    CreateIssueAction,
    EditCommentAction,
    EditIssueAction,
    PullRequestAction,
    ReactAction,
)
from bot.github.branch_file import BranchFile
from bot.github.markers import markers_in
from bot.github.observed import Observed
from bot.github.offline_journal import Stamp, journal_path, read_folded, stamp
from bot.github.offline_label_link_writes import NativeWrites
from bot.github.port import GitHubError
from bot.json_input import parse_object
from bot.timestamps import utc_stamp


def parse_state(text: str, file: str) -> tuple[dict[str, Any], Observed]:
    """The raw state (kept whole for writing back) and its validated reading.

    Everything the writes rely on is checked here, before the first write: a state that is
    refused is refused whole, never after some writes were saved.
    """
    return checked_state(parse_object(text, file, "the state"), file)


def checked_state(raw: dict[str, Any], file: str) -> tuple[dict[str, Any], Observed]:
    """`parse_state` for a state already read as JSON."""
    try:
        observed = Observed.model_validate(raw)
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file)) from exc
    numbers = {issue.number for issue in observed.issues}
    problems = [
        *_repeated(file, "issues", [i.number for i in observed.issues], "issue #{}"),
        *_repeated(file, "comments", [c.id for c in observed.comments], "comment {}"),
        *_repeated(file, "pulls", [p.number for p in observed.pulls], "pull request #{}"),
        *(
            Problem(file, 0, 0, f"comments.{i}: comment {c.id} is on issue #{c.issue}, which the state does not list")
            for i, c in enumerate(observed.comments)
            if c.issue not in numbers
        ),
    ]
    if problems:
        raise InputError(problems)
    return raw, observed


def branch_file_text(raw: dict[str, Any], where: BranchFile) -> str | None:
    """A file on a branch: from `branch_files`, else through the double's `git` refs and objects."""
    listed = (raw.get("branch_files") or {}).get(where.branch) or {}
    if isinstance(listed, dict) and isinstance(listed.get(where.path), str):
        return str(listed[where.path])
    git: dict[str, Any] = raw["git"] if isinstance(raw.get("git"), dict) else {}
    objects = git.get("objects") or {}
    commit = objects.get((git.get("refs") or {}).get(where.branch)) or {}
    entry = ((objects.get(commit.get("tree")) or {}).get("entries") or {}).get(where.path)
    blob = objects.get(entry[1]) if isinstance(entry, list) and len(entry) == 2 else None
    return str(blob["text"]) if isinstance(blob, dict) and isinstance(blob.get("text"), str) else None


def state_text(observed: Observed) -> str:
    """Observations in the state file's format: a live run's reading, replayable with --offline."""
    return json.dumps(observed.model_dump(mode="json"), indent=2) + "\n"


def _repeated(file: str, key: str, ids: Sequence[int], name: str) -> Iterator[Problem]:
    """An id seen twice would let one record stand for another (a command read as someone else's)."""
    first: dict[int, int] = {}
    for index, ident in enumerate(ids):
        if ident in first:
            yield Problem(file, 0, 0, f"{key}.{index}: {name.format(ident)} repeats {key}.{first[ident]}")
        first.setdefault(ident, index)


class OfflineGitHub(NativeWrites):
    """The GitHub port over a state file (or, without a path, over state held in memory); its writes
    on labels and links are `NativeWrites`."""

    def __init__(
        self,
        raw: dict[str, Any],
        observed: Observed,
        now: dt.datetime,
        path: Path | None = None,
    ) -> None:
        self.raw, self.observed, self.now, self.path = raw, observed, now, path
        self.writes = 0
        self._saved = cast(Stamp | None, None)
        # Journalled: the state text the journal extends, and whether that journal exists yet.
        self._journal: tuple[str, bool] | None = None
        self._markers: tuple[int, dict[object, list[frozenset[tuple[str, str]]]]] | None = None
        self._next_id: tuple[int, int] | None = None
        self._pull_head: str | None = None

    @classmethod
    def open(
        cls, path: Path, now: dt.datetime, branch_files: tuple[BranchFile, ...] = (), *, journal: bool = False
    ) -> OfflineGitHub:
        """The state file (with the writes a stopped run journalled); `branch_files` are the files on
        other branches a run reads. With `journal`, writes are journalled until `fold`."""
        before = stamp(path)
        state_text, raw, journalled = read_folded(path)
        raw, observed = checked_state(raw, f"{path} (with {journal_path(path).name})" if journalled else str(path))
        found = {b: dict(files) for b, files in observed.branch_files.items()}
        for where in branch_files:
            text = branch_file_text(raw, where)
            if text is not None:
                found.setdefault(where.branch, {})[where.path] = text
        github = cls(raw, observed.model_copy(update={"branch_files": found}), now, path)
        github._saved = before if stamp(path) == before else None  # `raw` is the file, unless it changed
        github._journal = (state_text, journalled) if journal else None
        return github

    def fold(self) -> None:
        """The journal written into the state file (one atomic rename) and removed: the run's end.
        A stopped run's journal is folded in even by a run that writes nothing (a dry run): the
        state it stands for is the same, only no longer in two files."""
        if self.path is not None and self._journal is not None and self._journal[1]:
            try:
                self._journal = (self._write_state(self.path), False)
            except OutputError as exc:
                raise GitHubError(f"cannot write the state file: {exc}") from exc
            self._saved = stamp(self.path)

    def observe(self) -> Observed:
        return self.observed

    def published(self, where: BranchFile) -> str | None:
        return branch_file_text(self.raw, where)

    def publish(self, where: BranchFile, text: str, message: str) -> str:
        """The state keeps the file, not a commit: there is no commit id offline."""
        files: dict[str, dict[str, str]] = self.raw.setdefault("branch_files", {})
        files.setdefault(where.branch, {})[where.path] = text
        self._save(("branch_files", where.branch, where.path))
        return ""

    def dispatch(self, event_type: str, payload: dict[str, str]) -> None:
        """Kept in the state's `dispatches`, as GitHub keeps the runs it starts: one per call."""
        record = {"event_type": event_type, "client_payload": payload, "at": utc_stamp(self.now)}
        self._list("dispatches").append(record)
        self._save(self._last("dispatches"))

    def pull_head(self) -> str | None:
        return self._pull_head

    def requests(self) -> dict[str, int]:
        return {}

    def text(self) -> str:
        """`json.dumps(raw, indent=2)`: ASCII escapes, as JSON may carry lone surrogates, which UTF-8 cannot encode."""
        return json.dumps(self.raw, indent=2) + "\n"

    def _save(self, *changed: tuple[str | int, ...]) -> None:
        if self.path is not None:
            try:
                if self._journal is None:
                    self._write_state(self.path)
                else:
                    self._append(self.path, self._journal, changed)
            except OutputError as exc:
                raise GitHubError(f"cannot write the state file: {exc}") from exc
            self._saved = stamp(self.path)
        self.writes += 1

    def _write_state(self, path: Path) -> str:
        text = self.text()
        write_atomic(path, text)
        offline_journal.remove(journal_path(path))  # its writes are in the file now
        return text

    def _append(self, path: Path, journal: tuple[str, bool], changed: tuple[tuple[str | int, ...], ...]) -> None:
        """The write's lines added to the journal, which starts by naming the state text it extends.
        Before the first, the temporary file the fold renames from is made once, so a state file
        that cannot be written fails the first write, not the fold after all of them."""
        text, started = journal
        lines = "".join(offline_journal.entry(self.raw, where) for where in changed)
        if started and self.writes == 0:
            offline_journal.trim_partial(journal_path(path))  # a stopped run's cut-off last write
        if not started:
            probe_atomic(path)
            offline_journal.remove(journal_path(path))  # one already folded into the text, if any
            lines = offline_journal.header(text) + lines
        offline_journal.append(journal_path(path), lines)
        self._journal = (text, True)

    def _unchanged_since_saved(self) -> bool:
        """The files are the ones this adapter read or wrote last (same inode, size, time), so they hold `raw`."""
        return self._saved is not None and self.path is not None and stamp(self.path) == self._saved

    def _list(self, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.raw.setdefault(key, [])
        return items

    def headers_now(self, issue: int) -> list[frozenset[tuple[str, str]]]:
        """The bot's marker headers on `issue` as the state file holds them now (another run may have
        written), oldest first.

        The headers by issue and the next comment id are kept with the comment count they hold for."""
        if self.path is None or self._unchanged_since_saved():
            count = len(self._list("comments"))
            if self._markers is None or self._markers[0] != count:
                self._markers = (count, self._bot_headers(self.raw))
            return list(self._markers[1].get(issue, []))
        try:
            _, raw, _ = read_folded(self.path)
        except BotError as exc:
            raise GitHubError(f"{self.path}: cannot re-read the state file: {exc.user_message()}") from exc
        return self._bot_headers(raw).get(issue, [])

    def _bot_headers(self, raw: dict[str, Any]) -> dict[object, list[frozenset[tuple[str, str]]]]:
        found: dict[object, list[frozenset[tuple[str, str]]]] = {}
        bot = self.observed.bot_login
        mine = [
            c
            for c in raw.get("comments", [])
            if isinstance(c, dict)
            and c.get("user") == bot
            and not (c.get("edited") and c.get("editor") not in (None, bot))
        ]
        for comment in sorted(mine, key=lambda c: int(c["id"]) if isinstance(c.get("id"), int) else 0):
            if isinstance(issue := comment.get("issue"), Hashable):
                found.setdefault(issue, []).append(frozenset(markers_in(str(comment.get("body", "")))))
        return found

    def comment(self, action: CommentAction) -> int:
        comments = self._list("comments")
        if self._next_id is None or self._next_id[0] != len(comments):
            self._next_id = (len(comments), max((int(c["id"]) for c in comments), default=0) + 1)
        comment_id = self._next_id[1]
        comments.append(
            {
                "id": comment_id,
                "issue": action.issue,
                "user": self.observed.bot_login,
                "user_type": "Bot",
                "created_at": utc_stamp(self.now),
                "body": action.body,
            }
        )
        self._next_id = (len(comments), comment_id + 1)
        if self._markers is not None:
            self._markers[1].setdefault(action.issue, []).append(frozenset(markers_in(action.body)))
            self._markers = (len(comments), self._markers[1])
        self._save(self._last("comments"))
        return comment_id

    def edit_comment(self, action: EditCommentAction) -> None:
        """The comment's body replaced, as GitHub marks an edit: `edited`, when (`updated_at`) and by whom
        (`editor`)."""
        comments = self._list("comments")
        index = next((i for i, c in enumerate(comments) if c.get("id") == action.comment_id), None)
        if index is None:
            raise GitHubError(
                f"comment {action.comment_id} on #{action.issue} is gone: it was deleted since the run read it"
            )
        comments[index].update(
            body=action.body, edited=True, updated_at=utc_stamp(self.now), editor=self.observed.bot_login
        )
        self._markers = None  # its header may have changed
        self._save(("comments", index))

    def react(self, action: ReactAction) -> None:
        record = {"comment_id": action.comment_id, "user": self.observed.bot_login, "content": action.content}
        reactions = self._list("reactions")
        if record not in reactions:
            reactions.append(record)
            self._save(self._last("reactions"))

    def assign(self, action: AssignAction) -> None:
        changed = []
        for index, issue in enumerate(self._list("issues")):
            if issue["number"] != action.issue:
                continue
            names = [n for n in issue.get("assignees", []) if n != action.login]
            issue["assignees"] = [*names, action.login] if action.add else names
            changed.append(("issues", index))
        self._save(*changed)

    def create_issue(self, action: CreateIssueAction) -> int:
        """A new issue numbered after every issue and PR, as GitHub numbers both alike; a label the
        repository lacks is created with GitHub's default colour, as GitHub creates it."""
        taken = [int(p["number"]) for p in self._list("pulls")] + [int(i["number"]) for i in self._list("issues")]
        number = max(taken, default=0) + 1
        labels = self._list("labels")
        changed: list[tuple[str | int, ...]] = []
        for name in action.labels:
            if not any(str(label.get("name", "")).casefold() == name.casefold() for label in labels):
                labels.append({"name": name, "color": "ededed", "description": ""})
                changed.append(self._last("labels"))
        self._list("issues").append(
            {
                "number": number,
                "title": action.title,
                "state": "open",
                "labels": list(action.labels),
                "user": self.observed.bot_login,
                "body": action.body,
            }
        )
        self._save(*changed, self._last("issues"))
        return number

    def edit_issue(self, action: EditIssueAction) -> None:
        issue = self._issue(action.issue)
        issue["body"] = action.body
        self._save(self._where("issues", issue))

    def pull_request(self, action: PullRequestAction) -> int | None:
        pulls = self._list("pulls")
        # Read as `Observed` reads them: a pull without `state` is open.
        repository = str(self.raw.get("repository", self.observed.repository)).casefold()
        existing = next(
            (
                p
                for p in pulls
                if p["head"] == action.branch
                and p.get("state", "open") == "open"
                and str(p.get("head_repository") or repository).casefold() == repository
            ),
            None,
        )
        if action.operation == "create" and existing is not None:
            # GitHub refuses a second PR from the same head; like create-pull-request, update it.
            action = action.model_copy(update={"operation": "update", "number": existing["number"]})
        if action.operation == "create":
            taken = [int(p["number"]) for p in pulls] + [int(i["number"]) for i in self._list("issues")]
            action = action.model_copy(update={"number": max(taken, default=0) + 1})
            pulls.append(
                {
                    "number": action.number,
                    "state": "open",
                    "head": action.branch,
                    "title": action.title,
                    "body": action.body,
                    "files": action.files,
                    "user": self.observed.bot_login,
                }
            )
        changed = []
        self._pull_head = None
        for index, pull in enumerate(pulls):
            if pull["number"] != action.number:
                continue
            if action.operation in ("create", "update"):
                # As live: the same files are no new commit, and the branch's head stays where it is.
                same = action.operation == "update" and action.files == pull.get("files") and pull.get("head_sha")
                self._pull_head = str(pull["head_sha"]) if same else self._commit_id(pull.get("head_sha"), action)
                if action.operation == "update" and action.body != pull.get("body", ""):
                    pull["editor"] = self.observed.bot_login  # as GitHub names who last edited a PR's body
                pull.update(title=action.title, body=action.body, files=action.files, head_sha=self._pull_head)
            elif action.operation == "close":
                pull["state"] = "closed"
            changed.append(("pulls", index))
        self._save(*changed)
        return action.number

    def _commit_id(self, parent: object, action: PullRequestAction) -> str:
        """The id of the branch's new head: offline there is no commit, so a digest of what one
        would hold (its parent, files and message), 40 hex digits as a commit id is. No time is in
        it, so a run that resumes after a crash makes the head a clean run makes."""
        tip = self.observed.default_branch
        base = parent if isinstance(parent, str) else (tip.oid if tip is not None else "")
        record = {"parent": base, "files": action.files, "message": action.title}
        return hashlib.sha1(json.dumps(record, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()
