"""The workers of `pytest -n` share the rewriting of the test modules on a fresh clone.

pytest rewrites a test module's asserts when it is first imported and keeps the result beside it
(`__pycache__/*-pytest-*.pyc`): about 1.7 s of CPU for this suite's modules. Every worker
imports every module, in the same order, so on a fresh clone each worker rewrote all of them at
the same time, and the suite started that much later. Worker i of n now imports them first,
before pytest collects, starting i/n of the way through the list and wrapping around: each
rewrites about its share and finds the others' results kept, and pytest's collection then finds
the modules imported. Later runs only load the kept results, in another order.

A module is imported under the name pytest gives it (its package path), so collection finds it
rather than importing it again. One that fails to import is left for collection, which imports
it again and reports the error as usual.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
from pathlib import Path

import pytest

_import = importlib.import_module  # what a test replaces to see the order


def import_share(session: pytest.Session, index: int, count: int) -> None:
    """Import the session's test modules, worker `index` of `count` starting at its share."""
    files = modules_to_collect(session)
    start = len(files) * index // count
    for path in files[start:] + files[:start]:
        name = module_name(path)
        if name is not None:
            with contextlib.suppress(Exception):
                _import(name)


def modules_to_collect(session: pytest.Session) -> list[Path]:
    """The test modules under the paths pytest was given (or its `testpaths`), in path order."""
    config = session.config
    patterns = config.getini("python_files")
    found: set[Path] = set()
    for arg in config.args:
        path = (config.invocation_params.dir / arg.split("::")[0]).resolve()
        candidates = [path] if path.is_file() else sorted(path.rglob("*.py")) if path.is_dir() else []
        found |= {p for p in candidates if any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns)}
    return sorted(found)


def module_name(path: Path) -> str | None:
    """The dotted name pytest imports `path` by (its packages, up to the first directory without an
    `__init__.py`), or None if it is in no package: pytest would name it otherwise."""
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(parts)) if len(parts) > 1 else None
