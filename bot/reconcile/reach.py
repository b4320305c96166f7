"""Which of a plan's writes the run's token can make: none in a repository it cannot write. Pure.

A snapshot may name issues in other repositories (`owner/repo#N`); the read says what the token may
do in each (`Observed.repositories`: `write`, `read`, or `none` when it cannot even see it). A run
makes no write in a repository its token cannot write, so a plan is never half applied there: its
writes are withheld before the budget is spent, and the plan says so in one line per repository.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.github.actions import Action, CreateLabelAction, Frozen, LinkAction
from bot.github.observed import Observed, TokenAccess
from bot.issue_refs import ForeignIssue
from bot.snapshot.model import Snapshot


class Unreachable(Frozen):
    """A repository the token cannot write (or read), and what the run left there."""

    repository: str
    access: TokenAccess
    reason: str = ""
    withheld: int = 0
    # Issues named there that the run could not read (the token cannot see the repository).
    unobserved: int = 0


def repositories_of(action: Action) -> set[str]:
    """The other repositories (case folded) a write changes something in."""
    if isinstance(action, CreateLabelAction):
        return {action.repository.casefold()} if action.repository else set()
    # A link is written on one issue but GitHub checks both: either end's repository must allow it.
    ends: tuple[object, ...] = (
        (action.issue, action.target) if isinstance(action, LinkAction) else (getattr(action, "issue", None),)
    )
    return {end.key for end in ends if isinstance(end, ForeignIssue)}


def withhold(
    actions: Sequence[Action], observed: Observed, snapshot: Snapshot
) -> tuple[list[Action], tuple[Unreachable, ...]]:
    """The writes the token can make, and one `Unreachable` per other repository it cannot write
    (with how many of the snapshot's issues there went unread)."""
    tracked = [*(p.issue for p in snapshot.work_packets), *(p.authority_issue for p in snapshot.programs)]
    barred = {
        name.casefold(): (name, access)
        for name, access in sorted(observed.repositories.items())
        if access.token != "write"
    }
    if not barred:
        return list(actions), ()
    kept: list[Action] = []
    withheld: dict[str, int] = {}
    for action in actions:
        hit = repositories_of(action) & barred.keys()
        if not hit:
            kept.append(action)
        for key in hit:
            withheld[key] = withheld.get(key, 0) + 1
    found = tuple(
        Unreachable(
            repository=name,
            access=access.token,
            reason=access.reason,
            withheld=withheld.get(key, 0),
            unobserved=sum(1 for i in tracked if isinstance(i, ForeignIssue) and i.key == key)
            if access.token == "none"
            else 0,
        )
        for key, (name, access) in barred.items()
    )
    return kept, found
