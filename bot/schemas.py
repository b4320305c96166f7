"""JSON Schemas of the snapshot and of the bot config, generated from their pydantic models.

Editors (VS Code with Red Hat YAML) read the committed copies under `schema/` through the
`# yaml-language-server: $schema=…` line, so a person typing the snapshot gets completion, the
field descriptions and the allowed values. CI fails when a committed copy is stale.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from bot.config import BotConfig
from bot.schema_kinds import SchemaKind
from bot.snapshot.model import Snapshot

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DIRECTORY = "schema"
_MODELS: dict[SchemaKind, type[BaseModel]] = {"snapshot": Snapshot, "config": BotConfig}


def schema(kind: SchemaKind) -> dict[str, Any]:
    """The schema of the YAML file: its key names (aliases), for what a person writes."""
    generated = _MODELS[kind].model_json_schema(by_alias=True, mode="validation")
    return {"$schema": DIALECT, **generated}


def schema_text(kind: SchemaKind) -> str:
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"


def file_name(kind: SchemaKind) -> str:
    """Repository path of the committed schema."""
    return f"{DIRECTORY}/{kind}.schema.json"
