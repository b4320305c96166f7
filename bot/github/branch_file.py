"""A file on a branch of the repository, written `BRANCH:PATH`: where the published lease readback
lives, read by the config, the gathering of a run and both adapters."""

from __future__ import annotations

import re
from typing import NamedTuple

# One component of a branch name, as `git check-ref-format` allows it (no space, control, `~^:?*[\`).
_COMPONENT = re.compile(r"[^\x00-\x20\x7f~^:?*\[\\]+")


class BranchFile(NamedTuple):
    """A file on a branch of the repository, written `BRANCH:PATH`."""

    branch: str
    path: str

    def __str__(self) -> str:
        return f"{self.branch}:{self.path}"


def _is_branch(name: str) -> bool:
    parts = name.split("/")
    return (
        ".." not in name
        and "@{" not in name
        and name != "@"
        and all(
            _COMPONENT.fullmatch(part) and not part.startswith(".") and not part.endswith((".", ".lock"))
            for part in parts
        )
    )


def branch_name_problem(name: str) -> str | None:
    """Why git would refuse `name` as a branch (`git check-ref-format --branch`), or None."""
    if not name:
        return "is empty"
    if name.startswith("-") or name == "HEAD":
        return "is not a branch name git accepts (it starts with `-` or is `HEAD`)"
    if not _is_branch(name):
        return (
            "is not a branch name git accepts (no space, control character or any of ~^:?*[\\, no `..` or `@{`, "
            "no empty part, and no part that starts with `.` or ends with `.` or `.lock`)"
        )
    return None


def branch_file(text: str) -> BranchFile | None:
    """`BRANCH:PATH` as a branch file; None for a path in the checkout (no colon, or what comes
    before it is no branch name, e.g. `./a:b`). A branch with a bad path is a ValueError."""
    branch, colon, path = text.partition(":")
    if not colon or not _is_branch(branch):
        return None
    if not path or path.startswith("/") or path.endswith("/") or any(p in ("", ".", "..") for p in path.split("/")):
        raise ValueError(f"{text!r}: expected BRANCH:PATH, with a path relative to the branch's root after the colon")
    return BranchFile(branch, path)
