"""The offline adapter's writes on labels and links, made to the state file as GitHub makes them.

A repeated write changes nothing, as on GitHub: adding a present label or link, removing an
absent one. Each change of labels is recorded as GitHub's timeline records it.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, TypeVar

from bot.github.actions import CreateLabelAction, LabelAction, LinkAction
from bot.github.observed import Observed
from bot.github.port import GitHubError, NativeRefused
from bot.timestamps import utc_stamp

T = TypeVar("T")


class NativeWrites(ABC):
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

    def _issue(self, number: int) -> dict[str, Any]:
        found = next((i for i in self._list("issues") if i["number"] == number), None)
        if found is None:
            raise GitHubError(f"issue #{number} is not in the state file")
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
                "issue": action.issue,
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
        labels = self._list("labels")
        if any(_same(label["name"], action.name) for label in labels):
            return
        labels.append({"name": action.name, "color": action.color, "description": action.description})
        self._save(self._last("labels"))

    def link(self, action: LinkAction) -> None:
        issue = self._issue(action.issue)
        self._issue(action.target)
        if action.relation == "blocked_by":
            if not _toggled(issue.setdefault("blocked_by", []), action.target, action.add):
                return
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
        self._save(self._where("issues", issue))


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
