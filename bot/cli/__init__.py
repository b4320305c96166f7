"""Command line: parse arguments, read the environment once into a run context, run one subcommand,
map errors to exit codes. The only place that catches `BotError` and the only reader of `os.environ`."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from bot.context import RunContext
    from bot.errors import BotError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Each subcommand imports only what it uses: `validate` never loads jinja2, cmark-gfm,
    the reconcile modules or githubkit."""
    from bot.cli.arguments import parser
    from bot.context import RunContext

    args = parser().parse_args(argv)
    context = RunContext.from_environ(os.environ if environ is None else environ)
    try:
        status = _subcommand(args, context)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`perfbot reference | head`): stop quietly, with no traceback now
        # or when the interpreter flushes at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return status


def _subcommand(args: argparse.Namespace, context: RunContext) -> int:
    if args.command == "schema" and not (args.check or args.write):
        from bot.schemas import schema_text

        sys.stdout.write(schema_text(args.kind or "snapshot"))  # needs no config: it describes the config
        return EXIT_OK
    if getattr(args, "repo", None):
        context = context._replace(repository=args.repo)
    from bot.errors import BotError

    try:
        return _run(args, context)
    except BotError as error:
        _report(error, context)
        return EXIT_FAILED


def _run(args: argparse.Namespace, context: RunContext) -> int:
    from bot.cli import file_commands

    if args.command == "init":
        return file_commands.init(args.dir, args.action, args.branch, args.leases_from)
    if args.command == "import":
        return file_commands.upstream_import(args.dir, args.current, args.graph, args.page)
    from bot.config import load_settings

    settings = load_settings(args.config)
    if args.command == "validate":
        return file_commands.validate(settings)
    if args.command in ("reconcile", "export-state", "explain", "graph", "status"):
        from bot.cli import run

        if args.command == "reconcile":
            return run.reconcile(settings, args, context)
        if args.command == "export-state":
            return run.export_state(settings, args.out, context)
        return run.show(settings, args, context)
    if args.command == "publish-leases":
        from bot.cli import run

        return run.publish_leases(settings, args, context, sys.stdin)
    if args.command == "schema":
        return file_commands.schema(settings, args)
    if args.command == "reference":
        return file_commands.reference(settings, args)
    return file_commands.render(settings, check=args.check, write=args.write)


def _report(error: BotError, context: RunContext) -> None:
    from bot import workflow
    from bot.untrusted import log_safe

    print(log_safe(error.user_message()), file=sys.stderr)
    if context.in_actions:
        print("\n".join(workflow.failure_lines(error)))
        try:
            workflow.leave_failure(error, context.step_summary)
        except BotError as unwritten:
            print(log_safe(unwritten.user_message()), file=sys.stderr)
