"""GitHub's published GraphQL schema, once `.ci/fetch-graphql-schema` has fetched it.

When it is present the double also validates every document it receives against it, so a query
that GitHub would refuse is refused here too, whoever sends it.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import os
from pathlib import Path

import graphql
from graphql import (
    DocumentNode,
    GraphQLSchema,
    ObjectTypeDefinitionNode,
    ObjectTypeExtensionNode,
    build_ast_schema,
    build_client_schema,
    introspection_from_schema,
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
    """The published SDL, parsed once per process (the AST is only read): parsing its 1.2 MB costs
    three times what building a schema from it does."""
    path = location()
    if not path.is_file():
        return None
    return parse(path.read_text(encoding="utf-8"))


def _build(document: DocumentNode) -> GraphQLSchema:
    # The published SDL uses directives graphql-core does not define; it is valid as GitHub serves it.
    return build_ast_schema(document, assume_valid_sdl=True, assume_valid=True)


def _kept(schema: GraphQLSchema) -> GraphQLSchema:
    """`schema`, kept until the process ends. It is tens of thousands of objects: left to the cyclic
    collector, each of its full collections walks them all again (seconds per test process).
    Frozen, they are never walked. Whatever else exists at this moment is frozen too: it is still
    freed when nothing refers to it, only a cycle among it would wait for the process end."""
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
    """The published schema plus the documented fields it does not carry yet (`documented.graphql`).

    Built from the SDL, it costs a test process a second or more (the SDL is mostly descriptions,
    which graphql-core's lexer reads a character at a time); so the first process to build it
    keeps its introspection, without descriptions, beside the SDL, named after a digest of both
    texts and graphql-core's version, and later ones build the same schema from that JSON
    (`build_client_schema`, a fifth of the time). The fidelity tests check every document against
    it, and the two builds give the same types, fields, arguments and defaults."""
    path = location()
    if not path.is_file():
        return None
    sdl = path.read_text(encoding="utf-8")
    documented = DOCUMENTED.read_text(encoding="utf-8")
    digest = hashlib.sha256("\0".join((graphql.version, sdl, documented)).encode()).hexdigest()[:16]
    cached = path.with_name(f"{path.stem}.introspection.{digest}.json")
    if cached.is_file():
        return _kept(build_client_schema(json.loads(cached.read_text(encoding="utf-8")), assume_valid=True))
    document = _published_document()
    assert document is not None
    schema = _build(DocumentNode(definitions=(*document.definitions, *parse(documented).definitions)))
    _write_atomic(cached, json.dumps(introspection_from_schema(schema, descriptions=False)))
    return _kept(schema)


def _write_atomic(path: Path, text: str) -> None:
    """Several test processes may write it at once: each renames its own whole file into place. A
    place that cannot be written to only means the next process builds from the SDL again."""
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    except OSError:
        part.unlink(missing_ok=True)
