"""GitHub's published GraphQL schema, once `.ci/fetch-graphql-schema` has fetched it.

When it is present the double also validates every document it receives against it, so a query
that GitHub would refuse is refused here too, whoever sends it.
"""

from __future__ import annotations

import functools
import gc
import os
from pathlib import Path

from graphql import (
    DocumentNode,
    GraphQLSchema,
    ObjectTypeDefinitionNode,
    ObjectTypeExtensionNode,
    build_ast_schema,
    parse,
)

from tests.paths import ROOT

ENVIRONMENT = "GITHUB_GRAPHQL_SCHEMA"
DEFAULT = ROOT / ".cache" / "graphql-schema" / "schema.graphql"
# What GitHub documents and serves that the published package does not carry yet.
DOCUMENTED = Path(__file__).with_name("documented.graphql")


def location() -> Path:
    return Path(os.environ.get(ENVIRONMENT) or DEFAULT)


@functools.cache
def _published_document() -> DocumentNode | None:
    """The published SDL, parsed once per process: parsing its 1.2 MB costs three times what
    building a schema from it does, and both schemas below are built from it (the AST is only read)."""
    path = location()
    if not path.is_file():
        return None
    return parse(path.read_text(encoding="utf-8"))


def _build(document: DocumentNode) -> GraphQLSchema:
    # The published SDL uses directives graphql-core does not define; it is valid as GitHub serves it.
    schema = build_ast_schema(document, assume_valid_sdl=True, assume_valid=True)
    # The schema and its AST are hundreds of thousands of objects kept until the process ends: left
    # to the cyclic collector, each of its full collections walks them all again (seconds per test
    # process). Frozen, they are never walked. Whatever else exists at this moment is frozen too: it
    # is still freed when nothing refers to it, only a cycle among it would wait for the process end.
    gc.freeze()
    return schema


def published_fields(type_name: str) -> set[str] | None:
    """The fields the package's schema, exactly as published, gives the object type `type_name`
    (None if it has no such type), read from the SDL's definitions and extensions of that type:
    what a schema built from the published SDL alone would hold, without building one."""
    document = _published_document()
    assert document is not None, "GitHub's published schema is not fetched"
    nodes = [
        node
        for node in document.definitions
        if isinstance(node, ObjectTypeDefinitionNode | ObjectTypeExtensionNode) and node.name.value == type_name
    ]
    if not any(isinstance(node, ObjectTypeDefinitionNode) for node in nodes):
        return None
    return {field.name.value for node in nodes for field in node.fields or ()}


@functools.cache
def load() -> GraphQLSchema | None:
    """The published schema plus the documented fields it does not carry yet (`documented.graphql`)."""
    document = _published_document()
    if document is None:
        return None
    documented = parse(DOCUMENTED.read_text(encoding="utf-8"))
    return _build(DocumentNode(definitions=(*document.definitions, *documented.definitions)))
