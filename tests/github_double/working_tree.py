"""The working tree's files as the double reads them before every request: read again only when one
may have changed since.

The default branch follows the working tree (`branches.derive_default`), so the double looked at its
files on every request; reading them, about two thousand times over the suite, cost a second. A
file's text is kept with its identity (device, inode, size, modification and change times), and read
again when any of these differs, or when it was last read so soon after a change that another write
could still come within the same tick of the clock that dates files and leave its identity as it was
(git calls such an index entry "racily clean"): such a text is never reused.
"""

from __future__ import annotations

import stat
import time
from pathlib import Path

# Far above a tick of the coarse clock the kernel dates files by (a few milliseconds), and above
# the second of a file system that keeps whole seconds (ext3, FAT, small ext4 file systems).
RACY_NS = 100_000_000
COARSE_NS = 2_000_000_000

# By path: the identity the file had when it was read, and its text. Only texts read at least
# RACY_NS after the file last changed are kept, and only the latest few (each test has its own files).
_KEPT: dict[Path, tuple[tuple[int, ...], str]] = {}
_KEEP = 32
_now = time.time_ns  # the clock file times are compared with (a test moves it on)


def file_text(path: Path) -> str | None:
    """The text of `path` if it is a regular file (symbolic links followed), else None."""
    try:
        found = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    identity = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
    kept = _KEPT.get(path)
    if kept is not None and kept[0] == identity:
        return kept[1]
    now = _now()
    text = path.read_text(encoding="utf-8")
    _KEPT.pop(path, None)
    if settled((found.st_mtime_ns, found.st_ctime_ns), now):
        _KEPT[path] = (identity, text)
        if len(_KEPT) > _KEEP:
            del _KEPT[next(iter(_KEPT))]
    return text


def settled(changed: tuple[int, int], now: int) -> bool:
    """Whether a file last modified and changed at these times (ns) cannot be written again without
    its times moving: a tick of the clock that dates files has passed since, a whole second and more
    when both are whole seconds (a file system that keeps no finer time)."""
    coarse = all(moment % 1_000_000_000 == 0 for moment in changed)
    return max(changed) + (COARSE_NS if coarse else RACY_NS) < now
