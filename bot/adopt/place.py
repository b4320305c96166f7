"""Writing `perfbot init`'s files (and `perfbot import`'s) all or nothing, and only inside the repository.

Every path is checked before the first is written: none may exist already (a dangling symbolic
link counts: writing through it would create its target), each folder on the way must be a folder
(or not exist yet), and none may be a symbolic link that leads outside the repository. When a
write still fails (a full disk, a folder that refuses it), the files written and the folders made
so far are removed again, so a failed init leaves the repository as it found it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from bot.errors import InputError, OutputError, Problem
from bot.files import write_atomic


def problems(root: Path, paths: Iterable[str], command: str = "perfbot init") -> list[Problem]:
    """What stops each path from being written under `root` (resolved), as located problems;
    each says that `command` writes nothing."""
    found: list[Problem] = []
    for path in paths:
        why = _problem(root, path, command)
        if why is not None:
            found.append(Problem(str(root / path), 0, 0, why))
    return found


def _problem(root: Path, path: str, command: str) -> str | None:
    if os.path.lexists(root) and not root.is_dir():
        return f"{root} is not a folder; {command} writes nothing"
    if os.path.lexists(root / path):
        return f"already exists; {command} writes nothing"
    folder, last = root, root
    for part in Path(path).parts[:-1]:
        folder = folder / part
        if not os.path.lexists(folder):
            break  # made by the write, like every folder below it
        if folder.is_symlink() and not _inside(folder.resolve(), root):
            return f"{folder} is a symbolic link that leads outside {root}; {command} writes nothing"
        if not folder.is_dir():
            return f"{folder} is not a folder; {command} writes nothing"
        last = folder
    if os.path.lexists(last) and not os.access(last, os.W_OK | os.X_OK):
        return f"{last} cannot be written; {command} writes nothing"
    return None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def write_all(root: Path, files: Mapping[str, str], command: str = "perfbot init") -> None:
    """Write every file under `root`, or, when one fails, none: what was written is taken back."""
    found = problems(root, files, command)
    if found:
        raise InputError(found)
    made = _missing_folders(root, files)
    written: list[Path] = []
    try:
        for path, text in files.items():
            write_atomic(root / path, text)
            written.append(root / path)
    except OutputError as error:
        _take_back(written, made)
        raise OutputError(f"{error.user_message()}; {command} took back what it had written") from error
    except BaseException:
        _take_back(written, made)
        raise


def _missing_folders(root: Path, paths: Iterable[str]) -> list[Path]:
    """The folders the writes will make (`root` itself among them when it is not there yet)."""
    missing: dict[Path, None] = {} if os.path.lexists(root) else {root: None}
    for path in paths:
        folder = root
        for part in Path(path).parts[:-1]:
            folder = folder / part
            if not os.path.lexists(folder):
                missing[folder] = None
    return list(missing)


def _take_back(written: list[Path], made: list[Path]) -> None:
    for file in written:
        with contextlib.suppress(OSError):
            file.unlink()
    for folder in sorted(made, key=lambda f: len(f.parts), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()
