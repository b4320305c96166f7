"""The early exit's own reading of argv, so that a plain comment's run is over before argparse,
pathlib and the run context are even imported (about half of that run's cost).

It reads only the `reconcile` command lines the Action and people write: each word exactly one
of reconcile's flags below, spelled out in full, each value a separate, non-empty word that does
not start with `-`. Anything else (an abbreviation, `--flag=value`, `-h`, another
subcommand) gives None, and `bot.cli.main` parses the usual way and checks for the early exit
there. On the lines it reads, argparse would accept the line and give the same values (the only
checks it makes on them are `--max-writes`' `int` and `--now`'s time, done with the same functions
here), so the answer never differs from the full path's (`tests/test_startup.py` holds these flags
to the parser's).
"""

from __future__ import annotations

TYPE_CHECKING = False  # the early exit's path imports neither typing nor pathlib
if TYPE_CHECKING:
    from collections.abc import Mapping

SWITCHES = frozenset({"--dry-run", "--json"})
# Flags whose value argparse takes as it is (a string or a path, neither ever refused).
TAKEN_AS_IS = frozenset(
    {
        "--config",
        "--offline",
        "--leases",
        "--event-name",
        "--event-path",
        "--repo",
        "--plan-json",
        "--outputs",
        "--cache",
    }
)
INTEGERS = frozenset({"--max-writes"})
# Flags whose value argparse reads as a time (`arguments.timestamp`): taken when it would accept it.
TIMES = frozenset({"--now"})
DEFAULT_CONFIG = "config/perfbot.yaml"


def reconcile_flags(argv: list[str]) -> dict[str, str] | None:
    """The flags of a plainly written `reconcile` line (the last value of a repeated flag wins,
    as in argparse), or None when argparse must read the line."""
    if not argv or argv[0] != "reconcile":
        return None
    values: dict[str, str] = {}
    words = iter(argv[1:])
    for flag in words:
        if flag in SWITCHES:
            continue
        if flag not in TAKEN_AS_IS and flag not in INTEGERS and flag not in TIMES:
            return None
        value = next(words, "")
        if not value or value.startswith("-"):
            return None
        if flag in INTEGERS and not _is_int(value):
            return None
        if flag in TIMES and not _is_time(value):
            return None
        values[flag] = value
    return values


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_time(text: str) -> bool:
    from bot.timestamps import parse_timestamp, plausible_now

    moment = parse_timestamp(text)
    return moment is not None and plausible_now(moment)


def quiet_reconcile(argv: list[str], environ: Mapping[str, str]) -> bool:
    """True when argv is a plain `reconcile` line and its event is a comment with no command line."""
    flags = reconcile_flags(argv)
    if flags is None:
        return False
    from bot.github.quiet import quiet_comment

    event_name = flags.get("--event-name") or environ.get("GITHUB_EVENT_NAME") or None
    event_path = flags.get("--event-path") or environ.get("GITHUB_EVENT_PATH") or None
    return quiet_comment(event_name, event_path, flags.get("--config", DEFAULT_CONFIG))
