"""Policy: who may use a command, and which pending commands an accepted `drop` removes.

A command is *pending* while it was accepted, changes the snapshot, and is not in the default
branch's ledger yet: it lives only in the regeneration PR. A `drop` by a maintainer removes the
pending commands of the comments it names (or of all earlier comments) from that PR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from bot.commands.grammar import Command, Drop
from bot.commands.records import Key
from bot.commands.registry import changes_snapshot, spec
from bot.commands.selection import Fresh, Work
from bot.github.observed import Comment, Permission
from bot.snapshot.model import Snapshot

WRITERS: frozenset[Permission] = frozenset({"write", "maintain", "admin"})
MAINTAINERS: frozenset[Permission] = frozenset({"maintain", "admin"})


def authorise(
    command: Command,
    comment: Comment,
    permission: Permission,
    snapshot: Snapshot,
    assignees: Mapping[int, tuple[str, ...]],
) -> str | None:
    """None when the comment's author may use the command, else why not."""
    audience = spec(command.verb).audience
    user = comment.user
    if audience == "anyone":
        return None
    if audience == "maintain":
        return (
            None
            if permission in MAINTAINERS
            else f"`{command.verb}` needs maintain permission; {user} has {permission}"
        )
    if permission in WRITERS:
        return None
    if audience == "assignee":
        packet = snapshot.packet(command.target)
        if packet is not None and user in assignees.get(packet.issue, ()):
            return None
        return f"{user} has {permission} permission and is not assigned to the packet's issue"
    return f"`{command.verb}` needs write permission; {user} has {permission}"


def dropped(
    queue: Sequence[Work],
    permissions: Mapping[str, Permission],
    snapshot: Snapshot,
    assignees: Mapping[int, tuple[str, ...]],
    ledger: AbstractSet[Key],
) -> dict[Key, int]:
    """Pending commands dropped by an accepted `drop`, each mapped to the dropping comment's id.

    A new `drop` counts when its author may use it (on the default branch's snapshot); a
    recorded one when it was accepted.
    """
    pending: list[Key] = []
    drops: list[tuple[int, Drop]] = []
    for work in queue:
        for command, accepted in _verdicts(work, permissions, snapshot, assignees):
            key = (work.comment.id, command.line)
            if isinstance(command.args, Drop) and accepted:
                drops.append((work.comment.id, command.args))
            elif changes_snapshot(command.verb) and key not in ledger:
                pending.append(key)
    removed: dict[Key, int] = {}
    for by, drop in drops:
        for key in pending:
            if key[0] < by and (drop.drop_all or key[0] in drop.drop_ids):
                removed.setdefault(key, by)
    return removed


def _verdicts(
    work: Work,
    permissions: Mapping[str, Permission],
    snapshot: Snapshot,
    assignees: Mapping[int, tuple[str, ...]],
) -> list[tuple[Command, bool]]:
    """Each command of the work, with whether it is (or would be) accepted as far as drops go."""
    if isinstance(work, Fresh):
        permission = permissions.get(work.comment.user, "none")
        return [(c, authorise(c, work.comment, permission, snapshot, assignees) is None) for c in work.parsed.commands]
    return [(c, r.verdict == "accepted") for r, c in work.lines if c is not None]
