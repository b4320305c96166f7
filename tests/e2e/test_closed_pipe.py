"""A reader that goes away (`perfbot reference | head`) ends the run quietly: no traceback."""

from __future__ import annotations

import sys

from tests.support.closed_pipe import assert_ends_quietly_on_a_closed_pipe
from tests.support.paths import ROOT


def test_a_closed_pipe_ends_the_output_without_a_traceback() -> None:
    argv = [sys.executable, "-c", "from bot.cli import main; raise SystemExit(main())", "reference"]
    assert_ends_quietly_on_a_closed_pipe(argv, ROOT)
