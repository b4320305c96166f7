"""`perfbot import`'s files, composed from upstream fak's two JSON files once both are read.

Both files are checked first (upstream's shape, then every snapshot invariant, each problem at its
place in the file it came from); then the snapshot is written in the store's own layout with
comments saying where each part came from, read back and checked again, and the config carries
upstream's page wording, so the page rendered is upstream's byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from bot.config import SHIPPED_TEMPLATES, BotConfig
from bot.errors import InputError, OutputError, Problem
from bot.render import Renderer
from bot.snapshot.checked import checked_text
from bot.snapshot.findings import Finding
from bot.snapshot.model import SCHEMA_ONE, Snapshot
from bot.snapshot.store import parse_model
from bot.snapshot.store_save import commented_text
from bot.snapshot.validation import validate
from bot.upstream.current import read_current
from bot.upstream.graph import SOURCE_FIELD, read_graph
from bot.upstream.json_places import Places

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
