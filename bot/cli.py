"""Command line: parse arguments, read the environment once, run one command, map errors to exits."""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.config import Settings, load_settings
from bot.errors import BotError, InputError
from bot.evidence import graph as packet_graph
from bot.evidence.explain import explain
from bot.files import read_text, write_atomic
from bot.generated import Generated
from bot.github.events import parse_event
from bot.github.offline import OfflineGitHub
from bot.reconcile import executor, gather
from bot.reconcile.plan import decide
from bot.reconcile.status import status
from bot.reconcile.view import view
from bot.reference import PATH as REFERENCE
from bot.reference import parts, regenerate
from bot.render import Renderer
from bot.snapshot.schema import KINDS, file_name, schema_text

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfbot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument(
            "--config",
            type=Path,
            default=Path("config/perfbot.yaml"),
            help="bot config file (default: config/perfbot.yaml)",
        )
        return p

    def observing(name: str, help_text: str) -> argparse.ArgumentParser:
        p = command(name, help_text)
        p.add_argument("--offline", type=Path, metavar="STATE.json", help="a state file standing in for GitHub")
        p.add_argument("--leases", type=Path, help="lease readback (default: the config's `leases`)")
        p.add_argument("--now", type=_timestamp, help="the current time, ISO-8601 (default: the clock)")
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
    reconcile.add_argument(
        "--event-name",
        default=os.environ.get("GITHUB_EVENT_NAME"),
        help="the triggering event (default: $GITHUB_EVENT_NAME)",
    )
    reconcile.add_argument(
        "--event-path",
        type=Path,
        default=os.environ.get("GITHUB_EVENT_PATH"),
        help="the event's JSON payload (default: $GITHUB_EVENT_PATH)",
    )
    explain = observing("explain", "say why a packet is in its state and what would make it ready")
    explain.add_argument("packet", help="a work packet id")
    graph = observing("graph", "print the work packets as a dependency graph, with derived states")
    graph.add_argument(
        "--format", choices=("mermaid", "dot"), default="mermaid", help="output syntax (default mermaid)"
    )
    status = observing("status", "one screen: states, ready packets, overdue reviews, live leases, the PR")
    status.add_argument("--json", action="store_true", help="print the summary as JSON")
    schema = command("schema", "print the JSON Schema of the snapshot (default) or of the config")
    schema.add_argument("kind", nargs="?", choices=KINDS, help="which schema (--check/--write: default both)")
    _check_or_write(schema, "schema/*.schema.json")
    _check_or_write(command("reference", "print docs/reference.md with its generated parts renewed"), "reference")
    return parser


def _check_or_write(p: argparse.ArgumentParser, what: str) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"exit 1 with a diff when the committed {what} is stale")
    mode.add_argument("--write", action="store_true", help=f"write {what}")


def _timestamp(text: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO-8601 date or time: {text!r}") from exc
    if not 1970 <= value.year <= 9000:  # far ends would overflow date arithmetic
        raise argparse.ArgumentTypeError(f"not a plausible current time: {text!r}")
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema" and not (args.check or args.write):
        sys.stdout.write(schema_text(args.kind or "snapshot"))  # needs no config: it describes the config
        return EXIT_OK
    try:
        settings = load_settings(args.config)
        if args.command == "validate":
            return _validate(settings)
        if args.command == "reconcile":
            return _reconcile(settings, args)
        if args.command == "schema":
            return _schema(settings, args)
        if args.command == "reference":
            return _reference(settings, args)
        if args.command in ("explain", "graph", "status"):
            return _show(settings, args)
        return _render(settings, check=args.check, write=args.write)
    except BotError as error:
        _report(error)
        return EXIT_FAILED


def _report(error: BotError) -> None:
    print(error.user_message(), file=sys.stderr)
    if os.environ.get("GITHUB_ACTIONS") == "true" and isinstance(error, InputError):
        for p in error.problems:
            message = p.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            print(f"::error file={p.file},line={p.line},col={p.col}::{message}")


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
        sys.stdout.write(page)
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


def _reconcile(settings: Settings, args: argparse.Namespace) -> int:
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    if args.offline is None:
        raise BotError("perfbot reconcile needs --offline STATE.json: the live GitHub adapter is not available yet")
    github = OfflineGitHub.open(args.offline, now)
    inputs = gather.inputs(settings, github.observed, now, args.leases)
    renderer = inputs.renderer
    plan = decide(inputs)
    if args.event_path is not None:
        name = args.event_name or "workflow_dispatch"
        trigger = parse_event(name, read_text(args.event_path), str(args.event_path))
        plan = plan.model_copy(update={"trigger": trigger})
    report = None if args.dry_run else executor.apply(plan, github, args.max_writes)
    text = renderer.render("plan.txt.j2", plan=plan, dry_run=args.dry_run)
    if args.json:
        sys.stdout.write(plan.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(text)
    if report is not None:
        print(f"applied {len(report.done)} actions; {len(report.deferred)} deferred to the next run", file=sys.stderr)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with Path(summary).open("a", encoding="utf-8") as handle:
            handle.write("```\n" + text + "```\n")
    return EXIT_OK


def _schema(settings: Settings, args: argparse.Namespace) -> int:
    kinds = [args.kind] if args.kind else list(KINDS)
    files = [Generated(file_name(k), settings.path(file_name(k)), schema_text(k)) for k in kinds]
    return _keep(files, check=args.check, regenerate="perfbot schema --write")


def _keep(files: list[Generated], *, check: bool, regenerate: str) -> int:
    """Write generated files, or (--check) show how the committed copies differ and fail."""
    if not check:
        for file in files:
            file.write()
            print(f"wrote {file.name}")
        return EXIT_OK
    stale = [file for file in files if file.committed() != file.text]
    for file in stale:
        sys.stdout.write(file.diff())
        print(f"{file.name} is stale; regenerate it with `{regenerate}`", file=sys.stderr)
    for file in files:
        if file not in stale:
            print(f"{file.name} is up to date")
    return EXIT_FAILED if stale else EXIT_OK


def _show(settings: Settings, args: argparse.Namespace) -> int:
    """explain, graph and status: what a run would see, without planning or writing anything."""
    now: dt.datetime = args.now or dt.datetime.now(dt.UTC)
    if args.offline is None:
        raise BotError(
            f"perfbot {args.command} needs --offline STATE.json: the live GitHub adapter is not available yet"
        )
    inputs = gather.inputs(settings, OfflineGitHub.open(args.offline, now).observed, now, args.leases)
    if args.command == "status":
        summary = status(decide(inputs), inputs.readback, inputs.observed, settings.config, now)
        text = (
            summary.model_dump_json(indent=2) + "\n"
            if args.json
            else inputs.renderer.render("status.txt.j2", s=summary)
        )
        sys.stdout.write(text)
        return EXIT_OK
    seen = view(inputs)
    if args.command == "graph":
        rules = settings.config.leases_rules
        graph = packet_graph.of_derivations(seen.snapshot, seen.derivations, inputs.readback.live, rules)
        sys.stdout.write(inputs.renderer.graph(graph, args.format))
        return EXIT_OK
    found = explain(args.packet, seen.snapshot, seen.derivations, seen.evidence, now)
    sys.stdout.write(inputs.renderer.render("explain.md.j2", x=found, prefix=settings.config.commands.prefix))
    return EXIT_OK


def _reference(settings: Settings, args: argparse.Namespace) -> int:
    path = settings.path(REFERENCE)
    renderer = Renderer.from_directory(settings.templates_path)
    text = regenerate(read_text(path), parts(_parser(), renderer), REFERENCE)
    if not (args.check or args.write):
        sys.stdout.write(text)
        return EXIT_OK
    return _keep([Generated(REFERENCE, path, text)], check=args.check, regenerate="perfbot reference --write")
