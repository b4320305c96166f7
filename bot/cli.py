"""Command line: parse arguments, read the environment once into a run context, run one command,
map errors to exit codes. The only place that catches `BotError` and the only reader of `os.environ`."""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.config import Settings, load_settings
from bot.context import RunContext
from bot.errors import BotError, InputError, ProposalRefused
from bot.files import read_text, write_atomic
from bot.github.connect import open_port
from bot.github.events import Trigger, parse_event
from bot.reconcile import executor, gather
from bot.reconcile.plan import decide
from bot.render import Renderer
from bot.timestamps import parse_timestamp
from bot.untrusted import log_safe, log_safe_json

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
    print(log_safe(error.user_message()), file=sys.stderr)
    if context.in_actions and isinstance(error, InputError):
        for p in error.problems:
            file = _escape(p.file).replace(":", "%3A").replace(",", "%2C")
            print(f"::error file={file},line={p.line},col={p.col}::{_escape(p.message)}")


def _escape(text: str) -> str:
    """The runner's escaping of a workflow command's data (and, with `:` and `,`, of a property)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
        sys.stdout.write(log_safe(page))
        return EXIT_OK
    committed = read_text(target) if target.exists() else ""
    if committed == page:
        print(f"{settings.config.page} is up to date")
        return EXIT_OK
    at = next((i for i, (a, b) in enumerate(zip(committed, page, strict=False)) if a != b), None)
    at = min(len(committed), len(page)) if at is None else at
    sys.stdout.writelines(
        log_safe(line)
        for line in difflib.unified_diff(
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
    trigger = _trigger(args, context)  # every input is read and checked before anything is decided
    github = open_port(context, args.offline, now)
    inputs = gather.inputs(settings, github.observe(), now, args.leases)
    plan = decide(inputs)
    if trigger is not None:
        plan = plan.model_copy(update={"trigger": trigger})
    text = inputs.renderer.render("plan.txt.j2", plan=plan, dry_run=args.dry_run)
    # Printed before any write: a plan that cannot be printed has written nothing.
    sys.stdout.write(log_safe_json(plan.model_dump_json(indent=2) + "\n") if args.json else log_safe(text))
    if context.step_summary is not None:
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
        with context.step_summary.open("a", encoding="utf-8") as handle:
            handle.write(f"{fence}\n{text}{fence}\n")
    if plan.refusal:
        raise ProposalRefused(plan.refusal)
    if args.dry_run:
        return EXIT_OK
    report = executor.apply(plan, github, args.max_writes)
    print(f"applied {len(report.done)} actions; {len(report.deferred)} deferred to the next run", file=sys.stderr)
    if report.error is not None:
        raise report.error
    return EXIT_OK


def _trigger(args: argparse.Namespace, context: RunContext) -> Trigger | None:
    event_path = args.event_path or context.event_path
    if event_path is None:
        return None
    name = args.event_name or context.event_name or "workflow_dispatch"
    return parse_event(name, read_text(event_path), str(event_path))
