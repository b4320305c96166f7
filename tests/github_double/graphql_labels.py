"""GraphQL values of labels, label events and issue ids, shared by the double's nodes and REST."""

from __future__ import annotations

import base64
from typing import Any

from tests.github_double.branches import user_id
from tests.github_double.world import World


def issue_id(number: int, repository: str | None = None) -> int:
    """The issue's database id, as REST's issue bodies give it (`bodies.issue`); unique across the
    repositories the double serves."""
    return user_id(f"issue:{number}" if repository is None else f"issue:{repository.casefold()}#{number}")


def label_node(world: World, name: str) -> dict[str, Any]:
    known = world.index().labels.get(name, {})
    return {"name": name, "color": known.get("color", "ededed"), "description": known.get("description")}


def actor_node(login: str) -> dict[str, Any]:
    """An `Actor` as GraphQL gives it: a Bot's login without the `[bot]` REST shows."""
    if login.endswith("[bot]"):
        return {"typename": "Bot", "login": login.removesuffix("[bot]")}
    return {"typename": "User", "login": login}


def unassigned_event(number: int, index: int, event: dict[str, Any]) -> dict[str, Any]:
    """GitHub's `UnassignedEvent` for one of an issue record's `unassigned` entries."""
    return {
        "typename": "UnassignedEvent",
        "id": base64.b64encode(f"UnassignedEvent:{number}:{index + 1}".encode()).decode(),
        "createdAt": event["created_at"],
        "actor": actor_node(str(event.get("actor") or "")),
        "assignee": actor_node(str(event["login"])),
    }


def label_event(world: World, kind: str, index: int, event: dict[str, Any]) -> dict[str, Any]:
    actor = actor_node(str(event["actor"]))
    return {
        "typename": kind,
        "id": base64.b64encode(f"{kind}:{index + 1}".encode()).decode(),
        "createdAt": event["created_at"],
        "actor": actor,
        "label": label_node(world, event["label"]),
    }
