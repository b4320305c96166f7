"""The working tree's files as the double reads them before every request (the default branch
follows the working tree, `branches.derive_default`): read afresh each time, as GitHub would
serve the branch's latest push."""

from __future__ import annotations

import stat
from pathlib import Path


def file_text(path: Path) -> str | None:
    """The text of `path` if it is a regular file (symbolic links followed), else None."""
    try:
        found = path.stat()
    except OSError:
        return None
    return path.read_text(encoding="utf-8") if stat.S_ISREG(found.st_mode) else None
