"""GitHub's published GraphQL schema, once `.ci/fetch-graphql-schema` has fetched it.

When it is present the double also validates every document it receives against it, so a query
that GitHub would refuse is refused here too, whoever sends it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from graphql import GraphQLSchema, build_schema

from tests.paths import ROOT

ENVIRONMENT = "GITHUB_GRAPHQL_SCHEMA"
DEFAULT = ROOT / ".cache" / "graphql-schema" / "schema.graphql"
# What GitHub documents and serves that the published package does not carry yet.
DOCUMENTED = Path(__file__).with_name("documented.graphql")


def location() -> Path:
    return Path(os.environ.get(ENVIRONMENT) or DEFAULT)


@functools.cache
def load_published() -> GraphQLSchema | None:
    """The package's schema exactly as published."""
    path = location()
    if not path.is_file():
        return None
    # The published SDL uses directives graphql-core does not define; it is valid as GitHub serves it.
    return build_schema(path.read_text(encoding="utf-8"), assume_valid_sdl=True, assume_valid=True)


@functools.cache
def load() -> GraphQLSchema | None:
    """The published schema plus the documented fields it does not carry yet (`documented.graphql`)."""
    path = location()
    if not path.is_file():
        return None
    sdl = path.read_text(encoding="utf-8") + "\n" + DOCUMENTED.read_text(encoding="utf-8")
    return build_schema(sdl, assume_valid_sdl=True, assume_valid=True)
