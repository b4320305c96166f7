"""`perfbot publish-leases`, run on the host that runs dos: the live leases and their readback time,
committed to a branch of the repository, where a run on a GitHub runner reads them."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import TextIO

from bot.config import Settings
from bot.context import RunContext
from bot.errors import input_error
from bot.evidence import published
from bot.evidence.leases import parse_leases
from bot.files import read_text
from bot.github.branch_file import BranchFile, branch_file
from bot.github.connect import open_publisher
from bot.github.port import LeaseDispatcher
from bot.render import Renderer
from bot.timestamps import utc_stamp
from bot.untrusted import log_safe

EXIT_OK = 0
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
        decision = published.decide(github.published(where), readback, now, refresh, str(where))
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
        return published.target(settings.config.lease_file)
    try:
        found = branch_file(to)
    except ValueError as exc:
        raise input_error("--to", str(exc)) from exc
    if found is None:
        raise input_error("--to", f"{to!r}: expected BRANCH:PATH, e.g. {published.DEFAULT_TARGET}")
    return found
