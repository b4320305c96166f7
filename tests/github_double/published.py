"""GitHub's published GraphQL schema, once `.ci/fetch-graphql-schema` has fetched it.

When it is present the double also validates every document it receives against it, so a query
that GitHub would refuse is refused here too, whoever sends it.

Built from the SDL (1.2 MB, mostly descriptions, which graphql-core's lexer reads a character at a
time), it costs a test process a second or two. So the first process to build it keeps its
introspection, without descriptions, beside the SDL, named after a digest of the SDL and
graphql-core's version, and later processes build the same schema from that JSON
(`build_client_schema`, about a tenth of the time): the same types, fields, arguments, defaults,
deprecations and directives.
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
    GraphQLObjectType,
    GraphQLSchema,
    build_ast_schema,
    build_client_schema,
    extend_schema,
    introspection_from_schema,
    parse,
)

from tests.support.paths import ROOT

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
    sdl = path.read_text(encoding="utf-8")
    digest = hashlib.sha256(f"{graphql.version}\0{sdl}".encode()).hexdigest()[:16]
    cached = path.with_name(f"{path.stem}.introspection.{digest}.json")
    if cached.is_file():
        return _kept(build_client_schema(json.loads(cached.read_text(encoding="utf-8")), assume_valid=True))
    # The published SDL uses directives graphql-core does not define; it is valid as GitHub serves it.
    schema = build_ast_schema(parse(sdl), assume_valid_sdl=True, assume_valid=True)
    _write_atomic(cached, json.dumps(introspection_from_schema(schema, descriptions=False)))
    return _kept(schema)


@functools.cache
def load() -> GraphQLSchema | None:
    """The published schema plus the documented fields it does not carry yet (`documented.graphql`)."""
    published = load_published()
    if published is None:
        return None
    documented = parse(DOCUMENTED.read_text(encoding="utf-8"))
    return _kept(extend_schema(published, documented, assume_valid_sdl=True, assume_valid=True))


def published_fields(type_name: str) -> set[str] | None:
    """The fields of the published object type `type_name`, or None if the package has no such type."""
    published = load_published()
    assert published is not None, "GitHub's published schema is not fetched"
    kind = published.type_map.get(type_name)
    return set(kind.fields) if isinstance(kind, GraphQLObjectType) else None


def _kept(schema: GraphQLSchema) -> GraphQLSchema:
    """`schema`, kept until the process ends. It is tens of thousands of objects: left to the cyclic
    collector, each of its full collections walks them all again (seconds per test process).
    Frozen, they are never walked. Whatever else exists at this moment is frozen too: it is still
    freed when nothing refers to it, only a cycle among it would wait for the process end."""
    gc.freeze()
    return schema


def _write_atomic(path: Path, text: str) -> None:
    """Several test processes may write it at once: each renames its own whole file into place. A
    place that cannot be written to only means the next process builds from the SDL again."""
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    except OSError:
        part.unlink(missing_ok=True)
