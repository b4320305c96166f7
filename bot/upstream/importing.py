"""`perfbot import`: upstream fak's two JSON files composed into perfbot's files, then written.

**Composing.** `perfbot import`'s files, composed from upstream fak's two JSON files once both are
read.

Both files are checked first (upstream's shape, then every snapshot invariant, each problem at its
place in the file it came from); then the snapshot is written in the store's own layout with
comments saying where each part came from, read back and checked again, and the config carries
upstream's page wording, so the page rendered is upstream's byte for byte.

**Writing.** `perfbot import`: upstream fak's two JSON files made into a repository's perfbot files.

The files are read and composed first (`compose`: every problem of either, located); only then is
anything written, all or nothing, and never over a file that exists (`bot.adopt.place`, as
`perfbot init` writes), but for an existing page that is already exactly the page rendered from
them: it is kept as it is, so importing in upstream's own checkout leaves its page in place.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from bot.adopt import place
from bot.config import SHIPPED_TEMPLATES, BotConfig
from bot.errors import InputError, OutputError, Problem
from bot.files import read_text
from bot.json_input import parse_object
from bot.render import Renderer
from bot.snapshot.checked import checked_text
from bot.snapshot.fields import Finding
from bot.snapshot.model import SCHEMA_ONE, Snapshot
from bot.snapshot.store import parse_model
from bot.snapshot.store_save import commented_text
from bot.snapshot.validation import validate
from bot.upstream.current import read_current
from bot.upstream.json_places import Places
from bot.upstream.lever_graph import SOURCE_FIELD, read_graph

COMMAND = "perfbot import"
SNAPSHOT = "config/snapshot.yaml"
CONFIG = "config/perfbot.yaml"
# Where upstream keeps its page, so links to it still hold and `render --check` compares with it.
UPSTREAM_PAGE = "docs/benchmarks/NATIVE-PERFORMANCE-CURRENT.md"
# Where `perfbot publish-leases` commits the readback from the host that runs dos.
LEASES = "perfbot/leases:leases.json"


class Source(NamedTuple):
    """One upstream JSON file as given, read."""

    file: str
    text: str
    data: dict[str, Any]


class Imported(NamedTuple):
    snapshot: Snapshot
    dropped: list[str]
    files: dict[str, str]


def imported(current: Source, graph: Source, page: str) -> Imported:
    """The snapshot both files make, what of the graph it does not keep, and the files to write."""
    problems: list[Problem] = []
    snapshot = levers = None
    try:
        snapshot = read_current(current.data, current.text, current.file)
    except InputError as error:
        problems += error.problems
    try:
        levers = read_graph(graph.data, graph.text, graph.file)
    except InputError as error:
        problems += error.problems
    if snapshot is None or levers is None:
        raise InputError(sorted(problems))
    joined = snapshot.model_copy(update={"levers": levers.levers})
    findings = validate(joined)
    if findings:
        places = (Places(current.text), Places(graph.text))  # each text scanned once, however many findings
        raise InputError(sorted(located(f, (current.file, graph.file), places) for f in findings))
    return Imported(joined, levers.dropped, compose(joined, levers.dropped, (current.file, graph.file), page))


def located(finding: Finding, files: tuple[str, str], places: tuple[Places, Places]) -> Problem:
    """A finding at its place: a lever's in the graph (under upstream's names), the rest in the
    snapshot (`files` and `places`: the current snapshot's, then the graph's)."""
    loc = finding.loc
    if loc[0] != "levers":
        return Problem(files[0], *places[0].locate(loc), finding.message)
    if len(loc) > 2:
        loc = (*loc[:2], *SOURCE_FIELD.get(str(loc[2]), (loc[2],)), *loc[3:])
    return Problem(files[1], *places[1].locate(loc), finding.message)


def compose(snapshot: Snapshot, dropped: list[str], sources: tuple[str, str], page: str) -> dict[str, str]:
    """The snapshot, the config and the page, each checked as perfbot will read it."""
    renderer = Renderer.from_directory(SHIPPED_TEMPLATES)
    names = {"current": Path(sources[0]).name, "graph": Path(sources[1]).name}
    config_text = renderer.render(
        "import/perfbot.yaml.j2",
        page=page,
        upstream_page=UPSTREAM_PAGE,
        leases=LEASES,
        schema=snapshot.schema_,
        schema_one=snapshot.schema_ == SCHEMA_ONE,
        **names,
    )
    config = parse_model(config_text, CONFIG, BotConfig).model
    comments = renderer.render("import/snapshot-comments.txt.j2", s=snapshot, dropped=dropped, **names)
    text = commented_text(snapshot, *sections(comments))
    if checked_text(text, SNAPSHOT).model != snapshot:
        raise OutputError(f"{SNAPSHOT}: the snapshot written does not read back as imported; {COMMAND} writes nothing")
    return {SNAPSHOT: text, CONFIG: config_text, page: renderer.page(snapshot, config.page_text)}


def sections(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header and the comments by key of a text of `[NAME]` sections (`[header]` first)."""
    found: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            lines = found.setdefault(line[1:-1], [])
        else:
            lines.append(line)
    return found.pop("header", []), found


_PATH_PART = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


class Outcome(NamedTuple):
    written: list[str]
    kept: list[str]
    dropped: list[str]


def read_source(path: Path, what: str) -> Source:
    text = read_text(path)
    return Source(str(path), text, parse_object(text, str(path), what))


def import_upstream(directory: Path, current: Path, graph: Path, page: str = UPSTREAM_PAGE) -> Outcome:
    """Write the imported files under `directory`; refuse, writing nothing, if any is there already
    (but for a page that is exactly the one rendered, which is kept)."""
    why = page_problem(page)
    if why:
        raise InputError([Problem("--page", 0, 0, f"{page!r} {why}")])
    made = imported(read_source(current, "the current snapshot"), read_source(graph, "the lever graph"), page)
    root = directory.resolve()
    kept = [page] if _already(root / page, made.files[page]) else []
    problems = place.problems(root, [path for path in made.files if path != page], COMMAND)
    if not kept and os.path.lexists(root / page):
        differs = f"already exists and is not the page {current.name} renders; {COMMAND} writes nothing"
        problems.append(Problem(str(root / page), 0, 0, differs))
    elif not kept:
        problems += place.problems(root, [page], COMMAND)
    if problems:
        raise InputError(problems)
    writes = {path: text for path, text in made.files.items() if path not in kept}
    place.write_all(root, writes, COMMAND)
    return Outcome(list(writes), kept, made.dropped)


def page_problem(page: str) -> str | None:
    """Why `page` cannot be the page's path in the repository, or None."""
    parts = page.split("/")
    if page in (SNAPSHOT, CONFIG):
        return "is a file perfbot import writes already"
    if PurePosixPath(page).is_absolute() or any(p in ("", ".", "..") or not set(p) <= _PATH_PART for p in parts):
        return "is not a path inside the repository (folders/name.md: letters, digits, '.', '_', '-')"
    return None


def _already(path: Path, text: str) -> bool:
    """True when `path` is a plain file holding exactly `text` (read no further than it could)."""
    expected = text.encode("utf-8")
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            return handle.read(len(expected) + 1) == expected
    except OSError:
        return False
