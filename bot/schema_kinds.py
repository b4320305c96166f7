"""The kinds of JSON Schema perfbot writes; apart from `schema`, so the CLI's grammar needs no pydantic."""

from __future__ import annotations

from typing import Literal

SchemaKind = Literal["snapshot", "config"]
KINDS: tuple[SchemaKind, ...] = ("snapshot", "config")
