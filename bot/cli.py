"""Command line: parse arguments, read the environment once into a run context, run one command,
map errors to exit codes. The only place that catches `BotError` and the only reader of `os.environ`."""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot import adopt, workflow
from bot.config import Settings, load_settings
from bot.context import RunContext
from bot.errors import BotError
from bot.files import read_text, write_atomic
from bot.github.connect import open_port
from bot.github.events import parse_event
from bot.reconcile import executor, gather
from bot.reconcile.plan import decide
from bot.render import Renderer
from bot.timestamps import parse_timestamp
from bot.untrusted import inert_log

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfbot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--config", type=Path, default=Path("config/perfbot.yaml"), help="bot config file")
        return p

    command("validate", "check the snapshot against every invariant")
    render = command("render", "print the page rendered from the snapshot")
    mode = render.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff when the committed page is stale")
    mode.add_argument("--write", action="store_true", help="write the page to the path the config names")
    reconcile = command("reconcile", "one full run: gather, decide, act")
    reconcile.add_argument("--offline", type=Path, metavar="STATE.json", help="a state file standing in for GitHub")
    reconcile.add_argument("--leases", type=Path, help="lease readback (default: the config's `leases`)")
    reconcile.add_argument("--now", type=_timestamp, help="the current time, ISO-8601 (default: the clock)")
    reconcile.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    reconcile.add_argument("--json", action="store_true", help="print the plan as JSON")
    reconcile.add_argument("--max-writes", type=int, default=50, help="write budget of one run (default 50)")
    reconcile.add_argument("--event-name", help="the triggering event (default: GITHUB_EVENT_NAME)")
    reconcile.add_argument("--event-path", type=Path, help="the event payload (default: GITHUB_EVENT_PATH)")
    reconcile.add_argument("--plan-json", type=Path, metavar="PATH", help="also write the plan JSON to PATH")
    reconcile.add_argument("--outputs", type=Path, metavar="PATH", help="append the action's outputs to PATH")
    init = sub.add_parser("init", help="scaffold a repository that adopts perfbot (writes no existing file)")
    init.add_argument("--dir", type=Path, default=Path(), help="the repository's root (default: here)")
    init.add_argument("--action", metavar="OWNER/REPO@SHA", help="the perfbot action the workflow uses, pinned")
    return parser


def _timestamp(text: str) -> dt.datetime:
    value = parse_timestamp(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not an ISO-8601 date or time: {text!r}")
    if not 1970 <= value.year <= 9000:  # far ends would overflow date arithmetic
        raise argparse.ArgumentTypeError(f"not a plausible current time: {text!r}")
    return value


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    args = _parser().parse_args(argv)
    context = RunContext.from_environ(os.environ if environ is None else environ)
    try:
        if args.command == "init":
            return _init(args.dir, args.action)
        settings = load_settings(args.config)
        if args.command == "validate":
            return _validate(settings)
        if args.command == "reconcile":
            return _reconcile(settings, args, context)
        return _render(settings, check=args.check, write=args.write)
    except BotError as error:
        _report(error, context)
        return EXIT_FAILED


def _report(error: BotError, context: RunContext) -> None:
    print(inert_log(error.user_message()), file=sys.stderr)
    if context.in_actions:
        print("\n".join(workflow.failure_lines(error)))
        try:
            workflow.leave_failure(error, context.step_summary)
        except BotError as unwritten:
            print(inert_log(unwritten.user_message()), file=sys.stderr)


def _init(directory: Path, action: str | None) -> int:
    for path in adopt.init(directory, dt.datetime.now(dt.UTC).date(), action):
        print(f"wrote {directory / path}")
    if action is None:
        print(f"set `uses: {adopt.UNSET_ACTION}` in {adopt.WORKFLOW} to the perfbot action, pinned to a commit")
    return EXIT_OK


def _validate(settings: Settings) -> int:
    loaded = gather.snapshot(settings)
    model = loaded.model
    print(
        f"{loaded.file}: valid ({len(model.constraints)} constraints, {len(model.programs)} programs, "
        f"{len(model.work_packets)} packets)"
    )
    return EXIT_OK


def _render(settings: Settings, *, check: bool, write: bool) -> int:
    page = Renderer.from_directory(settings.templates_path).page(
        gather.snapshot(settings).model, settings.config.page_text
    )
    target = settings.page_path
    if write:
        write_atomic(target, page)
        print(f"wrote {settings.config.page}")
        return EXIT_OK
    if not check:
        sys.stdout.write(inert_log(page))
        return EXIT_OK
    committed = read_text(target) if target.exists() else ""
    if committed == page:
        print(f"{settings.config.page} is up to date")
        return EXIT_OK
    at = next((i for i, (a, b) in enumerate(zip(committed, page, strict=False)) if a != b), None)
    at = min(len(committed), len(page)) if at is None else at
    sys.stdout.writelines(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            page.splitlines(keepends=True),
            fromfile=f"{settings.config.page} (committed)",
            tofile=f"{settings.config.page} (rendered)",
        )
    )
    print(
        f"{settings.config.page} is stale at character {at} (committed {len(committed)}, rendered {len(page)}); "
        "regenerate it with `perfbot render --write`",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _reconcile(settings: Settings, args: argparse.Namespace, context: RunContext) -> int:
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    github = open_port(context, args.offline, now)
    inputs = gather.inputs(settings, github.observe(), now, args.leases)
    plan = decide(inputs)
    event_path = args.event_path or context.event_path
    if event_path is not None:
        name = args.event_name or context.event_name or "workflow_dispatch"
        trigger = parse_event(name, read_text(event_path), str(event_path))
        plan = plan.model_copy(update={"trigger": trigger})
    report = None if args.dry_run else executor.apply(plan, github, args.max_writes)
    text = inputs.renderer.render("plan.txt.j2", plan=plan, dry_run=args.dry_run)
    sys.stdout.write(plan.model_dump_json(indent=2) + "\n" if args.json else inert_log(text))
    if report is not None:
        print(f"applied {len(report.done)} actions; {len(report.deferred)} deferred to the next run", file=sys.stderr)
        if report.superseded is not None:
            done = report.superseded
            print(
                f"another run already commented on #{done.issue} ({done.topic}): this run stopped writing",
                file=sys.stderr,
            )
    destinations = workflow.Destinations(
        plan_json=args.plan_json, outputs=args.outputs, summary=context.step_summary, server_url=context.server_url
    )
    workflow.leave_results(
        plan, report, inputs.readback, inputs.renderer, now=now, repository=inputs.observed.repository, to=destinations
    )
    if report is not None and report.error is not None:
        raise report.error
    return EXIT_OK
