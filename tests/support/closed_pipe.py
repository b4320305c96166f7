"""A command whose reader went away before its first line (`perfbot reference | head`, `show 3 | head`)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def assert_ends_quietly_on_a_closed_pipe(argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> None:
    """The command, its output pipe closed before it writes, exits with status 1 and no traceback."""
    with subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        child.stdout.close()  # before the first line is written: every write finds the pipe closed
        err = child.stderr.read().decode()
        assert child.wait(timeout=60) == 1
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
