"""Generated files kept in the repository (page, schemas, reference): compare, diff, write.

A committed copy is stale when its bytes differ from what perfbot generates now; CI runs the
`--check` of each generator and fails with a diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import NamedTuple

from bot.files import read_text, write_atomic


class Generated(NamedTuple):
    """A file's fresh text, where it is committed, and its name as people see it."""

    name: str
    path: Path
    text: str

    def committed(self) -> str:
        return read_text(self.path) if self.path.exists() else ""

    def diff(self) -> str:
        """A unified diff from the committed copy to the fresh text; "" when they are equal."""
        return "".join(
            difflib.unified_diff(
                self.committed().splitlines(keepends=True),
                self.text.splitlines(keepends=True),
                fromfile=f"{self.name} (committed)",
                tofile=f"{self.name} (generated)",
            )
        )

    def write(self) -> None:
        write_atomic(self.path, self.text)
