"""Labels and links together: their writes, then the comments that account for them. Pure.

The comments come last and are posted only when every label and link write of the run landed
(the executor sees to that): a record never names a link that is not in place, and an
explanation never promises a label that a refusal kept off.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from bot.bodies import capped
from bot.config import BotConfig
from bot.evidence.derive import Derivation
from bot.github.actions import TOPICS, Action, CommentAction, NativeNote, Proposal
from bot.github.markers import header, marker, markers_of
from bot.github.observed import Observed
from bot.reconcile.labels import LabelPlan, plan_labels
from bot.reconcile.links import LINK_TOPIC, RECORD_TOPIC, LinkPlan, Record, link_key, plan_links
from bot.render import Renderer
from bot.snapshot.model import Snapshot

RESTORED_TOPIC = "native-restored"


@dataclass
class NativePlan:
    actions: list[Action] = field(default_factory=list)
    notes: list[NativeNote] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)


def plan_native(
    base: Snapshot,
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
) -> NativePlan:
    """`base` is the default branch's snapshot, `following` the one labels and links show (the
    merged state: `base` with its derived states written in) and `derivations` its packets'."""
    labels = plan_labels(following, derivations, observed, config.labels)
    links = plan_links(base, following, observed, config.links)
    found = NativePlan(actions=[*labels.actions, *links.actions], notes=links.notes, proposals=links.proposals)
    found.actions += _restored(following, derivations, observed, labels, links, config, renderer)
    limit = config.commands.max_body_chars
    found.actions += [_record(record, following, links, renderer, limit) for record in links.records]
    return found


def _restored(
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    labels: LabelPlan,
    links: LinkPlan,
    config: BotConfig,
    renderer: Renderer,
) -> list[CommentAction]:
    """One comment per issue on which perfbot puts back what a person took off."""
    said, prefix = markers_of(observed.bot_comments()), config.labels.prefix
    states = {d.id: d.derived_state for d in derivations}
    comments = []
    for issue in sorted({*labels.restored, *links.restored}):
        names = labels.restored.get(issue, [])
        stamps = [labels.removals[(issue, name)].created_at.isoformat() for name in names]
        restored_links = links.restored.get(issue, [])
        key = f"{issue}:{_digest(names, stamps, [link_key(link) for link in restored_links])}"
        if (RESTORED_TOPIC, key) in said:
            continue
        label_packets = {
            name: [p for p in following.work_packets if p.issue == issue and name == prefix + states[p.id]]
            for name in names
        }
        body = renderer.render(
            TOPICS["native-restored"].template,
            marker=marker(RESTORED_TOPIC, key),
            labels=label_packets,
            removals={name: labels.removals[(issue, name)] for name in names},
            links=[(link, links.why.get(link, [])) for link in restored_links],
            states=states,
        )
        body = capped(body, config.commands.max_body_chars, renderer)
        comments.append(CommentAction(issue=issue, topic="native-restored", body=body))
    return comments


def _record(record: Record, following: Snapshot, links: LinkPlan, renderer: Renderer, limit: int) -> CommentAction:
    """The record's header lists every kept link (what the next run reads); the text may be cut."""
    markers = [(RECORD_TOPIC, record.program), *((LINK_TOPIC, link_key(link)) for link in record.kept)]
    program = next(p for p in following.programs if p.id == record.program)
    body = renderer.render(
        TOPICS["native-links"].template,
        header=header(*markers),
        program=program,
        kept=[(link, links.why.get(link, [])) for link in record.kept],
        dropped=record.dropped,
    )
    return CommentAction(issue=record.umbrella, topic="native-links", body=capped(body, limit, renderer))


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:12]
