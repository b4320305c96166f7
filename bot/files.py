"""Reading and writing the files perfbot touches: bounded text with located errors, atomic writes."""

from __future__ import annotations

import contextlib
import stat
from pathlib import Path

from bot.errors import OutputError, input_error

# A larger file is refused before it is read whole. The snapshot, the page and the leases of a
# repository 300 times the seed's are 7.7, 6.1 and 0.14 MB (measured 2026-12-02).
MAX_INPUT_BYTES = 16 * 1024 * 1024
# An offline state file (`--offline`, `export-state`) holds every issue and comment read and the
# regeneration PR's files: 15.4 MB at 300 times the seed once its first run opened the PR, more
# with each run's comments; the journal of a run's writes is bounded the same way.
MAX_STATE_BYTES = 96 * 1024 * 1024


def read_text(path: Path, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The file's text with universal newlines, as `Path.read_text` gives it; refused above `max_bytes`."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise input_error(str(path), "file not found") from exc
    except OSError as exc:
        raise input_error(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise input_error(str(path), f"larger than the {max_bytes:,} bytes perfbot reads")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise input_error(str(path), f"not UTF-8 text (byte {exc.start + 1}: {exc.reason})", line) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def append_text(path: Path, text: str) -> None:
    """Add to a file another program reads as a whole later (the runner's summary and outputs)."""
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise input_error(str(path), f"cannot append: {exc}") from exc


def signature(path: Path) -> tuple[int, int, int] | None:
    """The file's identity as it is now (inode, size, modification time); None if it cannot be read.
    A rename onto it (another writer's atomic write) changes the inode, an edit the size or time."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and rename, so a crash never leaves half a file.

    A symbolic link is followed, so the file it points to is updated and the link stays; the
    new file keeps the old one's permissions. Any failure is an `OutputError` naming the file.
    """
    try:
        _write_through_temporary(path.resolve() if path.is_symlink() else path, text)
    except (OSError, RuntimeError, UnicodeError) as exc:  # RuntimeError: a symbolic link loop
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise OutputError(f"{path}: cannot write: {reason}") from exc


def probe_atomic(path: Path) -> None:
    """Fail now, as `write_atomic` would, if its temporary file cannot be made (and leave none)."""
    target = path.resolve() if path.is_symlink() else path
    try:
        with _temporary(target).open("w", encoding="utf-8"):
            pass
        _temporary(target).unlink()
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def _temporary(target: Path) -> Path:
    return target.with_name(f".{target.name}.tmp")


def _write_through_temporary(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(target)
    out = temporary.open("w", encoding="utf-8", newline="")
    try:  # from here on the temporary file is ours to remove
        with out:
            out.write(text)
        with contextlib.suppress(FileNotFoundError):
            temporary.chmod(stat.S_IMODE(target.stat().st_mode))
        temporary.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
