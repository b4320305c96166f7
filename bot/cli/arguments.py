"""The command line's grammar: every subcommand, its flags and their help (argparse)."""

from __future__ import annotations

import argparse
import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

from bot.github.branch_file import branch_name_problem
from bot.schema_kinds import KINDS
from bot.timestamps import parse_timestamp, plausible_now

LEASES_METAVAR = "PATH|BRANCH:PATH"
# The PR options a flag (and the action's input) may set instead of the config: name, what it holds.
PULL_REQUEST_LISTS = {
    "labels": "labels",
    "reviewers": "logins asked to review",
    "team_reviewers": "team slugs asked to review",
}
LEASES_HELP = "lease readback: a path, or BRANCH:PATH read from GitHub (default: the config's `leases`)"
# An action a workflow uses, pinned to a full commit SHA (a tag or a branch can be moved under it).
PINNED_ACTION = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfbot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    command = _command_maker(sub)
    command("validate", "check the snapshot against every invariant")
    render_modes(command("render", "print the page rendered from the snapshot"))
    reconcile_arguments(command("reconcile", "one full run: gather, decide, act"))
    export = command("export-state", "write the live repository's state as an offline state file")
    export.add_argument("--out", type=Path, required=True, metavar="STATE.json", help="the state file to write")
    export.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: GITHUB_REPOSITORY)")
    publish_leases(command("publish-leases", "commit the live leases to a branch where runs read them (next to dos)"))
    init = sub.add_parser("init", help="scaffold a repository that adopts perfbot (writes no existing file)")
    init.add_argument("--dir", type=Path, default=Path(), help="the repository's root (default: here)")
    init.add_argument(
        "--action", type=pinned_action, metavar="OWNER/REPO@SHA", help="the perfbot action the workflow uses, pinned"
    )
    init.add_argument(
        "--leases-from",
        choices=("file", "pull-requests"),
        help="where leases come from: dos's lease file, or open pull requests "
        "(default: the file when .dos/ or config/leases.json is there, else pull requests)",
    )
    init.add_argument(
        "--branch",
        type=branch_name,
        metavar="NAME",
        help="the default branch the workflow's push trigger names (default: origin/HEAD's branch, else HEAD's)",
    )
    upstream_import(sub.add_parser("import", help="move an upstream fak snapshot to perfbot (writes no existing file)"))
    showing_commands(command)
    schema = command("schema", "print the JSON Schema of the snapshot (default) or of the config")
    schema.add_argument("kind", nargs="?", choices=KINDS, help="which schema (--check/--write: default both)")
    check_or_write(schema, "schema/*.schema.json")
    check_or_write(command("reference", "print docs/reference.md with its generated parts renewed"), "reference")
    return parser


Maker = Callable[[str, str], argparse.ArgumentParser]


def _command_maker(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> Maker:
    """Adds a subcommand that reads the config (every one but `init` and `import`)."""

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument(
            "--config",
            type=Path,
            default=Path("config/perfbot.yaml"),
            help="bot config file (default: config/perfbot.yaml)",
        )
        return p

    return command


def observing(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The flags of a command that observes GitHub: the offline state, the leases, the clock."""
    p.add_argument("--offline", type=Path, metavar="STATE.json", help="a state file standing in for GitHub")
    p.add_argument("--leases", metavar=LEASES_METAVAR, help=LEASES_HELP)
    p.add_argument("--now", type=timestamp, help="the current time, ISO-8601 (default: the clock)")
    return p


def reconcile_arguments(reconcile: argparse.ArgumentParser) -> None:
    observing(reconcile)
    reconcile.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    reconcile.add_argument("--json", action="store_true", help="print the plan as JSON")
    reconcile.add_argument(
        "--max-writes", type=write_budget, default=50, help="write budget of one run, 0 or more (default 50)"
    )
    reconcile.add_argument(
        "--no-follow-up",
        dest="follow_up",
        action="store_false",
        help="when the budget leaves writes, do not dispatch perfbot-follow-up for the next run to make them",
    )
    reconcile.add_argument("--event-name", help="the triggering event (default: $GITHUB_EVENT_NAME)")
    reconcile.add_argument("--event-path", type=Path, help="the event's JSON payload (default: $GITHUB_EVENT_PATH)")
    reconcile.add_argument(
        "--repo", metavar="OWNER/NAME", help="the repository of a live run (default: GITHUB_REPOSITORY)"
    )
    reconcile.add_argument(
        "--cache",
        type=Path,
        metavar="PATH",
        help="observation cache of a live run: read only the issues changed since it, then renew it",
    )
    reconcile.add_argument("--plan-json", type=Path, metavar="PATH", help="also write the plan JSON to PATH")
    for name, what in PULL_REQUEST_LISTS.items():
        reconcile.add_argument(
            f"--pull-request-{name.replace('_', '-')}",
            dest=f"pull_request_{name}",
            metavar="LIST",
            help=f"{what} of a PR perfbot opens, separated by commas or lines (default: the config's "
            f"pull_request.{name})",
        )
    reconcile.add_argument(
        "--pull-request-draft",
        choices=("true", "false"),
        help="open the PR as a draft (default: the config's pull_request.draft)",
    )
    reconcile.add_argument(
        "--pull-request-delete-branch",
        choices=("true", "false"),
        help="delete the PR branch once no PR of it is open and its head is perfbot's (default: the config's "
        "pull_request.delete_branch)",
    )
    reconcile.add_argument("--outputs", type=Path, metavar="PATH", help="append the action's outputs to PATH")


def upstream_import(p: argparse.ArgumentParser) -> None:
    """`import`: upstream fak's two JSON files, and where the repository is."""
    p.add_argument(
        "--current",
        type=Path,
        required=True,
        metavar="CURRENT.json",
        help="the snapshot, as `fak native-performance --current` prints it",
    )
    p.add_argument(
        "--graph",
        type=Path,
        required=True,
        metavar="GRAPH.json",
        help="the lever graph, as upstream prints it (`fak native-performance` in its JSON mode)",
    )
    p.add_argument("--dir", type=Path, default=Path(), help="the repository's root (default: here)")
    p.add_argument(
        "--page",
        default="docs/benchmarks/NATIVE-PERFORMANCE-CURRENT.md",
        metavar="PATH",
        help="the page, relative to the root (default: where upstream keeps it, "
        "docs/benchmarks/NATIVE-PERFORMANCE-CURRENT.md; kept if it is already the page rendered)",
    )


def showing_commands(command: Maker) -> None:
    """explain, graph and status: what a run would see, written for people."""
    explain = observing(command("explain", "say why a packet is in its state and what would make it ready"))
    explain.add_argument("packet", help="a work packet id")
    graph = observing(command("graph", "print the work packets as a dependency graph, with derived states"))
    graph.add_argument(
        "--format", choices=("mermaid", "dot"), default="mermaid", help="output syntax (default mermaid)"
    )
    status = observing(command("status", "one screen: states, ready packets, overdue reviews, live leases, the PR"))
    status.add_argument("--json", action="store_true", help="print the summary as JSON")
    status.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="text (default), or markdown: the dashboard issue's body, as a run would write it",
    )


def publish_leases(p: argparse.ArgumentParser) -> None:
    """`publish-leases`: where the leases come from and where they go."""
    p.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="FILE|-",
        help="`dos lease-lane live` output or the dos lane journal; `-` reads standard input",
    )
    p.add_argument(
        "--to",
        metavar="BRANCH:PATH",
        help="where to publish (default: the config's `leases` if it is BRANCH:PATH, else perfbot/leases:leases.json)",
    )
    p.add_argument("--offline", type=Path, metavar="STATE.json", help="a state file standing in for GitHub")
    p.add_argument("--now", type=timestamp, help="the readback time, ISO-8601 (default: the clock)")
    p.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: GITHUB_REPOSITORY)")


def render_modes(render: argparse.ArgumentParser) -> None:
    mode = render.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff when the committed page is stale")
    mode.add_argument("--write", action="store_true", help="write the page to the path the config names")


def check_or_write(p: argparse.ArgumentParser, what: str) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"exit 1 with a diff when the committed {what} is stale")
    mode.add_argument("--write", action="store_true", help=f"write {what}")


def timestamp(text: str) -> dt.datetime:
    value = parse_timestamp(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not an ISO-8601 date or time: {text!r}")
    if not plausible_now(value):
        raise argparse.ArgumentTypeError(f"not a plausible current time: {text!r}")
    return value


def write_budget(text: str) -> int:
    """A whole number of writes, 0 or more (with 0, every write waits for a later run)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def pinned_action(text: str) -> str:
    if not PINNED_ACTION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not OWNER/REPO@<40-hex commit SHA>")
    return text


def branch_name(text: str) -> str:
    problem = branch_name_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text!r} {problem}")
    return text
