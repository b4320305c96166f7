"""Compiled templates kept between processes, so a run does not recompile templates that did not change.

Compiling perfbot's templates costs more than a whole run's deciding; jinja2's documented
`FileSystemBytecodeCache` stores each compiled template and reuses it while the template's source is
unchanged (jinja2 checks a checksum of the source, and the file name carries a fingerprint of jinja2's
version, Python's and the environment's options, which also shape the code). The cache holds code
that is executed, so it lives only in a directory this user owns and no one else may write
(`perfbot-templates-<uid>` in the temporary directory, mode 0700). When no such directory can be had,
or a cache file cannot be read or written, templates are simply compiled as before: the cache can
make a run faster, never different or failed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket, FileSystemBytecodeCache

PRIVATE = stat.S_IRWXU  # rwx for the owner only
# The caches of this process, by directory and options fingerprint (`bytecode_cache`).
_CACHES: dict[tuple[str, str], DeferredCache] = {}


def private_directory(parent: Path, name: str) -> Path | None:
    """`parent/name`, created if missing, when it is a real directory this user owns and only it can
    write; else None."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return None  # no owner to check (Windows): no cache rather than an unchecked one
    path = parent / name
    try:
        path.mkdir(mode=PRIVATE, exist_ok=True)
        found = path.lstat()
    except OSError:
        return None
    owned = found.st_uid == getuid() and stat.S_ISDIR(found.st_mode)
    return path if owned and stat.S_IMODE(found.st_mode) == PRIVATE else None


def fingerprint(options: dict[str, Any]) -> str:
    """What, besides the source, decides a template's compiled code."""
    facts = repr((jinja2.__version__, sys.version_info[:2], sorted(options.items())))
    return hashlib.sha256(facts.encode("utf-8")).hexdigest()[:16]


class DeferredCache(FileSystemBytecodeCache):
    """jinja2's file cache, read up front (`preload`) and written at the end (`flush`): a run compiles
    its templates while it decides, and deciding does no I/O, so what compiling would read is
    already in memory and what it would write waits for the run to end. An unreadable, damaged or
    unwritable entry means "compile", never an error."""

    def __init__(self, directory: str, pattern: str) -> None:
        super().__init__(directory, pattern)
        self._read: dict[str, bytes] = {}
        self._pending: dict[str, Bucket] = {}

    def preload(self, keys: Iterable[str]) -> None:
        """Read the entries of `keys` (from `get_cache_key`) that exist; a missing or unreadable one is compiled."""
        for key in keys:
            if key not in self._read:
                with contextlib.suppress(OSError):  # the file name is jinja2's documented `pattern % key`
                    self._read[key] = Path(self.directory, self.pattern % (key,)).read_bytes()

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self._read.get(bucket.key)
        if data is None:
            return
        try:
            bucket.bytecode_from_string(data)  # a source that changed since resets the bucket itself
        except Exception:  # pickle and marshal raise many kinds of error on damaged data
            bucket.reset()  # a damaged entry: compile, and the dump that follows replaces it

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._read[bucket.key] = bucket.bytecode_to_string()  # another environment of this process finds it
        self._pending[bucket.key] = bucket

    def flush(self) -> None:
        """Write what was compiled since the last flush (each entry atomically, as jinja2 writes it)."""
        pending, self._pending = self._pending, {}
        for bucket in pending.values():
            with contextlib.suppress(OSError):  # a full or read-only disk: a later run may store it
                super().dump_bytecode(bucket)


def bytecode_cache(options: dict[str, Any], root: Path | None = None) -> DeferredCache | None:
    """The per-user cache for templates compiled with `options`, or None when there is no safe place;
    one per directory and options in a process, so its environments share what each compiled."""
    getuid = getattr(os, "getuid", None)
    parent = Path(tempfile.gettempdir()) if root is None else root
    directory = private_directory(parent, f"perfbot-templates-{getuid() if getuid else 'user'}")
    if directory is None:
        return None
    key = (str(directory), fingerprint(options))
    if key not in _CACHES:
        _CACHES[key] = DeferredCache(key[0], f"{key[1]}-%s.cache")
    return _CACHES[key]
