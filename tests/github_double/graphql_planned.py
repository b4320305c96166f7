"""The double's queries executed from a plan made once per document, operation and the variables
its `@include`/`@skip` read, instead of by graphql-core's general executor for every field of
every answer.

graphql-core asks the same questions again for each of the ~400 fields an answer of perfbot's has
(which definition, which arguments, which subfields, which completion); their answers depend only
on the document, the schema and the variables. The plan keeps them: for each object type and
selection, the fields in response order (collected as the spec's CollectFields does: `@skip`,
`@include`, fragments and inline fragments whose type condition applies), each with its definition,
its arguments as graphql-core's `get_argument_values` coerces them (once per plan when they read no
variable, else once per answer), and how its value is completed (non-null, list, leaf serialised by
the schema's own `coerce_output_value`, object, or abstract type resolved by the double's
`type_name` and checked as graphql-core checks it). The values come from the double's resolvers by
`graphql_resolvers`' rule; each method is given graphql-core's own resolve info.

Only what the plan covers is answered here: an answer with any error (a resolver raising, null in a
non-null field, a value the schema cannot serialise, a runtime type not allowed) raises `Fallback`,
and graphql-core executes the request afresh, so every error, its `path` and `locations` are
graphql-core's own. Mutations are always left to graphql-core: executing one twice would write twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DirectiveNode,
    DocumentNode,
    FieldNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLEnumType,
    GraphQLField,
    GraphQLIncludeDirective,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLSkipDirective,
    GraphQLTypeResolver,
    GraphQLUnionType,
    InlineFragmentNode,
    OperationType,
    SelectionSetNode,
    Undefined,
    VariableNode,
    get_argument_values,
    get_directive_values,
)
from graphql.execution.execute import assume_not_async_iterable, assume_not_awaitable
from graphql.execution.executor import Executor
from graphql.language import Node, SelectionNode
from graphql.pyutils import Path

from bot.recent import Recent
from tests.github_double.graphql_resolvers import snake


class Fallback(Exception):
    """The plan does not cover this answer: graphql-core executes the request."""


@dataclass(eq=False)
class Run:
    """One answer: graphql-core's executor for this request (its operation, fragments, coerced
    variables and resolve infos), the type resolver, and arguments that read variables."""

    executor: Executor[Any]
    type_resolver: GraphQLTypeResolver
    arguments: dict[PlannedField, dict[str, Any]] = field(default_factory=dict)

    def arguments_of(self, planned: PlannedField) -> dict[str, Any]:
        found = self.arguments.get(planned)
        if found is None:
            found = self.arguments[planned] = _arguments(planned.definition, planned.nodes[0], self)
        return found

    def info(self, planned: PlannedField, path: Path) -> GraphQLResolveInfo[Any]:
        """graphql-core's resolve info of the field at `path` (an item of a list: the list's field)."""
        while isinstance(path.key, int) and path.prev is not None:
            path = path.prev
        return self.executor.build_resolve_info(planned.definition, planned.nodes, planned.parent, path)


def _present(value: Any) -> bool:
    """False for null (and graphql-core's Undefined, which it completes as null); an error given as
    a value is graphql-core's to raise where it belongs."""
    if value is None or value is Undefined:
        return False
    if isinstance(value, Exception):
        raise Fallback
    return True


class Completion:
    """How a field's value becomes its answer, by the field's type."""

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        raise NotImplementedError


@dataclass(eq=False)
class NonNull(Completion):
    inner: Completion

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        completed = self.inner.complete(run, planned, value, path)
        if completed is None:
            raise Fallback  # graphql-core nulls the nearest nullable parent and says why
        return completed


@dataclass(eq=False)
class ListOf(Completion):
    inner: Completion

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        if not _present(value):
            return None
        if not isinstance(value, list | tuple):
            raise Fallback  # any other iterable is graphql-core's to judge
        inner = self.inner
        return [inner.complete(run, planned, item, Path(path, index, None)) for index, item in enumerate(value)]


@dataclass(eq=False)
class Leaf(Completion):
    coerce: Callable[[Any], Any]  # the scalar's or enum's own output coercion

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        if not _present(value):
            return None
        try:
            coerced = self.coerce(value)
        except Exception as exc:
            raise Fallback from exc
        if coerced is None or coerced is Undefined:
            raise Fallback
        return coerced


@dataclass(eq=False)
class Composite(Completion):
    """A value with subfields: what the selection sets of its field's nodes ask of it."""

    plan: OperationPlan
    selection_sets: list[SelectionSetNode]


@dataclass(eq=False)
class Selection(Composite):
    """An object's subfields, planned at the first value of its type the answer meets."""

    type: GraphQLObjectType
    fields: list[PlannedField] | None = None

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        return self.execute(run, value, path) if _present(value) else None

    def execute(self, run: Run, source: Any, path: Path | None) -> dict[str, Any]:
        fields = self.fields
        if fields is None:
            fields = self.fields = self.plan.fields(run, self.type, self.selection_sets)
        answer: dict[str, Any] = {}
        for planned in fields:
            here = Path(path, planned.key, planned.parent.name)
            answer[planned.key] = planned.completion.complete(run, planned, planned.resolve(run, source, here), here)
        return answer


@dataclass(eq=False)
class Abstract(Composite):
    """An interface's or union's value: its runtime type named by the double, then its selection."""

    type: GraphQLAbstractType
    by_type: dict[str, Selection] = field(default_factory=dict)

    def complete(self, run: Run, planned: PlannedField, value: Any, path: Path) -> Any:
        if not _present(value):
            return None
        try:
            name = run.type_resolver(value, run.info(planned, path), self.type)
        except Exception as exc:
            raise Fallback from exc
        if not isinstance(name, str):
            raise Fallback  # graphql-core says why
        selection = self.by_type.get(name)
        if selection is None:
            selection = self.by_type[name] = Selection(self.plan, self.selection_sets, self._runtime_type(name))
        return selection.complete(run, planned, value, path)

    def _runtime_type(self, name: str) -> GraphQLObjectType:
        """The object type graphql-core's executor accepts for this name (else it says why)."""
        schema = self.plan.schema
        found = schema.get_type(name)
        if not isinstance(found, GraphQLObjectType) or not schema.is_sub_type(self.type, found) or found.is_type_of:
            raise Fallback
        return found


@dataclass(eq=False)
class PlannedField:
    """One response key of a selection on one object type."""

    key: str
    nodes: list[FieldNode]
    parent: GraphQLObjectType
    definition: GraphQLField
    completion: Completion
    attribute: str | None  # the snake_case name; None for `__typename`
    arguments: dict[str, Any] | None  # in snake_case; None: they read variables, so once per answer

    def resolve(self, run: Run, source: Any, path: Path) -> Any:
        """`graphql_resolvers.field`'s rule, with the names converted once per plan; `__typename`
        is the parent type's name, as graphql-core's own resolver of it answers."""
        attribute = self.attribute
        if attribute is None:
            return self.parent.name
        try:
            value = (
                source.get(self.nodes[0].name.value) if isinstance(source, dict) else getattr(source, attribute, None)
            )
            if callable(value):
                arguments = self.arguments if self.arguments is not None else run.arguments_of(self)
                value = value(run.info(self, path), **arguments)
        except Exception as exc:
            raise Fallback from exc
        return value


def _arguments(definition: GraphQLField, node: FieldNode, run: Run) -> dict[str, Any]:
    """The field's arguments as graphql-core's executor gives them, in snake_case (those that read
    variables are coerced as the field is resolved, where a refusal falls back; literals were
    coerced alike when the document was validated)."""
    found = get_argument_values(definition, node, run.executor.variable_values)
    return {snake(name): value for name, value in found.items()}


class OperationPlan:
    """The plan of one query operation of one document, for one set of `@include`/`@skip` values."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode, run: Run) -> None:
        self.schema = schema
        self.document = document  # the nodes resolvers are given are this document's
        operation = run.executor.operation
        root = schema.get_root_type(operation.operation)
        if root is None or operation.operation is not OperationType.QUERY:
            raise Fallback  # a mutation is graphql-core's
        self.root = Selection(self, [operation.selection_set], root)

    def fields(self, run: Run, parent: GraphQLObjectType, selection_sets: list[SelectionSetNode]) -> list[PlannedField]:
        grouped: dict[str, list[FieldNode]] = {}
        visited: set[str] = set()
        for selection_set in selection_sets:
            self._collect(run, parent, selection_set, grouped, visited)
        return [self._field(run, parent, key, nodes) for key, nodes in grouped.items()]

    def _collect(
        self,
        run: Run,
        parent: GraphQLObjectType,
        selection_set: SelectionSetNode,
        grouped: dict[str, list[FieldNode]],
        visited: set[str],
    ) -> None:
        """The spec's CollectFields: fields by response key, in the order each key first appears;
        a fragment spread once per selection."""
        for selection in selection_set.selections:
            if not self._included(run, selection):
                continue
            if isinstance(selection, FieldNode):
                key = selection.alias.value if selection.alias else selection.name.value
                grouped.setdefault(key, []).append(selection)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                if condition is None or self._applies(condition.name.value, parent):
                    self._collect(run, parent, selection.selection_set, grouped, visited)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = run.executor.fragment_definitions.get(name)
                if fragment is None or name in visited:
                    continue
                visited.add(name)
                if self._applies(fragment.type_condition.name.value, parent):
                    self._collect(run, parent, fragment.selection_set, grouped, visited)

    def _included(self, run: Run, selection: SelectionNode) -> bool:
        if not selection.directives:
            return True
        variables = run.executor.variable_values
        try:
            skip = get_directive_values(GraphQLSkipDirective, selection, variables)
            include = get_directive_values(GraphQLIncludeDirective, selection, variables)
        except Exception as exc:
            raise Fallback from exc
        return not (skip and skip["if"] is True) and not (include and include["if"] is False)

    def _applies(self, condition: str, parent: GraphQLObjectType) -> bool:
        found = self.schema.get_type(condition)
        if found is parent:
            return True
        return isinstance(found, GraphQLInterfaceType | GraphQLUnionType) and self.schema.is_sub_type(found, parent)

    def _field(self, run: Run, parent: GraphQLObjectType, key: str, nodes: list[FieldNode]) -> PlannedField:
        name = nodes[0].name.value
        definition = self.schema.get_field(parent, name)
        if definition is None:
            raise Fallback  # a field the schema lacks: graphql-core's
        if name == "__typename":
            return PlannedField(key, nodes, parent, definition, self._completion(definition.type, nodes), None, {})
        if definition.resolve is not None:
            raise Fallback  # introspection's, or another resolver of the schema's own: not the double's
        completion = self._completion(definition.type, nodes)
        static = not any(_variables_in(argument) for argument in nodes[0].arguments or ())
        arguments = _arguments(definition, nodes[0], run) if static else None
        return PlannedField(key, nodes, parent, definition, completion, snake(name), arguments)

    def _completion(self, kind: GraphQLOutputType, nodes: list[FieldNode]) -> Completion:
        if isinstance(kind, GraphQLNonNull):
            return NonNull(self._completion(kind.of_type, nodes))
        if isinstance(kind, GraphQLList):
            return ListOf(self._completion(kind.of_type, nodes))
        if isinstance(kind, GraphQLScalarType | GraphQLEnumType):
            return Leaf(kind.coerce_output_value)
        selection_sets = [node.selection_set for node in nodes if node.selection_set]
        if isinstance(kind, GraphQLInterfaceType | GraphQLUnionType) and kind.resolve_type is None:
            return Abstract(self, selection_sets, kind)
        if isinstance(kind, GraphQLObjectType) and kind.is_type_of is None:
            return Selection(self, selection_sets, kind)
        raise Fallback  # a type's own resolve_type or is_type_of, which the plan does not call


def _nodes(node: Node) -> Iterator[Node]:
    """The node and every node inside it."""
    yield node
    for key in node.keys:
        value = getattr(node, key, None)
        for child in value if isinstance(value, tuple | list) else (value,):
            if isinstance(child, Node):
                yield from _nodes(child)


def _variables_in(node: Node) -> set[str]:
    return {found.name.value for found in _nodes(node) if isinstance(found, VariableNode)}


def _directive_variables(document: DocumentNode) -> tuple[str, ...]:
    """The variables the document's directives (`@include`, `@skip`) read: what its plans depend on."""
    directives = (found for found in _nodes(document) if isinstance(found, DirectiveNode))
    return tuple(sorted({name for directive in directives for name in _variables_in(directive)}))


_PLANS: Recent[tuple[Any, ...], OperationPlan] = Recent(256)
_DIRECTIVE_VARIABLES: Recent[str, tuple[str, ...]] = Recent(1024)


def execute(
    schema: GraphQLSchema,
    query: str,
    document: DocumentNode,
    root_value: Any,
    variables: dict[str, Any] | None,
    operation_name: str | None,
    field_resolver: Any,
    type_resolver: GraphQLTypeResolver,
) -> dict[str, Any]:
    """The `data` graphql-core's `execute_sync` gives for this query when it gives no error; else
    `Fallback`. `query` is the document's text: plans are kept by it."""
    # Built as `execute_sync` builds it: graphql-core picks the operation and coerces the variables.
    executor = Executor.build(
        schema,
        document,
        root_value,
        None,
        variables,
        operation_name,
        field_resolver,
        type_resolver,
        is_awaitable=assume_not_awaitable,
        is_async_iterable=assume_not_async_iterable,
    )
    if isinstance(executor, list):
        raise Fallback  # the operation or the variables are refused
    run = Run(executor, type_resolver)
    reads = _DIRECTIVE_VARIABLES.get(query)
    if reads is None:
        reads = _directive_variables(document)
        _DIRECTIVE_VARIABLES.keep(query, reads)
    coerced = executor.variable_values.coerced
    key = (query, operation_name, tuple(coerced.get(name, Undefined) for name in reads))
    plan = _PLANS.get(key)
    if plan is None or plan.document is not document:
        plan = OperationPlan(schema, document, run)
        _PLANS.keep(key, plan)
    return plan.root.execute(run, root_value, None)
