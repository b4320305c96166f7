"""The branch `perfbot init` writes into the workflow's `push` trigger: the repository's default.

git says which it is: the remote's default (`origin/HEAD`, set by a clone) when there is one, else
the branch HEAD names, which `git init -b NAME` sets before the first commit. A push trigger on
another branch never fires, so when git cannot say (no repository, a detached HEAD) init asks for
`--branch` rather than guess.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.errors import InputError, Problem

REMOTE_HEAD = "refs/remotes/origin/HEAD"


def _git(directory: Path, *args: str) -> str | None:
    """git's answer, or None when it has none (no repository, no such ref, no git at all)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *args], capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and answer else None


def default_branch(directory: Path) -> str:
    """The default branch of the repository at `directory`; an `InputError` when git cannot tell."""
    if not directory.is_dir():
        raise _unknown(directory, "it does not exist yet")
    top = _git(directory, "rev-parse", "--show-toplevel")
    if top is None:
        raise _unknown(directory, "it is not a git repository")
    if Path(top).resolve() != directory.resolve():
        raise InputError(
            [Problem(str(directory), 0, 0, f"is inside the git repository at {top}, not its root: run init there")]
        )
    remote = _git(directory, "symbolic-ref", "--quiet", "--short", REMOTE_HEAD)
    if remote is not None and "/" in remote:
        return remote.split("/", 1)[1]
    head = _git(directory, "symbolic-ref", "--quiet", "--short", "HEAD")
    if head is None:
        raise _unknown(directory, "its HEAD is detached")
    return head


def _unknown(directory: Path, why: str) -> InputError:
    return InputError(
        [Problem(str(directory), 0, 0, f"cannot tell its default branch: {why}; name it with --branch NAME")]
    )
