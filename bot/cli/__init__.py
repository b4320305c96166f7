"""Command line: parse arguments, read the environment once into a run context, run one subcommand,
map errors to exit codes. The only place that catches `BotError` and the only reader of `os.environ`."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping, Sequence

from bot import workflow
from bot.cli import files, publish, run
from bot.cli.arguments import parser
from bot.config import load_settings
from bot.context import RunContext
from bot.errors import BotError
from bot.snapshot.schema import schema_text
from bot.untrusted import log_safe

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    args = parser().parse_args(argv)
    context = RunContext.from_environ(os.environ if environ is None else environ)
    if args.command == "schema" and not (args.check or args.write):
        sys.stdout.write(schema_text(args.kind or "snapshot"))  # needs no config: it describes the config
        return EXIT_OK
    if getattr(args, "repo", None):
        context = dataclasses.replace(context, repository=args.repo)
    try:
        if args.command == "init":
            return files.init(args.dir, args.action)
        settings = load_settings(args.config)
        if args.command == "validate":
            return files.validate(settings)
        if args.command == "reconcile":
            return run.reconcile(settings, args, context)
        if args.command == "export-state":
            return run.export_state(settings, args.out, context)
        if args.command == "publish-leases":
            return publish.publish_leases(settings, args, context, sys.stdin)
        if args.command == "schema":
            return files.schema(settings, args)
        if args.command == "reference":
            return files.reference(settings, args)
        if args.command in ("explain", "graph", "status"):
            return run.show(settings, args, context)
        return files.render(settings, check=args.check, write=args.write)
    except BotError as error:
        _report(error, context)
        return EXIT_FAILED


def _report(error: BotError, context: RunContext) -> None:
    print(log_safe(error.user_message()), file=sys.stderr)
    if context.in_actions:
        print("\n".join(workflow.failure_lines(error)))
        try:
            workflow.leave_failure(error, context.step_summary)
        except BotError as unwritten:
            print(log_safe(unwritten.user_message()), file=sys.stderr)
