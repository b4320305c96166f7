"""How the double's GraphQL objects answer a field: a dict by the field's GraphQL name, an object by
its snake_case attribute (`defaultBranchRef` -> `default_branch_ref`), called with the resolve info
and the arguments in snake_case when it is a method; an abstract value names its type in
`typename`. graphql-core's executor and the double's planned one (`graphql_planned`) both follow it.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from graphql import GraphQLAbstractType, GraphQLResolveInfo


@functools.cache  # the same few hundred names, looked up for every field of every answer
def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def field(source: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
    """Dicts answer by the GraphQL name; objects by the snake_case name, called with the arguments."""
    name = info.field_name
    value = source.get(name) if isinstance(source, dict) else getattr(source, snake(name), None)
    if callable(value):
        return value(info, **{snake(k): v for k, v in args.items()})
    return value


def type_name(value: Any, info: GraphQLResolveInfo[Any], abstract: GraphQLAbstractType) -> str:
    return str(value["typename"] if isinstance(value, dict) else value.typename)
