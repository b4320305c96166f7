"""Where the suite's temporary files go: a filesystem in memory when the machine has one with room.

The tests write thousands of small files and replace them by renaming (`files.write_atomic`, the
offline state after each write, the sandbox repositories' git objects and refs). On ext4, a
rename over an existing file waits for the new file's data to reach the disk (its
`auto_da_alloc` behaviour), about a millisecond each here, and the workers idle meanwhile: 1,069
renames cost `test_quiet_hostile.py` alone about a second (in a profile). In memory (`tmpfs`) they
cost nothing like that, and what the tests prove is the same: a rename within one folder is atomic
on either. The whole suite on a fresh clone: 190.1 s wall with its files on the disk, 173.1 s in
`/dev/shm` (docs/testing.md, "How long it takes").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Linux's shared-memory filesystem, on nearly every machine; a container may give it only 64 MiB.
MEMORY_FOLDER = Path("/dev/shm")
# The suite keeps under 30 MiB there at once; a folder with less room than this is not used.
ROOM_NEEDED = 512 * 2**20


def memory_folder(environ: Mapping[str, str], folder: Path = MEMORY_FOLDER, room: int = ROOM_NEEDED) -> str | None:
    """The folder to give `TMPDIR`, or None to leave temporary files where they are: a folder the
    person chose (`TMPDIR` set) is kept, and a memory folder is used only when it is there, can be
    written, and has `room` bytes free."""
    if environ.get("TMPDIR") or not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        return None
    stats = os.statvfs(folder)
    if stats.f_bavail * stats.f_frsize < room:
        return None
    return str(folder)
