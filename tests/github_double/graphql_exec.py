"""Executes a validated GraphQL document over the double's resolvers: the part of the spec the
double's traffic needs, several times faster than graphql-core's `execute`.

graphql-core builds a resolve-info record and walks its general completion machinery (incremental
delivery, awaitables, middleware) for each of the few hundred fields of a run's first query; that
was a quarter of the live tests' time. This walks the document directly: fields by alias, named
and inline fragments by type condition, arguments and variables coerced by graphql-core's own
functions, leaves by their type's `coerce_output_value`, errors located by `located_error`, and a
null where the schema forbids one bubbling up to the nearest nullable position, with graphql-core's
messages. A document it does not cover (directives, introspection, a choice of operations, a
subscription, variables that do not coerce) is declined before anything runs, and graphql-core
executes it. `graphql_api` can run both on every query and compare (`tests/test_github_double_exec.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    Undefined,
    is_abstract_type,
    is_leaf_type,
    located_error,
    type_from_ast,
)
from graphql.execution.values import get_argument_values, get_variable_values
from graphql.pyutils import inspect


class Info(NamedTuple):
    """What the double's resolvers read of graphql-core's `GraphQLResolveInfo`."""

    field_name: str
    field_nodes: list[FieldNode]
    parent_type: GraphQLObjectType


class Result(NamedTuple):
    data: dict[str, Any] | None
    errors: list[GraphQLError]
    operation: OperationType  # a query can be answered again; a mutation would write again


Resolver = Callable[..., Any]
TypeResolver = Callable[[Any, Any, GraphQLAbstractType], str]


class _Null(Exception):
    """A non-null position came out null (its error is recorded): the nearest nullable one is null."""


def covered(document: DocumentNode) -> OperationDefinitionNode | None:
    """The document's one query or mutation, if nothing in it asks for what this does not do."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != 1 or operations[0].operation == OperationType.SUBSCRIPTION:
        return None
    pending: list[Node] = list(document.definitions)
    while pending:
        node = pending.pop()
        if getattr(node, "directives", None):
            return None
        if isinstance(node, FieldNode) and node.name.value.startswith("__") and node.name.value != "__typename":
            return None
        selections = getattr(node, "selection_set", None)
        if selections is not None:
            pending.extend(selections.selections)
    return operations[0]


def execute(
    schema: GraphQLSchema,
    document: DocumentNode,
    *,
    root_value: Any,
    variable_values: Mapping[str, Any] | None,
    field_resolver: Resolver,
    type_resolver: TypeResolver,
) -> Result | None:
    """The result graphql-core's `execute` gives, or None when the document is not `covered`."""
    operation = covered(document)
    if operation is None:
        return None
    variables = get_variable_values(schema, operation.variable_definitions or (), dict(variable_values or {}))
    if isinstance(variables, list):
        return None  # graphql-core words the refusal
    root = schema.mutation_type if operation.operation == OperationType.MUTATION else schema.query_type
    if root is None:
        return None
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    run = _Run(schema, fragments, variables, field_resolver, type_resolver)
    try:
        data: dict[str, Any] | None = run.object(root, [operation.selection_set], root_value, ())
    except _Null:
        data = None
    return Result(data, run.errors, operation.operation)


class _Run:
    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: dict[str, FragmentDefinitionNode],
        variables: Any,
        field_resolver: Resolver,
        type_resolver: TypeResolver,
    ) -> None:
        self.schema, self.fragments, self.variables = schema, fragments, variables
        self.field_resolver, self.type_resolver = field_resolver, type_resolver
        self.errors: list[GraphQLError] = []

    def object(
        self, type_: GraphQLObjectType, sets: Iterable[SelectionSetNode], source: Any, path: tuple[str | int, ...]
    ) -> dict[str, Any]:
        fields: dict[str, list[FieldNode]] = {}
        seen: set[str] = set()  # as graphql-core: a fragment spread in two merged fields counts once
        for selection_set in sets:
            self.collect(type_, selection_set, fields, seen)
        return {key: self.field(type_, source, nodes, (*path, key)) for key, nodes in fields.items()}

    def collect(
        self,
        type_: GraphQLObjectType,
        selection_set: SelectionSetNode,
        into: dict[str, list[FieldNode]],
        seen: set[str],
    ) -> None:
        """The fields of `selection_set` that apply to `type_`, by response key, in document order."""
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                key = selection.alias.value if selection.alias else selection.name.value
                into.setdefault(key, []).append(selection)
            elif isinstance(selection, InlineFragmentNode):
                if self.applies(selection, type_):
                    self.collect(type_, selection.selection_set, into, seen)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
                seen.add(selection.name.value)
                fragment = self.fragments[selection.name.value]
                if self.applies(fragment, type_):
                    self.collect(type_, fragment.selection_set, into, seen)

    def applies(self, fragment: FragmentDefinitionNode | InlineFragmentNode, type_: GraphQLObjectType) -> bool:
        if fragment.type_condition is None:
            return True
        condition = type_from_ast(self.schema, fragment.type_condition)
        if condition is type_:
            return True
        return is_abstract_type(condition) and self.schema.is_sub_type(condition, type_)

    def field(self, parent: GraphQLObjectType, source: Any, nodes: list[FieldNode], path: tuple[str | int, ...]) -> Any:
        node = nodes[0]
        name = node.name.value
        if name == "__typename":
            return parent.name
        definition = parent.fields[name]
        info = Info(name, nodes, parent)
        try:
            args = get_argument_values(definition, node, self.variables) if definition.args or node.arguments else {}
            value = (definition.resolve or self.field_resolver)(source, info, **args)
            return self.complete(definition.type, info, value, path)
        except _Null:
            if isinstance(definition.type, GraphQLNonNull):
                raise
            return None
        except Exception as exc:  # a resolver's error is the field's, as in graphql-core
            self.errors.append(located_error(exc, nodes, list(path)))
            if isinstance(definition.type, GraphQLNonNull):
                raise _Null from exc
            return None

    def complete(self, type_: GraphQLOutputType, info: Info, value: Any, path: tuple[str | int, ...]) -> Any:
        if isinstance(value, Exception):
            raise value
        if isinstance(type_, GraphQLNonNull):
            completed = self.complete(type_.of_type, info, value, path)
            if completed is None:
                raise TypeError(f"Cannot return null for non-nullable field {info.parent_type}.{info.field_name}.")
            return completed
        if value is None or value is Undefined:
            return None
        if isinstance(type_, GraphQLList):
            return self.items(type_, info, value, path)
        if is_leaf_type(type_):
            coerced = type_.coerce_output_value(value)
            if coerced is None or coerced is Undefined:
                raise TypeError(
                    f"Expected `{inspect(type_)}.coerce_output_value({inspect(value)})` to return non-nullable"
                    f" value, returned: {inspect(coerced)}"
                )
            return coerced
        if is_abstract_type(type_):
            type_ = self.runtime_type(type_, info, value)
        sets = [n.selection_set for n in info.field_nodes if n.selection_set is not None]
        return self.object(type_, sets, value, path)  # type: ignore[arg-type]

    def items(self, type_: GraphQLList[Any], info: Info, value: Any, path: tuple[str | int, ...]) -> list[Any]:
        if isinstance(value, str | bytes | bytearray | memoryview | Mapping) or not isinstance(value, Iterable):
            raise GraphQLError(
                f"Expected Iterable, but did not find one for field '{info.parent_type}.{info.field_name}'."
            )
        completed = []
        for index, item in enumerate(value):
            item_path = (*path, index)
            try:
                completed.append(self.complete(type_.of_type, info, item, item_path))
            except _Null:
                if isinstance(type_.of_type, GraphQLNonNull):
                    raise
                completed.append(None)
            except Exception as exc:  # as graphql-core: the item's error, located at the item
                self.errors.append(located_error(exc, info.field_nodes, list(item_path)))
                if isinstance(type_.of_type, GraphQLNonNull):
                    raise _Null from exc
                completed.append(None)
        return completed

    def runtime_type(self, abstract: GraphQLAbstractType, info: Info, value: Any) -> GraphQLObjectType:
        """The object type `value` resolves to, refused in graphql-core's words (`ensure_valid_runtime_type`)."""
        name = self.type_resolver(value, info, abstract)
        found = self.schema.get_type(name)
        if found is None:
            message = (
                f"Abstract type '{abstract}' was resolved to a type '{name}' that does not exist inside the schema."
            )
        elif not isinstance(found, GraphQLObjectType):
            message = f"Abstract type '{abstract}' was resolved to a non-object type '{name}'."
        elif not self.schema.is_sub_type(abstract, found):
            message = f"Runtime Object type '{found}' is not a possible type for '{abstract}'."
        else:
            return found
        raise GraphQLError(message, info.field_nodes)
