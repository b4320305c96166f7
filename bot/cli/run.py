"""Subcommands that talk to GitHub: reconcile, explain, graph, status, export-state, publish-leases.

**Observing.** Subcommands that observe GitHub: reconcile (gather, decide, act) and explain, graph,
status.

**Publishing.** `perfbot publish-leases`, run on the host that runs dos: the live leases and their
readback time, committed to a branch of the repository, where a run on a GitHub runner reads them."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from bot import workflow
from bot.cli.arguments import PULL_REQUEST_LISTS
from bot.config import Settings
from bot.context import RunContext
from bot.errors import InputError, Problem, ProposalRefused, input_error
from bot.evidence import leases, packet_graph
from bot.evidence.leases import parse_leases
from bot.files import read_text, write_atomic
from bot.github.branch_file import BranchFile, branch_file
from bot.github.connect import open_port, open_publisher
from bot.github.events import FOLLOW_UP, FollowUp, Trigger, parse_event
from bot.github.events import follow_up as follow_up_of
from bot.github.offline import state_text
from bot.github.port import GitHubError, GitHubPort, LeaseDispatcher, PacedWriter, ReadMemory
from bot.issue_refs import issue_text
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from bot.reconcile.plan import Plan
from bot.reconcile.summary import RunResult
from bot.render import Renderer
from bot.timestamps import utc_stamp
from bot.untrusted import log_safe, log_safe_json

EXIT_OK = 0


def _commented(trigger: Trigger | None) -> frozenset[int]:
    """The issue of the comment that started the run (created or edited): read whatever the cache says."""
    if trigger is None or trigger.event != "issue_comment" or trigger.issue is None:
        return frozenset()
    return frozenset({trigger.issue})


def reconcile(settings: Settings, args: argparse.Namespace, context: RunContext) -> int:
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    settings = _with_pull_request_flags(settings, args)
    event = _event(args, context)  # every input is read and checked before anything is decided
    trigger, started_by = event if event is not None else (None, None)
    local = gather.snapshot(settings)
    scope = gather.read_scope(settings, local, args.leases)._replace(cache=args.cache, fresh=_commented(trigger))
    sent = started_by.sent if started_by is not None else ()
    with open_port(context, args.offline, now, scope, sent) as github:
        inputs = gather.inputs(settings, github.observe(), now, args.leases, local, max_writes=args.max_writes)
        plan = decide(inputs)
        if isinstance(github, ReadMemory):
            github.remember_commandless(plan.commandless)
        if trigger is not None:
            plan = plan.model_copy(update={"trigger": trigger})
        shown = _shown(plan, inputs.renderer, args)  # before any write: a plan that cannot be shown wrote nothing
        writes = not args.dry_run and not plan.refusal
        report = executor.apply(plan, github, args.max_writes) if writes else None
        if report is not None and args.follow_up and executor.wanted(report, started_by, args.max_writes):
            _ask_follow_up(github, report, started_by, args.max_writes)
        refused = tuple(report.refused) if report is not None else ()
        decided = plan
        merged = report.merge if report is not None else None
        plan = plan.model_copy(
            update={"api": github.requests(), "native_notes": (*plan.native_notes, *refused), "merge": merged}
        )
    # With no request counted and no write refused (offline), the plan is the one already shown.
    sys.stdout.write(shown if plan == decided else _shown(plan, inputs.renderer, args))
    if report is not None:
        print(f"applied {len(report.done)} actions; {len(report.deferred)} deferred to the next run", file=sys.stderr)
        if report.merge is not None:
            print(report.merge.said(), file=sys.stderr)
        if report.superseded is not None:
            done = report.superseded
            print(
                f"another run already commented on {issue_text(done.issue)} ({done.topic}): this run stopped writing",
                file=sys.stderr,
            )
    destinations = workflow.Destinations(
        plan_json=args.plan_json, outputs=args.outputs, summary=context.step_summary, server_url=context.server_url
    )
    result = RunResult(plan, report, inputs.readback, now, inputs.observed.repository)
    workflow.leave_results(result, inputs.renderer, destinations)
    if plan.refusal:
        raise ProposalRefused(plan.refusal)
    if report is not None and report.error is not None:
        raise report.error
    return EXIT_OK


def _shown(plan: Plan, renderer: Renderer, args: argparse.Namespace) -> str:
    """The plan as printed: JSON with `--json`, else the text; either way safe for an Actions log."""
    if args.json:
        return log_safe_json(plan.model_dump_json(indent=2) + "\n")
    return log_safe(renderer.render("plan.txt.j2", plan=plan, dry_run=args.dry_run))


def _with_pull_request_flags(settings: Settings, args: argparse.Namespace) -> Settings:
    """The config's `pull_request` options with those the flags (the action's inputs) set instead;
    a value the config would refuse is refused here, naming the flag."""
    given: dict[str, object] = {
        name: tuple(item.strip() for item in re.split(r"[,\n]", value) if item.strip())
        for name in PULL_REQUEST_LISTS
        if (value := getattr(args, f"pull_request_{name}")) is not None
    }
    for flag in ("draft", "delete_branch"):
        if (value := getattr(args, f"pull_request_{flag}")) is not None:
            given[flag] = value == "true"
    if not given:
        return settings
    current = settings.config.pull_request
    try:
        options = type(current).model_validate({**current.model_dump(), **given})
    except ValidationError as exc:
        flags = {f"--pull-request-{str(e['loc'][0]).replace('_', '-')}": e["msg"] for e in exc.errors()}
        raise InputError([Problem(flag, 0, 0, said) for flag, said in flags.items()]) from None
    config = settings.config.model_copy(update={"pull_request": options})
    return settings.model_copy(update={"config": config})


def _ask_follow_up(github: GitHubPort, report: executor.Report, started_by: FollowUp | None, budget: int) -> None:
    """Dispatch the follow-up run (`bot/reconcile/executor.py`); one that cannot be sent is a
    warning: the writes are left for the next run of the schedule."""
    if not isinstance(github, LeaseDispatcher):
        return
    pace = github.pace() if isinstance(github, PacedWriter) else None
    try:
        github.dispatch(FOLLOW_UP, executor.payload(report, pace, started_by, budget))
    except GitHubError as error:
        print(f"warning: no follow-up run was asked for: {error}", file=sys.stderr)
        return
    print(
        f"asked for a follow-up run (repository_dispatch {FOLLOW_UP}) for the {report.left} writes left",
        file=sys.stderr,
    )


def _event(args: argparse.Namespace, context: RunContext) -> tuple[Trigger, FollowUp | None] | None:
    """The event that started the run (its trigger), and the follow-up it is when a
    `perfbot-follow-up` dispatch started it; None without an event file."""
    event_path = args.event_path or context.event_path
    if event_path is None:
        return None
    name = args.event_name or context.event_name or "workflow_dispatch"
    text = read_text(event_path)
    return parse_event(name, text, str(event_path)), follow_up_of(name, text, str(event_path))


def show(settings: Settings, args: argparse.Namespace, context: RunContext) -> int:
    """explain, graph and status: what a run would see, without planning or writing anything."""
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    local = gather.snapshot(settings)
    scope = gather.read_scope(settings, local, args.leases)
    with open_port(context, args.offline, now, scope) as github:
        inputs = gather.inputs(settings, github.observe(), now, args.leases, local)
    if args.command == "status":
        from bot.reconcile.status import status  # its models are built only for `status`

        plan = decide(inputs)
        if args.format == "markdown" and not args.json:
            from bot.reconcile.view import dashboard_preview

            sys.stdout.write(dashboard_preview(inputs, plan.pull_request(), plan.changes))
            return EXIT_OK
        summary = status(plan, inputs.readback, inputs.observed, settings.config, now)
        text = (
            summary.model_dump_json(indent=2) + "\n"
            if args.json
            else inputs.renderer.render("status.txt.j2", s=summary)
        )
        sys.stdout.write(text)
        return EXIT_OK
    from bot.evidence.explain import explain  # explain and graph only: not imported by reconcile
    from bot.reconcile.view import render_explanation, view

    seen = view(inputs)
    if args.command == "graph":
        rules = settings.config.leases_rules
        graph = packet_graph.of_derivations(seen.snapshot, seen.derivations, inputs.readback.live, rules)
        graph = packet_graph.with_levers(graph, seen.snapshot)
        sys.stdout.write(inputs.renderer.graph(graph, args.format))
        return EXIT_OK
    found = explain(args.packet, seen.snapshot, seen.derivations, seen.evidence, now)
    sys.stdout.write(render_explanation(inputs, found, seen.pending))
    return EXIT_OK


def export_state(settings: Settings, out: Path, context: RunContext) -> int:
    """The live repository's state, written in the offline format so a live run can be replayed."""
    now = dt.datetime.now(dt.UTC)
    local = gather.snapshot(settings)
    with open_port(context, None, now, gather.read_scope(settings, local)) as github:
        observed = github.observe()
    write_atomic(out, state_text(observed))
    print(f"wrote {out}: {len(observed.issues)} issues, {len(observed.comments)} comments of {observed.repository}")
    return EXIT_OK


# The `repository_dispatch` event type a commit of changed leases sends; the workflow listens for it.
DISPATCH_EVENT = "perfbot-leases"
EMPTY = "empty: expected `dos lease-lane live` output (`[]` when no lease is held) or a dos lane journal"


def publish_leases(settings: Settings, args: argparse.Namespace, context: RunContext, stdin: TextIO) -> int:
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    name = "standard input" if args.source == "-" else str(args.source)
    text = stdin.read() if args.source == "-" else read_text(Path(args.source))
    if not text.strip():  # a failed `dos` in a pipe prints nothing: publishing "no leases" would fail open
        raise input_error(name, EMPTY + "; nothing was published")
    readback = parse_leases(text, name)
    for warning in readback.warnings:
        print(log_safe(f"warning: {warning}"), file=sys.stderr)
    where = target(settings, args.to)
    refresh = settings.config.leases_rules.readback_refresh_minutes
    with open_publisher(context, args.offline, now) as github:
        decision = leases.decide(github.published(where), readback, now, refresh, str(where))
        count = len(readback.live)
        if decision.reason is None:
            at = utc_stamp(decision.previous_at) if decision.previous_at else "?"
            print(f"{where} already holds these {count} live leases, read back at {at}; nothing written")
            return EXIT_OK
        message = Renderer.from_directory(settings.templates_path).render(
            "publish-commit.txt.j2",
            at=utc_stamp(now),
            count=count,
            reason=decision.reason,
            previous=utc_stamp(decision.previous_at) if decision.previous_at else "",
        )
        commit = github.publish(where, decision.text, message)
        print(f"published to {where}{f' (commit {commit[:12]})' if commit else ''}: {message.splitlines()[0]}")
        # A refresh republishes the same leases: nothing a run decides on changed, so no run is started.
        if decision.reason != "refresh" and isinstance(github, LeaseDispatcher):
            github.dispatch(DISPATCH_EVENT, {"leases": str(where), "readback_at": utc_stamp(now), "commit": commit})
            print(f"sent repository_dispatch {DISPATCH_EVENT}: a run of the workflow that listens for it starts now")
    return EXIT_OK


def target(settings: Settings, to: str | None) -> BranchFile:
    """`--to`, else the config's `leases` when it names a branch file, else perfbot/leases:leases.json."""
    if to is None:
        return leases.target(settings.config.lease_file)
    try:
        found = branch_file(to)
    except ValueError as exc:
        raise input_error("--to", str(exc)) from exc
    if found is None:
        raise input_error("--to", f"{to!r}: expected BRANCH:PATH, e.g. {leases.DEFAULT_TARGET}")
    return found
