"""Decide: from the gathered inputs to the next snapshot, the page and the actions. Pure.

The clock, the bot's login and every observation are inputs; nothing here reads a file,
the network or the time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from bot.bodies import fitted
from bot.commands import pipeline
from bot.commands.records import Record
from bot.errors import BotError
from bot.evidence.derive import Derivation, derive_all
from bot.github import pull_body
from bot.github.actions import (
    GITHUB_BODY_LIMIT,
    Action,
    IgnoredRecord,
    LeaseReport,
    NativeNote,
    Proposal,
    PullRequestAction,
    ReadbackTime,
)
from bot.github.observed import Comment, Observed
from bot.issue_refs import issue_text
from bot.reconcile import dashboard, proposal
from bot.reconcile.changes import Change, snapshot_changes
from bot.reconcile.inputs import Inputs
from bot.reconcile.labels_and_links import plan_native, with_proposals
from bot.reconcile.nudges import Nudges, overdue_reviews
from bot.reconcile.plan import Plan
from bot.reconcile.reach import withhold
from bot.reconcile.schedule import schedule
from bot.reconcile.view import changed_graph, evidence_for, explainer
from bot.render import Renderer
from bot.snapshot import store_save
from bot.snapshot.model import Snapshot, WorkState
from bot.snapshot.validation import unrouted_reviews, validate
from bot.timestamps import parse_timestamp, utc_stamp

# Said where the plan is printed; the job summary and the dashboard say what to do in their own words.
HELD = (
    "the branch carries commits perfbot did not make, so perfbot leaves the PR as it is; merge or close it "
    "(the next run opens a new PR from the default branch's tip), or take those commits off the branch"
)


def decide(inputs: Inputs) -> Plan:
    config, observed = inputs.config, inputs.observed
    base = inputs.snapshot.model
    processed = pipeline.process(base, observed, config, inputs.renderer, explainer(inputs), inputs.now)
    snapshot = processed.snapshot
    evidence = evidence_for(inputs.readback, observed, config, processed.assignees)
    derivations = derive_all(snapshot, evidence)
    # Every surface shows the merged state: the default branch's snapshot with the live leases and
    # issues (the assignments this run makes included: they are written now, not proposed).
    merged = derive_all(base, evidence)
    following = _following(base, snapshot, derivations, processed.settled_through)
    # Labels and links show the merged state too: what the PR would change shows there once it merges.
    native = plan_native(base, next_snapshot(base, merged), merged, observed, config, inputs.renderer)
    following, native.proposals, skipped = proposed(base, following, native.proposals)
    native.notes += skipped
    files, refused = proposed_files(inputs, following)
    overdue = overdue_reviews(snapshot, inputs.now)
    nudges = Nudges(observed, config, inputs.renderer, inputs.now, inputs.told)
    existing = observed.open_pull(config.pull_request.branch)
    # The PR body records quiet answers; a refused PR, or one perfbot leaves, records nothing.
    answers = processed.answers(carrier=not refused and not (existing is not None and existing.foreign_commits))
    actions: list[Action] = [
        *answers.actions,
        *nudges.every(base, merged, snapshot, overdue, _pending(merged, derivations)),
    ]
    leases = lease_report(inputs)
    changes = snapshot_changes(base, following, derivations)
    story = Story(changes, processed.applied, native.proposals, answers.pull_records, answers.commit_records)
    proposal = _on_branch(pull_request(inputs, derivations, files, story, leases, refused), inputs, story)
    proposal = proposal if refused else with_branch_deleted(inputs, proposal)
    actions.append(_with_forks(proposal, observed, config.pull_request.branch))
    board = dashboard.planned(
        inputs, merged, derivations, processed.applied, proposal, () if refused else story.changes
    )
    reachable, unreachable = withhold([*actions, *board.actions, *native.actions], observed, base)
    ordered, deferred = schedule(reachable, inputs.max_writes)
    return Plan(
        refusal=refused,
        now=inputs.now.isoformat(),
        decided_on=inputs.decided_on,
        commands=tuple(processed.reports),
        this_run=processed.this_run(),
        commandless=tuple(sorted(processed.commandless)),
        actions=tuple(ordered),
        deferred=tuple(deferred),
        native_notes=tuple(native.notes),
        switched_off=native.costs,
        proposals=tuple(native.proposals),
        packets=tuple(derivations),
        overdue=tuple(overdue),
        unrouted_reviews=unrouted_reviews(snapshot),
        leases=leases,
        merged=tuple(merged),
        pending=_pending(merged, derivations),
        changes=() if refused else tuple(story.changes),
        dashboard=board.report,
        ignored_records=(*processed.ignored, *_tampered(observed)),
        unreachable=unreachable,
    )


def _with_forks(proposal: PullRequestAction, observed: Observed, branch: str) -> PullRequestAction:
    """The PR action naming the open PRs from forks that share perfbot's branch name (left alone)."""
    forks = tuple(p.number for p in observed.fork_pulls(branch))
    return proposal.model_copy(update={"forks": forks}) if forks else proposal


def _tampered(observed: Observed) -> list[IgnoredRecord]:
    """perfbot's comments someone else edited: GitHub names the editor, and their markers do not count."""
    return [
        IgnoredRecord(
            where="comment",
            comment_id=c.id,
            reason=f"perfbot's comment on {issue_text(c.issue)} was last edited by "
            f"{c.edited_by_other_than(observed.bot_login)}",
        )
        for c in observed.tampered_bot_comments()
    ]


def _pending(merged: list[Derivation], working: list[Derivation]) -> dict[str, WorkState]:
    """The packets whose state the regeneration PR changes, and the state each takes when it merges."""
    now = {d.id: d.derived_state for d in working}
    return {d.id: now[d.id] for d in merged if d.id in now and now[d.id] != d.derived_state}


def proposed(
    base: Snapshot, following: Snapshot, proposals: list[Proposal]
) -> tuple[Snapshot, list[Proposal], list[NativeNote]]:
    """The next snapshot with every proposal that keeps it valid, those proposals, and a note for
    each one left out (a person's link GitHub allows and the snapshot does not: a run goes on)."""
    # The default branch's snapshot was validated when it was gathered; only a change is checked
    # again, and only the records it changed are read for their table cells (`clean`).
    findings = validate(following, clean=base) if following != base else []
    if findings:
        raise BotError("the reconciled snapshot would be invalid: " + "; ".join(f.message for f in findings))
    kept: list[Proposal] = []
    notes: list[NativeNote] = []
    for item in proposals:
        trial = with_proposals(following, [item])
        if trial == following:
            continue
        found = validate(trial, clean=following)
        if found:
            detail = "; ".join(f.message for f in found[:3])
            notes.append(
                NativeNote(
                    kind="invalid-proposal", issue=item.issue, packet=item.packet, other=item.target, detail=detail
                )
            )
            continue
        following = trial
        kept.append(item)
    return following, kept, notes


def lease_report(inputs: Inputs) -> LeaseReport:
    """The readback as the plan reports it: its stale leases (still counted) and, for a published
    readback, when it was read back and whether that is longer ago than the config allows."""
    readback, rules = inputs.readback, inputs.config.leases_rules
    time = None
    if readback.readback_at is not None:
        age = int((inputs.now - readback.readback_at).total_seconds() // 60)
        time = ReadbackTime(
            at=utc_stamp(readback.readback_at),
            age_minutes=age,
            max_age_minutes=rules.readback_max_age_minutes,
            stale=inputs.now - readback.readback_at > dt.timedelta(minutes=rules.readback_max_age_minutes),
        )
    return LeaseReport(
        file=readback.file,
        format=readback.format,
        live=len(readback.live),
        pulls=sum(1 for lease in readback.live if lease.pull is not None),
        stale=tuple(lease.describe() for lease in readback.stale(inputs.now, rules.ttl_minutes, rules.grace_minutes)),
        warnings=readback.warnings,
        readback=time,
    )


def proposed_files(inputs: Inputs, following: Snapshot) -> tuple[dict[str, str], str]:
    """The PR's files for `following`, and why they must not be proposed ("" when they may)."""
    text = store_save.save_text(inputs.snapshot, following)
    files = {inputs.snapshot_path: text, inputs.page_path: inputs.renderer.page(following, inputs.config.page_text)}
    # An unchanged save is the default branch's own text, which was loaded and validated already;
    # `following` was validated by `decide` before this.
    same = text == inputs.snapshot.text
    refused = "" if same else proposal.refusal(text, inputs.snapshot_path, following, intended_valid=True)
    return files, refused


def next_snapshot(snapshot: Snapshot, derivations: list[Derivation]) -> Snapshot:
    """Derived states and owners written in; cleared blockers dropped; completed deps satisfied."""
    by_id = {d.id: d for d in derivations}
    packets = []
    for packet in snapshot.work_packets:
        d = by_id[packet.id]
        update = {
            "state": d.derived_state,
            "owner": d.derived_owner,
            "blocked_by_ids": tuple(b for b in packet.blocked_by_ids if b not in d.cleared_blockers),
            "hard_dependency_ids": tuple(x for x in packet.hard_dependency_ids if x not in d.newly_satisfied),
            "satisfied_dependency_ids": (*packet.satisfied_dependency_ids, *d.newly_satisfied),
        }
        # A packet nothing changes stays the same object, so the validation of the next snapshot
        # knows it for one of the clean default branch's (`validate(..., clean=base)`).
        same = all(getattr(packet, name) == value for name, value in update.items())
        packets.append(packet if same else packet.model_copy(update=update))
    return snapshot.model_copy(update={"work_packets": tuple(packets)})


def _compacted(base: Snapshot, following: Snapshot, settled_through: int) -> Snapshot:
    """Settled ledger entries compacted away, when the snapshot changes anyway and the bound moves."""
    if following == base or settled_through <= base.commands_settled_through:
        return following
    return following.model_copy(
        update={
            "ledger": tuple(e for e in following.ledger if e.comment_id > settled_through),
            "commands_settled_through": settled_through,
        }
    )


def _following(base: Snapshot, working: Snapshot, derivations: list[Derivation], settled_through: int) -> Snapshot:
    """The snapshot the PR proposes: the working one with the evidence written in, each moved state
    counted as an episode, settled ledger entries compacted, and `as_of` dated."""
    counted = _count_state_changes(base, next_snapshot(working, derivations))
    return dated(base, _compacted(base, counted, settled_through))


def dated(base: Snapshot, following: Snapshot) -> Snapshot:
    """`as_of` moved to the latest date the change carries: the comment of each command it newly
    records, each constraint's `observed_at` it sets. Never past a current constraint's `review_by`
    (the snapshot's own rule: a constraint overdue is reviewed before `as_of` passes it), never back."""
    if following == base:
        return following
    recorded = {entry.key for entry in base.ledger}
    stamps = (parse_timestamp(e.at) for e in following.ledger if e.key not in recorded)
    dates = [stamp.astimezone(dt.UTC).date() for stamp in stamps if stamp is not None]
    before = {c.id: c.observed_at for c in base.constraints}
    dates += [c.observed_at for c in following.constraints if before.get(c.id) != c.observed_at]
    ceiling = min((c.review_by for c in following.constraints), default=None)
    latest = max(dates, default=base.as_of)
    moved = min(latest, ceiling) if ceiling is not None else latest
    return following.model_copy(update={"as_of": moved}) if moved > base.as_of else following


def _count_state_changes(base: Snapshot, following: Snapshot) -> Snapshot:
    """Bump `state_revision` of each packet whose state this change moves (one episode each)."""
    before = {p.id: p for p in base.work_packets}
    packets = tuple(
        p.model_copy(update={"state_revision": before[p.id].state_revision + 1, "previous_state": before[p.id].state})
        if p.id in before and p.state != before[p.id].state
        else p
        for p in following.work_packets
    )
    return following.model_copy(update={"work_packets": packets})


class Story(NamedTuple):
    """What the PR body tells: every change of the diff (read from the two snapshots), the commands
    behind some of them, the proposals, and the records of the commands answered quietly; and the
    records perfbot's commit keeps as trailers: every pending accepted change's."""

    changes: list[Change]
    applied: list[tuple[Comment, str]]
    proposals: list[Proposal]
    records: Sequence[Record] = ()
    trailers: Sequence[Record] = ()


def pull_request(
    inputs: Inputs,
    derivations: list[Derivation],
    files: dict[str, str],
    story: Story,
    leases: LeaseReport,
    refused: str = "",
) -> PullRequestAction:
    """Create, update or close the one regeneration PR, or leave it: CPR's create-or-update rule.

    The body's header carries the records of the commands answered quietly (`pipeline`)."""
    settings = inputs.config.pull_request
    existing = inputs.observed.open_pull(settings.branch)
    if refused:
        number = existing.number if existing else None
        return PullRequestAction(operation="none", number=number, branch=settings.branch, note=f"refused: {refused}")
    if existing is not None and existing.foreign_commits:
        # Neither updated nor closed: a person's commits are never overwritten nor shut away.
        return PullRequestAction(operation="none", number=existing.number, branch=settings.branch, note=HELD, held=True)
    changed = any(inputs.committed.get(path) != text for path, text in files.items())
    if not changed:
        if existing is None:
            return PullRequestAction(operation="none", branch=settings.branch)
        return PullRequestAction(operation="close", number=existing.number, branch=settings.branch)
    # People's text above and below perfbot's part of the body is theirs: written back as it is.
    kept = pull_body.parts(existing.body) if existing is not None else pull_body.Parts("", "", "")
    inner = _pull_body(inputs, derivations, files, story, leases, len(kept.above) + len(kept.below))
    body = pull_body.assemble(kept.above, inner, kept.below)
    proposal = PullRequestAction(
        operation="create", branch=settings.branch, title=settings.title, body=body, files=files, merge=settings.merge
    )
    if existing is None:
        options = ("labels", "reviewers", "team_reviewers", "draft")
        return proposal.model_copy(update={name: getattr(settings, name) for name in options})
    # perfbot's part cannot fit beside all that people wrote: their body stays as it is, and the
    # commit alone carries the records (GitHub would refuse the longer body on every run).
    crowded = len(body) > GITHUB_BODY_LIMIT
    body = existing.body if crowded else body
    if existing.files == files and (crowded or kept.joined() == body):
        return PullRequestAction(operation="none", number=existing.number, branch=settings.branch, crowded=crowded)
    # The title is perfbot's when it opens the PR; a title a person gives it later stays.
    update = {"operation": "update", "number": existing.number, "title": existing.title, "body": body}
    return proposal.model_copy(update=update | {"replaced": kept.edited and not crowded, "crowded": crowded})


def _fitting(records: Sequence[Record], room: int) -> str:
    """The markers of the first records that fit in `room` characters, one a line."""
    lines: list[str] = []
    for record in records:
        line = record.marker() + "\n"
        if len(line) > room:
            break
        room -= len(line)
        lines.append(line)
    return "".join(lines)


def _on_branch(proposal: PullRequestAction, inputs: Inputs, story: Story) -> PullRequestAction:
    """The PR's write, made only while the branch is where this run read it, with the records its
    commit keeps too, and why the branch starts again from the tip when that leaves commits behind."""
    if proposal.operation == "none":
        return proposal
    observed, branch = inputs.observed, inputs.config.pull_request.branch
    records = tuple(r.encode() for r in story.trailers)
    proposal = proposal.model_copy(update={"expected_head": observed.head_of(branch), "records": records})
    if proposal.operation == "create" and (why := observed.left_behind(branch)):
        proposal = proposal.model_copy(update={"restarted": why})
    return proposal


def with_branch_deleted(inputs: Inputs, action: PullRequestAction) -> PullRequestAction:
    """`pull_request.delete_branch`, as create-pull-request's `delete-branch`: the branch goes once no
    PR of it is open (this action closes it, or none is open: a person or GitHub's auto-merge merged
    it, a person closed it) and perfbot made its head commit, so nothing of a person's goes with it.
    A branch a change is proposed on is written again instead (and a refused proposal leaves it)."""
    head = inputs.observed.branches.get(action.branch)
    if not inputs.config.pull_request.delete_branch or head is None or not head.ours:
        return action
    if action.operation == "close" or (action.operation == "none" and inputs.observed.open_pull(action.branch) is None):
        return action.model_copy(update={"delete_head": head.oid})
    return action


def _pull_body(
    inputs: Inputs,
    derivations: list[Derivation],
    files: dict[str, str],
    story: Story,
    leases: LeaseReport,
    kept: int = 0,
) -> str:
    """perfbot's part of the PR's body after its start marker: the records of quiet answers in its
    header, then what the change does, then the line below which people's text is theirs (`kept`:
    how many characters of people's text the body keeps above and below it)."""
    changes, applied, records = story.changes, story.applied, story.records
    graph = changed_graph(inputs, derivations)

    def render(shown: int, renderer: Renderer = inputs.renderer) -> str:
        """The body listing the first `shown` changes and commands; the snapshot's diff has them all."""
        return renderer.render(
            "pr_body.md.j2",
            changes=changes[:shown],
            commands=applied[:shown],
            omitted=len(changes[shown:]) + len(applied[shown:]),
            repository=inputs.observed.repository,
            files=sorted(path for path, text in files.items() if inputs.committed.get(path) != text),
            readback=inputs.readback,
            leases=leases,
            graph=graph,
            proposals=story.proposals,
        )

    # People's text below perfbot's part is theirs, and the whole stays under GitHub's limit.
    room = min(inputs.config.commands.max_body_chars, GITHUB_BODY_LIMIT - kept)
    room -= pull_body.START_LINE + len(pull_body.END) + 2
    # Records carried from runs under a larger `max_body_chars` may not fit: the body holds those
    # that do, in half of it, and the commit's trailers hold every one (`pipeline` reads both).
    top = _fitting(records, room // 2)
    most, limit = max(len(changes), len(applied)), max(0, room - len(top))
    body = render(most)
    if len(body) > limit:
        graph = ""  # the graph goes first: `perfbot graph` draws it from the snapshot any time
        body = fitted(render, most, limit, inputs.renderer)
    return top + body.rstrip("\n") + "\n\n" + pull_body.END
