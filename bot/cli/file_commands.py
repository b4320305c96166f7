"""Subcommands over the repository's files: validate, render, schema, reference, init, import."""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.files import read_text, write_atomic
from bot.snapshot.checked import checked
from bot.snapshot.store import load_snapshot
from bot.untrusted import log_safe

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.generated import Generated

# The page, schema, reference and init need jinja2 and the schema generator; each imports them
# itself, so `perfbot validate` loads only the snapshot's models and checks.

EXIT_OK, EXIT_FAILED = 0, 1


def init(directory: Path, action: str | None, branch: str | None, leases: str | None = None) -> int:
    from bot.adopt import branch as branches
    from bot.adopt import place
    from bot.adopt.scaffold import DOS, LEASES, UNSET_ACTION, WORKFLOW, lease_source, scaffold

    root = directory.resolve()
    default = branch or branches.default_branch(directory)
    source = lease_source(root) if leases is None else leases
    files = scaffold(dt.datetime.now(dt.UTC).date(), action, default, "file" if source == "file" else "pull-requests")
    if (root / LEASES).is_file():
        files.pop(LEASES, None)  # the lease file set up already is the one read
    place.write_all(root, files)
    for path in files:
        print(f"wrote {directory / path}")
    if leases is None and source == "pull-requests":
        print(f"leases: open pull requests (no {DOS}/ and no {LEASES}: `--leases-from file` reads dos's lease file)")
    elif leases is None:
        print(f"leases: {LEASES}, as dos writes it ({DOS}/ or {LEASES} is here)")
    print(f"the workflow's push trigger is on {default}{'' if branch else ' (the default branch, from git)'}")
    if action is None:
        print(f"set `uses: {UNSET_ACTION}` in {WORKFLOW} to the perfbot action, pinned to a commit")
    return EXIT_OK


def upstream_import(directory: Path, current: Path, graph: Path, page: str) -> int:
    from bot.upstream.importing import CONFIG, import_upstream

    outcome = import_upstream(directory, current, graph, page)
    for path in outcome.written:
        print(log_safe(f"wrote {directory / path}"))
    for path in outcome.kept:
        print(log_safe(f"kept {directory / path}: it is already the page {current.name} renders, byte for byte"))
    if outcome.dropped:
        fields = ", ".join(outcome.dropped)
        print(
            log_safe(
                f"not kept from {graph.name} (perfbot's levers do not hold them; the snapshot lists them): {fields}"
            )
        )
    print(log_safe(f"check the page: perfbot render --check --config {directory / CONFIG}"))
    return EXIT_OK


def counted(number: int, noun: str) -> str:
    """`1 packet`, `17 packets`: the noun in the plural when the number is not one."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def validate(settings: Settings) -> int:
    loaded = checked(load_snapshot(settings.snapshot_path))
    model = loaded.model
    print(
        f"{loaded.file}: valid ({counted(len(model.constraints), 'constraint')}, "
        f"{counted(len(model.programs), 'program')}, {counted(len(model.work_packets), 'packet')})"
    )
    return EXIT_OK


def render(settings: Settings, *, check: bool, write: bool) -> int:
    from bot.render import Renderer

    page = Renderer.from_directory(settings.templates_path).page(
        checked(load_snapshot(settings.snapshot_path)).model, settings.config.page_text
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


def schema(settings: Settings, args: argparse.Namespace) -> int:
    from bot.generated import Generated
    from bot.schema_kinds import KINDS
    from bot.schemas import file_name, schema_text

    kinds = [args.kind] if args.kind else list(KINDS)
    files = [Generated(file_name(k), settings.path(file_name(k)), schema_text(k)) for k in kinds]
    return keep(files, check=args.check, regenerate="perfbot schema --write")


def keep(files: list[Generated], *, check: bool, regenerate: str) -> int:
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


def reference(settings: Settings, args: argparse.Namespace) -> int:
    from bot.cli.arguments import parser
    from bot.generated import Generated
    from bot.reference import PATH as REFERENCE
    from bot.reference import parts, regenerate
    from bot.render import Renderer

    path = settings.path(REFERENCE)
    renderer = Renderer.from_directory(settings.templates_path)
    text = regenerate(read_text(path), parts(parser(), renderer), REFERENCE)
    if not (args.check or args.write):
        sys.stdout.write(text)
        return EXIT_OK
    return keep([Generated(REFERENCE, path, text)], check=args.check, regenerate="perfbot reference --write")
