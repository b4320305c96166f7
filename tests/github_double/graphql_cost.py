"""A GraphQL query's rate-limit cost and node count, by the formula GitHub documents ("Rate limits
and query limits for the GraphQL API"):

- node count: for each connection, its `first` or `last` times the size of every connection
  it is nested in, summed;
- cost: the requests needed to fulfil each connection (one per instance of its parent, assuming
  every connection is full), summed, divided by 100 and rounded, and at least 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)


@dataclass
class Cost:
    requests: int = 0
    nodes: int = 0

    @property
    def points(self) -> int:
        return max(1, round(self.requests / 100))


def query_cost(document: DocumentNode, variables: dict[str, Any] | None, operation: str | None = None) -> Cost:
    """The cost of the operation the request runs (the first one when it names none)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = next((o for o in operations if operation is None or (o.name and o.name.value == operation)), None)
    cost = Cost()
    if chosen is not None:
        _walk(chosen.selection_set, 1, fragments, variables or {}, cost)
    return cost


def _walk(
    selections: SelectionSetNode | None,
    times: int,
    fragments: dict[str, FragmentDefinitionNode],
    variables: dict[str, Any],
    cost: Cost,
) -> None:
    for selection in selections.selections if selections else ():
        if isinstance(selection, FragmentSpreadNode):
            _walk(fragments[selection.name.value].selection_set, times, fragments, variables, cost)
        elif isinstance(selection, InlineFragmentNode):
            _walk(selection.selection_set, times, fragments, variables, cost)
        elif isinstance(selection, FieldNode):
            size = _page_size(selection, variables)
            if size is None:
                _walk(selection.selection_set, times, fragments, variables, cost)
                continue
            cost.requests += times
            cost.nodes += times * size
            _walk(selection.selection_set, times * size, fragments, variables, cost)


def _page_size(field: FieldNode, variables: dict[str, Any]) -> int | None:
    """A connection's `first` or `last`; None for a field that is not a page of a connection."""
    for argument in field.arguments or ():
        if argument.name.value not in ("first", "last"):
            continue
        value = argument.value
        if isinstance(value, IntValueNode):
            return int(value.value)
        if isinstance(value, VariableNode) and isinstance(variables.get(value.name.value), int):
            return int(variables[value.name.value])
    return None
