"""graphql-core's executor, with the subfields it collects kept by the field nodes they come from.

Collecting the fields a selection asks of a type is pure in the nodes, the type, the document and
the variables. graphql-core 3.2 kept each collection by the field nodes; 3.3 keeps it by the list
holding them (`Executor.collect_subfields`), so the items of one list share it, but each alias of
a query (perfbot asks for every issue under an alias of its own, each through one fragment) and
every connection under them collected again, about nine in ten collections of an answer. Keyed by
the nodes (with their defer usage and fragment variables) as 3.2 keyed them, each is collected once
an answer; what is executed, and so every answer and error, is the same.
"""

from __future__ import annotations

from typing import Any

try:
    from graphql.execution.collect_fields import CollectedFields, FieldDetails
    from graphql.execution.incremental.incremental_executor import IncrementalExecutor
    from graphql.type import GraphQLObjectType
except ImportError:  # graphql-core 3.2: it keys them by the nodes already
    OPTIONS: dict[str, Any] = {}
else:

    class NodeKeyedExecutor(IncrementalExecutor):
        """The executor `execute_sync` uses, keeping what it collects by the collected nodes."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # The lists are kept with what was collected from them, so no id is reused meanwhile.
            self.by_nodes: dict[tuple[Any, ...], tuple[list[FieldDetails], CollectedFields]] = {}

        def collect_subfields(
            self, return_type: GraphQLObjectType, field_details_list: list[FieldDetails]
        ) -> CollectedFields:
            key = (
                return_type,
                *((id(d.node), id(d.defer_usage), id(d.fragment_variable_values)) for d in field_details_list),
            )
            found = self.by_nodes.get(key)
            if found is None:
                found = self.by_nodes[key] = (
                    field_details_list,
                    super().collect_subfields(return_type, field_details_list),
                )
            return found[1]

    OPTIONS = {"executor_class": NodeKeyedExecutor}
