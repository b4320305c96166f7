"""What a run sees before it decides: the working snapshot, the evidence and each packet's derivation.

`decide` builds its plan from the same view; `explain`, `graph` and `status` show it without
planning any action. Every surface shows the merged state (the default branch's snapshot with the
live leases and issues); what the regeneration PR would change is shown as pending. Pure: every
observation is an argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.commands import pipeline
from bot.commands.effects import Explainer
from bot.config import BotConfig
from bot.evidence import packet_graph
from bot.evidence.derive import Derivation, PacketEvidence, derive_all
from bot.evidence.explain import Explanation, explain
from bot.evidence.leases import LeaseReadback
from bot.github.actions import PullRequestAction
from bot.github.observed import Observed
from bot.issue_refs import IssueKey, issue_order
from bot.reconcile import dashboard
from bot.reconcile.changes import Change
from bot.reconcile.inputs import Inputs
from bot.snapshot.model import Snapshot, WorkState


def evidence_for(
    readback: LeaseReadback, observed: Observed, config: BotConfig, assignees: Mapping[IssueKey, tuple[str, ...]]
) -> PacketEvidence:
    """The observations derivation needs; `assignees` are those accepted commands changed."""
    return PacketEvidence(
        leases=readback.live,
        released=readback.released,
        issues={
            issue.key: issue.model_copy(update={"assignees": assignees.get(issue.key, issue.assignees)})
            for issue in observed.issues
        },
        rules=config.leases_rules,
        owner=config.owner,
    )


class View(NamedTuple):
    """The merged state (the default branch's snapshot with the live leases and issues, and the
    assignments the run's commands make), what its derivation saw and derived, and what the
    regeneration PR would change of it."""

    snapshot: Snapshot
    evidence: PacketEvidence
    derivations: tuple[Derivation, ...]
    # Each packet whose state the PR changes: the state it takes when the PR merges.
    pending: Mapping[str, WorkState]


def pending_states(merged: Sequence[Derivation], working: Snapshot, evidence: PacketEvidence) -> dict[str, WorkState]:
    """The packets whose derived state the working snapshot (the PR's) changes, and to what."""
    now = {d.id: d.derived_state for d in derive_all(working, evidence)}
    return {d.id: now[d.id] for d in merged if d.id in now and now[d.id] != d.derived_state}


def explainer(inputs: Inputs) -> Explainer:
    """`/perf why`'s answer, as `perfbot explain` says it: the packet in the merged state, and the
    state the regeneration PR gives it when that differs. The run's answers are given from the
    snapshot its commands end on, so they never disagree with each other or with the labels."""
    base = inputs.snapshot.model
    # A run's answers share their work: the evidence and the merged derivations for each set of
    # assignments, the pending states for each working snapshot (kept alive here, so its id is its own).
    Assigned = tuple[tuple[IssueKey, tuple[str, ...]], ...]
    merged_for: dict[Assigned, tuple[PacketEvidence, list[Derivation]]] = {}
    pending_for: dict[tuple[int, Assigned], tuple[Snapshot, dict[str, WorkState]]] = {}
    # And each answer, for the same packet of the same working snapshot (kept alive here too).
    said: dict[tuple[int, str, Assigned], tuple[Snapshot, str]] = {}

    def answer(working: Snapshot, packet_id: str, assignees: Mapping[IssueKey, tuple[str, ...]]) -> str:
        key = tuple(sorted(assignees.items(), key=lambda item: issue_order(item[0])))
        if (id(working), packet_id, key) not in said:
            said[id(working), packet_id, key] = working, answer_anew(working, packet_id, key)
        return said[id(working), packet_id, key][1]

    def answer_anew(working: Snapshot, packet_id: str, key: Assigned) -> str:
        assignees = dict(key)
        if key not in merged_for:
            evidence = evidence_for(inputs.readback, inputs.observed, inputs.config, assignees)
            merged_for[key] = evidence, derive_all(base, evidence)
        evidence, merged = merged_for[key]
        if base.packet(packet_id) is None:  # a packet only the PR has
            found = explain(packet_id, working, derive_all(working, evidence), evidence, inputs.now)
            return render_explanation(inputs, found, {})
        found = explain(packet_id, base, merged, evidence, inputs.now)
        if (id(working), key) not in pending_for:
            pending_for[id(working), key] = working, pending_states(merged, working, evidence)
        return render_explanation(inputs, found, pending_for[id(working), key][1])

    return answer


def render_explanation(inputs: Inputs, found: Explanation, pending: Mapping[str, WorkState]) -> str:
    """The explanation in words, with the state the regeneration PR would give the packet."""
    settings = inputs.config.pull_request
    pull = inputs.observed.open_pull(settings.branch)
    return inputs.renderer.render(
        "explain.md.j2",
        x=found,
        prefix=inputs.config.commands.prefix,
        pending=pending.get(found.packet.id),
        pull=pull.number if pull else None,
        branch=settings.branch,
        repository=inputs.observed.repository,
    )


def view(inputs: Inputs) -> View:
    processed = pipeline.process(
        inputs.snapshot.model, inputs.observed, inputs.config, inputs.renderer, explainer(inputs), inputs.now
    )
    evidence = evidence_for(inputs.readback, inputs.observed, inputs.config, processed.assignees)
    merged = derive_all(inputs.snapshot.model, evidence)
    return View(inputs.snapshot.model, evidence, tuple(merged), pending_states(merged, processed.snapshot, evidence))


def changed_graph(inputs: Inputs, derivations: Sequence[Derivation]) -> str:
    """The mermaid block for the PR body and the job summary: the dependency graph with derived
    states, changed packets outlined; "" when no packet's derived state changed."""
    rules = inputs.config.leases_rules
    graph = packet_graph.of_run(inputs.snapshot.model, derivations, inputs.readback.live, rules)
    return inputs.renderer.mermaid_block(graph)


def dashboard_preview(inputs: Inputs, proposal: PullRequestAction, changes: Sequence[Change] = ()) -> str:
    """The dashboard issue's body as the run would write it (`perfbot status --format markdown`),
    whether or not the dashboard is on; `proposal` is the run's regeneration PR action and
    `changes` its diff."""
    processed = pipeline.process(
        inputs.snapshot.model, inputs.observed, inputs.config, inputs.renderer, explainer(inputs), inputs.now
    )
    evidence = evidence_for(inputs.readback, inputs.observed, inputs.config, processed.assignees)
    merged = derive_all(inputs.snapshot.model, evidence)
    working = derive_all(processed.snapshot, evidence)
    pending = dashboard.pending_of(merged, working)
    return dashboard.dashboard_body(inputs, merged, pending, processed.applied, proposal, changes).text
