"""The working tree's files as the double reads them before every request (the default branch
follows the working tree, `branches.derive_default`): read afresh each time, as GitHub would
serve the branch's latest push. Bytes equal to those read last time from the same path give the
text decoded then (the same object, whose hash the tree's memo has already taken)."""

from __future__ import annotations

import io
import stat
from pathlib import Path

from bot.recent import Recent

# The last bytes read from each of the few paths a double reads, and their text.
_DECODED: Recent[Path, tuple[bytes, str]] = Recent(16)


def file_text(path: Path) -> str | None:
    """The text of `path` if it is a regular file (symbolic links followed), else None; read as
    `Path.read_text(encoding="utf-8")` reads it (universal newlines)."""
    try:
        found = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    data = path.read_bytes()
    known = _DECODED.get(path)
    if known is not None and known[0] == data:
        return known[1]
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
    _DECODED.keep(path, (data, text))
    return text
