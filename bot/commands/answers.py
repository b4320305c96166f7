"""Effects of the commands that leave the snapshot alone: they answer, and at most assign someone.

An assignment is a side effect after the reply (`outbox`), and perfbot never edits a comment, so
the reply says what perfbot *will* do ("alice will be assigned to #9497"), and the record in it
is what later runs finish from (`replay`):

- while the command comment is there, a run that finds no 🚀/😕 on it (the verdict comes after
  the assignment) makes the assignment if GitHub does not show it yet, then gives the verdict;
- when the comment is gone, so is the verdict that would say whether the assignment was ever
  made: perfbot does not make it (it could undo a person's later change), and when GitHub does
  not show it, one notice corrects the reply (`lapsed` marker), as it does when the packet or
  its issue is gone.

A run decides a comment afresh only when no reply to it was written, and then its assignment was
not made either (it follows the reply), so the words of the reply that is written hold.
"""

from __future__ import annotations

from bot.commands.effects import Answered, Effect, Outcome, Refused, Situation, find_packet
from bot.commands.grammar import Command
from bot.github.actions import AssignAction
from bot.github.observed import Comment


def _assignment(add: bool) -> Effect:
    """Assign (`add`) or unassign the commenter on the issue of the packet the command names."""

    def run(situation: Situation, command: Command, comment: Comment) -> Outcome:
        packet = find_packet(situation, command.target)
        if isinstance(packet, Refused):
            return packet
        if packet.issue not in situation.assignees:
            return Refused(f"issue #{packet.issue} was not observed")
        if (comment.user in situation.assignees[packet.issue]) == add:
            change = "is already assigned to" if add else "is not assigned to"
        else:
            change = "will be assigned to" if add else "will be unassigned from"
        assignment = AssignAction(issue=packet.issue, login=comment.user, add=add)
        return Answered(f"{comment.user} {change} #{packet.issue} (`{packet.id}`)", assignment)

    return run


claim = _assignment(add=True)
unclaim = _assignment(add=False)


def why(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """Why the packet is in its state and what would make it ready, from this run's evidence."""
    packet = find_packet(situation, command.target)
    if isinstance(packet, Refused):
        return packet
    if situation.explain is None:
        return Refused("this run has no evidence to explain from")
    # `pipeline` answers it again from the snapshot the run ends on, as every `why` of the run.
    return Answered(situation.explain(situation.snapshot, packet.id, situation.assignees))


# A drop's answer names at most this many commands, then says how many more it dropped.
NAMED_DROPS = 50


def drop(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """Which accepted, unmerged commands this comment's `drop` removed (chosen by `policy.dropped`)."""
    mine = sorted(key for key, by in situation.dropped.items() if by == comment.id and key in situation.accepted)
    if not mine:
        return Answered("no pending commands to drop")
    named = ", ".join(f"comment {cid} line {line}" for cid, line in mine[:NAMED_DROPS])
    more = f" and {len(mine) - NAMED_DROPS} more" if len(mine) > NAMED_DROPS else ""
    return Answered(f"dropped pending commands: {named}{more}")
