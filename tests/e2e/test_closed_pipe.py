"""A reader that goes away (`perfbot reference | head`) ends the run quietly: no traceback."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT


def test_a_closed_pipe_ends_the_output_without_a_traceback() -> None:
    argv = [sys.executable, "-c", "from bot.cli import main; raise SystemExit(main())", "reference"]
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        child.stdout.close()  # before the first line is written: every write finds the pipe closed
        err = child.stderr.read().decode()
        assert child.wait(timeout=60) == 1
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
