"""The offline GitHub: a JSON state file read as observations and written as the effect of actions.

Each write is made durable on its own (temporary file, then rename), as a real GitHub write
would be: a run that stops halfway leaves exactly the writes it made, never half a file.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.errors import InputError, Problem, validation_problems
from bot.files import parse_object, read_text, write_atomic
from bot.github.observed import Observed
from bot.github.port import GitHubError, NativeRefused
from bot.reconcile.actions import (
    AssignAction,
    CommentAction,
    CreateLabelAction,
    LabelAction,
    LinkAction,
    PullRequestAction,
    ReactAction,
)
from bot.timestamps import utc_stamp


def parse_state(text: str, file: str) -> tuple[dict[str, Any], Observed]:
    """The raw state (kept whole for writing back) and its validated reading."""
    raw = parse_object(text, file, "the state")
    try:
        observed = Observed.model_validate(raw)
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file)) from exc
    numbers = {issue.number for issue in observed.issues}
    unknown = [
        Problem(file, 0, 0, f"comments.{index}: comment {c.id} is on issue #{c.issue}, which the state does not list")
        for index, c in enumerate(observed.comments)
        if c.issue not in numbers
    ]
    if unknown:
        raise InputError(unknown)
    return raw, observed


def state_text(observed: Observed) -> str:
    """Observations in the state file's format: a live run's reading, replayable with --offline."""
    return json.dumps(observed.model_dump(mode="json"), indent=2) + "\n"


class OfflineGitHub:
    """The GitHub port over a state file (or, without a path, over state held in memory)."""

    def __init__(self, raw: dict[str, Any], observed: Observed, now: dt.datetime, path: Path | None = None) -> None:
        self.raw, self.observed, self.now, self.path = raw, observed, now, path
        self.writes = 0

    @classmethod
    def open(cls, path: Path, now: dt.datetime) -> OfflineGitHub:
        raw, observed = parse_state(read_text(path), str(path))
        return cls(raw, observed, now, path)

    def observe(self) -> Observed:
        return self.observed

    def requests(self) -> dict[str, int]:
        return {}

    def text(self) -> str:
        # ASCII escapes: JSON may carry lone surrogates, which UTF-8 cannot encode.
        return json.dumps(self.raw, indent=2) + "\n"

    def _save(self) -> None:
        if self.path is not None:
            try:
                write_atomic(self.path, self.text())
            except OSError as exc:
                raise GitHubError(f"{self.path}: cannot write the state file: {exc.strerror or exc}") from exc
        self.writes += 1

    def _list(self, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.raw.setdefault(key, [])
        return items

    def comment(self, action: CommentAction) -> int:
        comments = self._list("comments")
        comment_id = max((int(c["id"]) for c in comments), default=0) + 1
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
        self._save()
        return comment_id

    def react(self, action: ReactAction) -> None:
        record = {"comment_id": action.comment_id, "user": self.observed.bot_login, "content": action.content}
        reactions = self._list("reactions")
        if record not in reactions:
            reactions.append(record)
            self._save()

    def assign(self, action: AssignAction) -> None:
        for issue in self._list("issues"):
            if issue["number"] != action.issue:
                continue
            names = [n for n in issue.get("assignees", []) if n != action.login]
            issue["assignees"] = [*names, action.login] if action.add else names
        self._save()

    def pull_request(self, action: PullRequestAction) -> int | None:
        pulls = self._list("pulls")
        existing = next((p for p in pulls if p["head"] == action.branch and p["state"] == "open"), None)
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
                }
            )
        for pull in pulls:
            if pull["number"] != action.number:
                continue
            if action.operation == "update":
                pull.update(title=action.title, body=action.body, files=action.files)
            elif action.operation == "close":
                pull["state"] = "closed"
        self._save()
        return action.number

    def _issue(self, number: int) -> dict[str, Any]:
        found = next((i for i in self._list("issues") if i["number"] == number), None)
        if found is None:
            raise GitHubError(f"issue #{number} is not in the state file")
        return found

    def label(self, action: LabelAction) -> None:
        """Labels change as on GitHub, and each change is recorded as GitHub's timeline records it."""
        issue = self._issue(action.issue)
        names: list[str] = issue.setdefault("labels", [])
        if (action.name in names) == action.add:
            return
        if action.add:
            names.append(action.name)
        else:
            names.remove(action.name)
        self._list("label_events").append(
            {
                "issue": action.issue,
                "label": action.name,
                "action": "labeled" if action.add else "unlabeled",
                "actor": self.observed.bot_login,
                "created_at": utc_stamp(self.now),
            }
        )
        self._save()

    def create_label(self, action: CreateLabelAction) -> None:
        labels = self._list("labels")
        if any(label["name"] == action.name for label in labels):
            return
        labels.append({"name": action.name, "color": action.color, "description": action.description})
        self._save()

    def link(self, action: LinkAction) -> None:
        issue = self._issue(action.issue)
        self._issue(action.target)
        if action.relation == "blocked_by":
            blockers: list[int] = issue.setdefault("blocked_by", [])
            if (action.target in blockers) == action.add:
                return
            if action.add:
                blockers.append(action.target)
            else:
                blockers.remove(action.target)
        elif action.add:
            if issue.get("parent") == action.target:
                return
            if issue.get("parent") is not None:
                # GitHub allows one parent; moving a sub-issue needs `replace_parent`, which perfbot never sends.
                raise NativeRefused(f"#{action.issue} is already a sub-issue of #{issue['parent']}")
            issue["parent"] = action.target
        else:
            if issue.get("parent") != action.target:
                return
            issue["parent"] = None
        self._save()
