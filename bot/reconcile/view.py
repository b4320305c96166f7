"""What a run sees before it decides: the working snapshot, the evidence and each packet's derivation.

`decide` builds its plan from the same view; `explain`, `graph` and `status` show it without
planning any action. Pure: every observation is an argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.commands import pipeline
from bot.commands.effects import Explainer
from bot.config import BotConfig
from bot.evidence import graph as packet_graph
from bot.evidence.derive import Derivation, Evidence, derive_all
from bot.evidence.explain import explain
from bot.evidence.leases import LeaseReadback
from bot.github.observed import Observed
from bot.reconcile.inputs import Inputs
from bot.snapshot.model import Snapshot


def evidence_for(
    readback: LeaseReadback, observed: Observed, config: BotConfig, assignees: Mapping[int, tuple[str, ...]]
) -> Evidence:
    """The observations derivation needs; `assignees` are those accepted commands changed."""
    return Evidence(
        leases=readback.live,
        released=readback.released,
        issues={
            issue.number: issue.model_copy(update={"assignees": assignees.get(issue.number, issue.assignees)})
            for issue in observed.issues
        },
        rules=config.leases_rules,
        owner=config.owner,
    )


class View(NamedTuple):
    """The snapshot with every accepted command applied, what derivation saw, and what it derived."""

    snapshot: Snapshot
    evidence: Evidence
    derivations: tuple[Derivation, ...]


def explainer(inputs: Inputs) -> Explainer:
    """`/perf why`'s answer: a packet explained from this run's evidence, as `perfbot explain` says it."""

    def answer(snapshot: Snapshot, packet_id: str, assignees: Mapping[int, tuple[str, ...]]) -> str:
        evidence = evidence_for(inputs.readback, inputs.observed, inputs.config, assignees)
        found = explain(packet_id, snapshot, derive_all(snapshot, evidence), evidence, inputs.now)
        return inputs.renderer.render("explain.md.j2", x=found, prefix=inputs.config.commands.prefix)

    return answer


def view(inputs: Inputs) -> View:
    processed = pipeline.process(
        inputs.snapshot.model, inputs.observed, inputs.config, inputs.renderer, explainer(inputs)
    )
    evidence = evidence_for(inputs.readback, inputs.observed, inputs.config, processed.assignees)
    return View(processed.snapshot, evidence, tuple(derive_all(processed.snapshot, evidence)))


def changed_graph(inputs: Inputs, derivations: Sequence[Derivation]) -> str:
    """The mermaid block for the PR body and the job summary: the dependency graph with derived
    states, changed packets outlined; "" when no packet's derived state changed."""
    rules = inputs.config.leases_rules
    graph = packet_graph.of_run(inputs.snapshot.model, derivations, inputs.readback.live, rules)
    return inputs.renderer.mermaid_block(graph)
