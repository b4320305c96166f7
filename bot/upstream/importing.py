"""`perfbot import`: upstream fak's two JSON files made into a repository's perfbot files.

The files are read and composed first (`compose`: every problem of either, located); only then is
anything written, all or nothing, and never over a file that exists (`bot.adopt.place`, as
`perfbot init` writes), but for an existing page that is already exactly the page rendered from
them: it is kept as it is, so importing in upstream's own checkout leaves its page in place.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from bot.adopt import place
from bot.errors import InputError, Problem
from bot.files import read_text
from bot.json_input import parse_object
from bot.upstream.compose import COMMAND, CONFIG, SNAPSHOT, UPSTREAM_PAGE, Source, imported

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
