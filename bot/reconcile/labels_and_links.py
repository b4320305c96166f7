"""Labels and links together: their writes and the comments that account for them. Pure.

An explanation of what perfbot puts back (native-restored) comes just before the writes it
explains, one marker per thing put back: a run stopped between the two leaves the next run to
make the writes, and it finds the marker and says nothing twice (said after them, a stop in
between lost it: the next run sees nothing to put back). The record of each program's links
(native-links) comes last, written only when every label and link write of the run landed (the
executor sees to that), so it never names a link that is not in place. It is one living comment
per program, edited in place when the program's links change, naming the cause of each link that
went; a run that changes none of them writes nothing to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.bodies import capped
from bot.config import BotConfig
from bot.evidence.derive import Derivation
from bot.github.actions import TOPICS, Action, CommentAction, EditCommentAction, NativeNote, Proposal
from bot.github.markers import header, markers_of
from bot.github.observed import Observed
from bot.reconcile.labels import LabelPlan, plan_labels
from bot.reconcile.link_causes import cause_of
from bot.reconcile.links import LINK_TOPIC, RECORD_TOPIC, Link, LinkPlan, Record, link_key, plan_links
from bot.render import Renderer
from bot.snapshot.model import Snapshot

RESTORED_TOPIC = "native-restored"


# Each switch of labels and links in the config, as `docs/reference.md` names it.
SWITCHES = ("labels.enabled", "links.blocked_by", "links.sub_issues")


@dataclass
class NativePlan:
    actions: list[Action] = field(default_factory=list)
    notes: list[NativeNote] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    # For each switch that is off: how many more writes this run would plan with it on.
    costs: dict[str, int] = field(default_factory=dict)


def plan_native(
    base: Snapshot,
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
) -> NativePlan:
    """`base` is the default branch's snapshot, `following` the one labels and links show (the
    merged state: `base` with its derived states written in) and `derivations` its packets'.
    For each switch that is off, the plan says what turning it on would cost in writes."""
    found = _planned(base, following, derivations, observed, config, renderer)
    for switch in SWITCHES:
        if not _is_on(config, switch):
            with_it = _planned(base, following, derivations, observed, _switched_on(config, switch), renderer)
            found.costs[switch] = max(0, len(with_it.actions) - len(found.actions))
    return found


def _is_on(config: BotConfig, switch: str) -> bool:
    section, _, key = switch.partition(".")
    return bool(getattr(getattr(config, section), key))


def _switched_on(config: BotConfig, switch: str) -> BotConfig:
    section, _, key = switch.partition(".")
    settings = getattr(config, section)
    return config.model_copy(update={section: settings.model_copy(update={key: True})})


def _planned(
    base: Snapshot,
    following: Snapshot,
    derivations: list[Derivation],
    observed: Observed,
    config: BotConfig,
    renderer: Renderer,
) -> NativePlan:
    labels = plan_labels(following, derivations, observed, config.labels, config.pull_leases is not None)
    links = plan_links(base, following, observed, config.links)
    found = NativePlan(notes=links.notes, proposals=links.proposals)
    found.actions += _restored(following, derivations, observed, labels, links, config, renderer)
    found.actions += [*labels.actions, *links.actions]
    limit = config.commands.max_body_chars
    for record in links.records:
        written = _record(record, base, following, links, renderer, limit)
        if written is not None:
            found.actions.append(written)
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
    """One comment per issue on which perfbot puts back what a person took off, with a marker for
    each thing put back (a label by the removal it undoes, a link by its key); what an earlier
    comment names already is not said again."""
    said, prefix = markers_of(observed.bot_comments()), config.labels.prefix
    states = {d.id: d.derived_state for d in derivations}
    comments = []
    for issue in sorted({*labels.restored, *links.restored}):
        names, restored_links, keys = _unsaid(issue, labels, links, said)
        if not keys:
            continue
        label_packets = {
            name: [p for p in following.work_packets if p.issue == issue and name == prefix + states[p.id]]
            for name in names
        }
        body = renderer.render(
            TOPICS["native-restored"].template,
            marker=header(*((RESTORED_TOPIC, key) for key in keys)),
            labels=label_packets,
            removals={name: labels.removals[(issue, name)] for name in names},
            links=[(link, links.why.get(link, [])) for link in restored_links],
            states=states,
        )
        body = capped(body, config.commands.max_body_chars, renderer)
        comments.append(CommentAction(issue=issue, topic="native-restored", body=body))
    return comments


def _unsaid(
    issue: int, labels: LabelPlan, links: LinkPlan, said: frozenset[tuple[str, str]]
) -> tuple[list[str], list[Link], list[str]]:
    """The labels and links put back on `issue` that no comment of the bot names yet, and their keys."""
    stamp = {name: labels.removals[(issue, name)].created_at.isoformat() for name in labels.restored.get(issue, [])}
    names = [name for name in stamp if (RESTORED_TOPIC, _label_key(issue, name, stamp[name])) not in said]
    found = [link for link in links.restored.get(issue, []) if (RESTORED_TOPIC, _link_key(issue, link)) not in said]
    keys = [*(_label_key(issue, name, stamp[name]) for name in names), *(_link_key(issue, link) for link in found)]
    return names, found, keys


def _record(
    record: Record, base: Snapshot, following: Snapshot, links: LinkPlan, renderer: Renderer, limit: int
) -> CommentAction | EditCommentAction | None:
    """The record's living comment: edited when it holds other text, posted when there is none on
    the umbrella, left alone when it says this already. Its header lists every kept link (what
    the next run reads); the text may be cut."""
    markers = [(RECORD_TOPIC, record.program), *((LINK_TOPIC, link_key(link)) for link in record.kept)]
    program = next(p for p in following.programs if p.id == record.program)
    body = renderer.render(
        TOPICS["native-links"].template,
        header=header(*markers),
        program=program,
        kept=[(link, links.why.get(link, [])) for link in record.kept],
        added=record.added,
        dropped=[(link, cause_of(link, base, following)) for link in record.dropped],
    )
    body = capped(body, limit, renderer)
    if record.comment is None:
        return CommentAction(issue=record.umbrella, topic="native-links", body=body)
    if record.comment.body == body:
        return None
    return EditCommentAction(issue=record.umbrella, comment_id=record.comment.id, topic="native-links", body=body)


def _label_key(issue: int, name: str, removed_at: str) -> str:
    return f"{issue}:label:{name}:{removed_at}"


def _link_key(issue: int, link: Link) -> str:
    return f"{issue}:link:{link_key(link)}"
