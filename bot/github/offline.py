"""The offline adapter: a state file stands in for GitHub; a run's writes are journaled, folded in once.

**State.** The offline GitHub: a JSON state file read as observations and written as the effect of
actions.

A file on another branch (the published lease readback) comes from the state's `branch_files`,
else from the `git` section the GitHub double keeps (`refs` and `objects`), when either has it.
Each write is made durable on its own, as a real GitHub write would be: a run that stops halfway
leaves exactly the writes it made, never half a file. Opened for a run (`journal=True`), the
adapter appends each write to a journal beside the state file and folds it in once, at the end
(*Journal*, below); otherwise each write rewrites the state file (temporary file, then rename).

**Label and link writes.** The offline adapter's writes on labels and links, made to the state file
as GitHub makes them.

A repeated write changes nothing, as on GitHub: adding a present label or link, removing an
absent one. Each change of labels is recorded as GitHub's timeline records it.

**Journal.** The offline adapter's journal: a run's writes appended one line each, folded into the
state once.

Rewriting a 10 MB state file after each of a run's 50 writes cost seconds, most of a run at 100×
the seed. In a run (`OfflineGitHub.open(..., journal=True)`) each write instead appends one line
to `<state>.journal` beside the state file, and the run folds the journal into the state file at
its end (one atomic rename) and removes it. A run that stops halfway leaves the state file as it
was and the journal of exactly the writes it made; whoever reads the state next folds them in
first, so no write is lost and none is made twice.

The first line names the state text the journal extends (its SHA-256). Each further line sets one
value at a path (a top-level key, then dict keys or a list index; the index equal to the list's
length appends), so folding a journal twice changes nothing: a run stopped after writing the
folded state and before removing the journal left a journal that is already in. A journal over a
state file that changed in any other way is refused, never applied to the wrong records. A last
line without its line break is a write that never finished (the process stopped while appending)
and is left out, as a GitHub request cut off before it landed.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import ValidationError

from bot.errors import BotError, InputError, OutputError, Problem, input_error, validation_problems
from bot.files import MAX_STATE_BYTES, probe_atomic, read_text, signature, write_atomic
from bot.github.actions import (
    METHODS,
    AssignAction,
    CommentAction,
    CreateIssueAction,
    CreateLabelAction,
    EditCommentAction,
    EditIssueAction,
    LabelAction,
    LinkAction,
    MergeFacts,
    MergeOutcome,
    PullRequestAction,
    ReactAction,
    choose,
)
from bot.github.branch_file import BranchFile
from bot.github.markers import markers_in
from bot.github.observed import NO_BRANCH, UNASSIGNED_KEPT, Observed
from bot.github.port import GitHubError, NativeRefused
from bot.issue_refs import IssueKey, issue_json, issue_text, number_of, parse_issue, repository_of
from bot.json_input import JsonProblem, loads, parse_object
from bot.json_text import indented
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
    numbers = {issue.key for issue in observed.issues}
    problems = [
        *_repeated(file, "issues", [issue_text(i.key) for i in observed.issues], "issue {}"),
        *_repeated(file, "comments", [c.id for c in observed.comments], "comment {}"),
        *_repeated(file, "pulls", [p.number for p in observed.pulls], "pull request #{}"),
        *(
            Problem(
                file,
                0,
                0,
                f"comments.{i}: comment {c.id} is on issue {issue_text(c.issue)}, which the state does not list",
            )
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
    return indented(observed.model_dump(mode="json")) + "\n"


def _repeated(file: str, key: str, ids: Sequence[int | str], name: str) -> Iterator[Problem]:
    """An id seen twice would let one record stand for another (a command read as someone else's)."""
    first: dict[int | str, int] = {}
    for index, ident in enumerate(ids):
        if ident in first:
            yield Problem(file, 0, 0, f"{key}.{index}: {name.format(ident)} repeats {key}.{first[ident]}")
        first.setdefault(ident, index)


T = TypeVar("T")


class OfflineNativeWrites(ABC):
    """Mixed into `OfflineGitHub`, which holds the state and saves it."""

    observed: Observed
    now: dt.datetime
    raw: dict[str, Any]

    @abstractmethod
    def _list(self, key: str) -> list[dict[str, Any]]:
        """The state's list under `key`, made when absent."""

    @abstractmethod
    def _save(self, *changed: tuple[str | int, ...]) -> None:
        """Make the state durable (one write); `changed` are the paths of the values it set."""

    def _where(self, key: str, record: dict[str, Any]) -> tuple[str, int]:
        """The path of `record` in the state's list under `key`."""
        return key, next(i for i, item in enumerate(self._list(key)) if item is record)

    def _last(self, key: str) -> tuple[str, int]:
        """The path of the record just appended to the list under `key`."""
        return key, len(self._list(key)) - 1

    def _issue(self, key: IssueKey) -> dict[str, Any]:
        number, repository = number_of(key), (repository_of(key) or "").casefold()
        found = next(
            (
                i
                for i in self._list("issues")
                if i["number"] == number and str(i.get("repository") or "").casefold() == repository
            ),
            None,
        )
        if found is None:
            raise GitHubError(f"issue {issue_text(key)} is not in the state file")
        return found

    def add_labels(self, actions: Sequence[LabelAction]) -> None:
        """Labels added to one issue together, as GitHub's one request adds them: in order."""
        for action in actions:
            self.label(action)

    def label(self, action: LabelAction) -> None:
        """Labels change as on GitHub, and each change is recorded as GitHub's timeline records it."""
        issue = self._issue(action.issue)
        name = self._relabelled(issue.setdefault("labels", []), action.name, action.add)
        if name is None:
            return
        self._list("label_events").append(
            {
                "issue": issue_json(action.issue),
                "label": name,
                "action": "labeled" if action.add else "unlabeled",
                "actor": self.observed.bot_login,
                "created_at": utc_stamp(self.now),
            }
        )
        self._save(self._where("issues", issue), self._last("label_events"))

    def _relabelled(self, names: list[str], name: str, add: bool) -> str | None:
        """Add or remove a label as GitHub does, whatever the case of `name`: an added label takes
        the repository label's spelling. The name changed, or None when nothing changed."""
        present = next((n for n in names if n.casefold() == name.casefold()), None)
        if (present is not None) == add:
            return None
        if present is not None:
            names.remove(present)
            return present
        labels = self.raw.get("labels") or []
        known = next((str(label["name"]) for label in labels if _same(label.get("name"), name)), name)
        names.append(known)
        return known

    def create_label(self, action: CreateLabelAction) -> None:
        """A label made in the bot's repository, or in another one the state holds (`repositories`)."""
        if action.repository is not None:
            self._create_label_elsewhere(action, action.repository)
            return
        labels = self._list("labels")
        if any(_same(label["name"], action.name) for label in labels):
            return
        labels.append({"name": action.name, "color": action.color, "description": action.description})
        self._save(self._last("labels"))

    def _create_label_elsewhere(self, action: CreateLabelAction, repository: str) -> None:
        held = self.raw.setdefault("repositories", {})
        name = next((k for k in held if k.casefold() == repository.casefold()), repository)
        labels = held.setdefault(name, {}).setdefault("labels", [])
        if any(_same(label["name"], action.name) for label in labels):
            return
        labels.append({"name": action.name, "color": action.color, "description": action.description})
        self._save(("repositories", name))

    def link(self, action: LinkAction) -> None:
        issue = self._issue(action.issue)
        self._issue(action.target)
        if action.relation == "blocked_by":
            if not _toggled(issue.setdefault("blocked_by", []), issue_json(action.target), action.add):
                return
        elif action.add:
            if _parent(issue) == action.target:
                return
            if issue.get("parent") is not None:
                # GitHub allows one parent; moving a sub-issue needs `replace_parent`, which perfbot never sends.
                raise NativeRefused(
                    f"{issue_text(action.issue)} is already a sub-issue of {issue_text(parse_issue(issue['parent']))}"
                )
            issue["parent"] = issue_json(action.target)
        else:
            if _parent(issue) != action.target:
                return
            issue["parent"] = None
        self._save(self._where("issues", issue))


def _parent(issue: dict[str, Any]) -> IssueKey | None:
    parent = issue.get("parent")
    return None if parent is None else parse_issue(parent)


def _same(label: object, name: str) -> bool:
    """GitHub's label names are case-insensitive."""
    return isinstance(label, str) and label.casefold() == name.casefold()


def _toggled(items: list[T], item: T, add: bool) -> bool:
    """Add `item` to `items` or remove it; False when it already was (or was not) there."""
    if (item in items) == add:
        return False
    if add:
        items.append(item)
    else:
        items.remove(item)
    return True


class OfflineGitHub(OfflineNativeWrites):
    """The GitHub port over a state file (or, without a path, over state held in memory); its writes
    on labels and links are `OfflineNativeWrites`."""

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
        self._markers: tuple[int, dict[IssueKey, list[frozenset[tuple[str, str]]]]] | None = None
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
        # The branch's head offline is the open PR's `head_sha`, which this adapter's writes compare.
        github = cls(raw, observed.model_copy(update={"branch_files": found, "branch_head": None}), now, path)
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
        """`json.dumps(raw, indent=2)` (written by `json_text`): ASCII escapes, as JSON may carry lone
        surrogates, which UTF-8 cannot encode."""
        return indented(self.raw) + "\n"

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
        remove(journal_path(path))  # its writes are in the file now
        return text

    def _append(self, path: Path, journal: tuple[str, bool], changed: tuple[tuple[str | int, ...], ...]) -> None:
        """The write's lines added to the journal, which starts by naming the state text it extends.
        Before the first, the temporary file the fold renames from is made once, so a state file
        that cannot be written fails the first write, not the fold after all of them."""
        text, started = journal
        lines = "".join(entry(self.raw, where) for where in changed)
        if started and self.writes == 0:
            trim_partial(journal_path(path))  # a stopped run's cut-off last write
        if not started:
            probe_atomic(path)
            remove(journal_path(path))  # one already folded into the text, if any
            lines = header(text) + lines
        append(journal_path(path), lines)
        self._journal = (text, True)

    def _unchanged_since_saved(self) -> bool:
        """The files are the ones this adapter read or wrote last (same inode, size, time), so they hold `raw`."""
        return self._saved is not None and self.path is not None and stamp(self.path) == self._saved

    def _list(self, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.raw.setdefault(key, [])
        return items

    def headers_now(self, issue: IssueKey) -> list[frozenset[tuple[str, str]]]:
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

    def _bot_headers(self, raw: dict[str, Any]) -> dict[IssueKey, list[frozenset[tuple[str, str]]]]:
        found: dict[IssueKey, list[frozenset[tuple[str, str]]]] = {}
        bot = self.observed.bot_login
        mine = [
            c
            for c in raw.get("comments", [])
            if isinstance(c, dict)
            and c.get("user") == bot
            and not (c.get("edited") and c.get("editor") not in (None, bot))
        ]
        for comment in sorted(mine, key=lambda c: int(c["id"]) if isinstance(c.get("id"), int) else 0):
            try:
                issue = parse_issue(comment.get("issue"))
            except ValueError:
                continue
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
                "issue": issue_json(action.issue),
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
                f"comment {action.comment_id} on {issue_text(action.issue)} is gone: "
                "it was deleted since the run read it"
            )
        comments[index].update(
            body=action.body, edited=True, updated_at=utc_stamp(self.now), editor=self.observed.bot_login
        )
        self._markers = None  # its header may have changed
        self._save(("comments", index))

    def react(self, action: ReactAction) -> None:
        record = {"comment_id": action.comment_id, "user": self.observed.bot_login, "content": action.content}
        reactions = self._list("reactions")
        if action.remove:
            if record in reactions:
                reactions.remove(record)
                self._save(("reactions",))
            return
        if record not in reactions:
            reactions.append(record)
            self._save(self._last("reactions"))

    def assign(self, action: AssignAction) -> None:
        issue = self._issue(action.issue)
        names = [n for n in issue.get("assignees", []) if n != action.login]
        if not action.add and action.login in issue.get("assignees", []):  # as GitHub's timeline records it
            event = {"login": action.login, "actor": self.observed.bot_login, "created_at": utc_stamp(self.now)}
            issue["unassigned"] = [*issue.get("unassigned", []), event][-UNASSIGNED_KEPT:]
        issue["assignees"] = [*names, action.login] if action.add else names
        self._save(self._where("issues", issue))

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
        existing = self._open_pull(action)
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
                    **_opened_with(action),
                }
            )
        changed: list[tuple[str | int, ...]] = []
        self._pull_head = None
        for index, pull in enumerate(pulls):
            if pull["number"] != action.number:
                continue
            if action.operation in ("create", "update"):
                # As live: the same files are no new commit, and the branch's head stays where it is.
                same = action.operation == "update" and action.files == pull.get("files") and pull.get("head_sha")
                self._pull_head = str(pull["head_sha"]) if same else self._commit_id(pull.get("head_sha"), action)
                if action.operation == "update" and action.body != pull.get("body", "") and "editor" in pull:
                    # GitHub names who last edited a PR's body: perfbot's edit after a person's is perfbot's
                    # again (no `editor` at all already says that nobody but perfbot edited it).
                    pull["editor"] = self.observed.bot_login
                pull.update(title=action.title, body=action.body, files=action.files, head_sha=self._pull_head)
                if not same:  # the new commit's message keeps the records of quiet answers
                    pull["message"] = action.commit_message(action.title)
            elif action.operation == "close":
                pull["state"] = "closed"
            changed.append(("pulls", index))
        if self._pull_head is not None:
            self.raw.setdefault("branches", {})[action.branch] = {"oid": self._pull_head, "ours": True}
            changed.append(("branches",))
        branches = self.raw.get("branches") or {}
        if action.delete_head is not None and (branches.get(action.branch) or {}).get("oid") == action.delete_head:
            del branches[action.branch]  # as live, only while the branch is where the run read it
            changed.append(("branches",))
        self._save(*changed)
        return action.number

    def _open_pull(self, action: PullRequestAction) -> dict[str, Any] | None:
        """The open PR from the action's branch (read as `Observed` reads them: a pull without `state`
        is open), once the branch is where the action was decided; as live, a run decided on an older
        branch would write over what a later run recorded."""
        repository = str(self.raw.get("repository", self.observed.repository)).casefold()
        existing = next(
            (
                p
                for p in self._list("pulls")
                if p["head"] == action.branch
                and p.get("state", "open") == "open"
                and str(p.get("head_repository") or repository).casefold() == repository
            ),
            None,
        )
        head = NO_BRANCH if existing is None else existing.get("head_sha") or f"pull-{existing['number']}"
        if action.expected_head is not None and action.expected_head != head:
            raise GitHubError(
                f"branch {action.branch} moved while perfbot ran; nothing was moved, and the next run starts over "
                "from there"
            )
        return existing

    def merge_pull(self, number: int) -> MergeOutcome:
        """`merge: auto` under the state's `merge_rules`: a PR GitHub would merge now is recorded
        `merged` (the checkout's files are not written: a person pulls, as after any merge), one that
        waits for required checks gets `auto_merge` (its method), else nothing changes."""
        pulls = self._list("pulls")
        index, pull = next((i, p) for i, p in enumerate(pulls) if p["number"] == number)
        rules = self.observed.merge_rules
        facts = MergeFacts(
            state="BLOCKED" if rules.requires_checks else "CLEAN",
            auto_merge_allowed=rules.auto_merge_allowed,
            methods=tuple(method for method in METHODS if method in rules.methods),
            armed=pull.get("auto_merge") is not None,
        )
        step = choose(facts, reads_left=0)
        if step.kind == "merge":
            pull["state"] = "merged"
            self._save(("pulls", index))
            return MergeOutcome(status="merged", pull=number, method=step.method)
        if step.kind == "auto":
            pull["auto_merge"] = step.method
            self._save(("pulls", index))
            return MergeOutcome(status="auto-merge", pull=number, method=step.method)
        return MergeOutcome(status="not-merged", pull=number, line=step.line)

    def _commit_id(self, parent: object, action: PullRequestAction) -> str:
        """The id of the branch's new head: offline there is no commit, so a digest of what one
        would hold (its parent, files and message), 40 hex digits as a commit id is. No time is in
        it, so a run that resumes after a crash makes the head a clean run makes."""
        tip = self.observed.default_branch
        base = parent if isinstance(parent, str) else (tip.oid if tip is not None else "")
        record = {"parent": base, "files": action.files, "message": action.title}
        return hashlib.sha1(json.dumps(record, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


Path_ = Sequence[str | int]


def journal_path(state: Path) -> Path:
    """Beside the state file and named after it, so a copy of `state*` carries it along."""
    return state.with_name(state.name + ".journal")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def header(state_text: str) -> str:
    return json.dumps({"extends": digest(state_text)}) + "\n"


def entry(raw: dict[str, Any], path: Path_) -> str:
    """The line that sets `path` to what `raw` holds there now."""
    value: Any = raw
    for part in path:
        value = value[part]
    return json.dumps({"set": list(path), "value": value}) + "\n"


def read_folded(path: Path) -> tuple[str, dict[str, Any], bool]:
    """The state file's text, its raw state with the journal's writes folded in, and whether a
    journal that extends the text is there."""
    text = read_text(path, MAX_STATE_BYTES)
    raw, journalled = fold(parse_object(text, str(path), "the state"), text, journal_path(path))
    return text, raw, journalled


# The state file's and its journal's signatures: both unchanged, the two hold what was read or written.
Stamp = tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]


def stamp(path: Path) -> Stamp:
    return signature(path), signature(journal_path(path))


def append(journal: Path, lines: str) -> None:
    """Add whole lines; ASCII only (`json.dumps` escapes the rest), so no write splits a character."""
    try:
        with journal.open("a", encoding="ascii", newline="") as handle:
            handle.write(lines)
    except OSError as exc:
        raise OutputError(f"{journal}: cannot append: {exc.strerror or exc}") from exc


def fold(raw: dict[str, Any], state_text: str, journal: Path) -> tuple[dict[str, Any], bool]:
    """`raw` (read from `state_text`) with the journal's writes in, and whether the journal still
    extends that text (False: absent, or already folded into it)."""
    if not journal.exists():
        return raw, False
    lines = read_text(journal, MAX_STATE_BYTES).split("\n")
    complete = lines[:-1]  # the part after the last line break is a write cut off halfway, or ""
    if not complete:
        return raw, False
    items = [_line(line, number, journal) for number, line in enumerate(complete, start=1)]
    extends = items[0].get("extends") if set(items[0]) == {"extends"} else None
    if not isinstance(extends, str):
        raise input_error(str(journal), 'not a journal of state writes: the first line is not {"extends": ...}', 1)
    entries = [_write(item, number, journal) for number, item in enumerate(items[1:], start=2)]
    if extends == digest(state_text):
        return _applied(raw, entries, journal), True
    message = "holds writes over a different state file (it changed after a run stopped); remove one of them"
    try:
        if _applied(copy.deepcopy(raw), entries, journal) == raw:
            return raw, False  # folded already; the run stopped before removing the journal
    except InputError:
        pass  # its writes do not even fit the state: the same answer
    raise input_error(str(journal), message)


def _line(line: str, number: int, journal: Path) -> dict[str, Any]:
    try:
        item = loads(line)
    except JsonProblem as problem:
        raise input_error(str(journal), f"not a journal of state writes: {problem.reason}", number) from problem
    if not isinstance(item, dict):
        raise input_error(str(journal), "not a journal of state writes: a line is not a JSON object", number)
    return item


def _write(item: dict[str, Any], number: int, journal: Path) -> tuple[list[str | int], Any]:
    """(path, value) of a write line: `{"set": [key or index, ...], "value": ...}` and nothing else."""
    path = item.get("set")
    if set(item) != {"set", "value"} or not isinstance(path, list) or not path:
        expected = 'not a write of the journal: expected {"set": [key, ...], "value": ...}'
        raise input_error(str(journal), expected, number)
    if not all(type(part) in (str, int) for part in path):  # `bool` is an `int`, but no key or index
        raise input_error(str(journal), "not a write of the journal: a key or index is not text or a number", number)
    return path, item["value"]


def _applied(raw: dict[str, Any], entries: list[tuple[list[str | int], Any]], journal: Path) -> dict[str, Any]:
    for number, (path, value) in enumerate(entries, start=2):
        try:
            _set(raw, path, value)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise input_error(str(journal), f"a write that does not fit the state: {exc}", number) from exc
    return raw


def _set(raw: dict[str, Any], path: list[str | int], value: Any) -> None:
    node: Any = raw
    for depth, part in enumerate(path[:-1]):
        made: Any = [] if isinstance(path[depth + 1], int) else {}
        node = node.setdefault(part, made) if isinstance(node, dict) else node[part]
    last = path[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or not 0 <= last <= len(node):
            raise IndexError(f"no item {last} to set in a list of {len(node)}")
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise TypeError(f"{type(node).__name__} at {path[:-1]}")


def trim_partial(journal: Path) -> None:
    """Cut a last line that has no line break (a write a stopped run never finished), so the next
    write starts a line of its own instead of running on from the cut-off text."""
    try:
        with journal.open("r+b") as handle:
            data = handle.read()
            if data and not data.endswith(b"\n"):
                handle.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{journal}: cannot trim: {exc.strerror or exc}") from exc


def remove(journal: Path) -> None:
    try:
        journal.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"{journal}: cannot remove: {exc.strerror or exc}") from exc


def _opened_with(action: PullRequestAction) -> dict[str, object]:
    """What a new PR starts with, as GitHub keeps it (each only when set): its labels, the logins
    and teams asked to review it, and whether it is a draft."""
    kept = {
        "labels": list(action.labels),
        "requested_reviewers": list(action.reviewers),
        "requested_teams": list(action.team_reviewers),
        "draft": action.draft,
    }
    return {key: value for key, value in kept.items() if value}
