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
    known = next((label for label in world.records("labels") if label["name"] == name), {})
    return {"name": name, "color": known.get("color", "ededed"), "description": known.get("description")}


def label_event(world: World, kind: str, index: int, event: dict[str, Any]) -> dict[str, Any]:
    login = str(event["actor"])
    actor = (
        {"typename": "Bot", "login": login.removesuffix("[bot]")}
        if login.endswith("[bot]")
        else {
            "typename": "User",
            "login": login,
        }
    )
    return {
        "typename": kind,
        "id": base64.b64encode(f"{kind}:{index + 1}".encode()).decode(),
        "createdAt": event["created_at"],
        "actor": actor,
        "label": label_node(world, event["label"]),
    }
