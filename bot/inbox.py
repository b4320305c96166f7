"""Commands from issue comments: which to handle, the decision on each, and the answers.

Exactly once, nothing lost: the bot's reply to a comment records its decision on every
command line (hidden `decision` markers), and the snapshot's ledger records every applied
command. Each run rebuilds the working snapshot as the default branch's snapshot plus every
accepted command not in that ledger, in comment order; a replay needs no second permission
check. A command that no longer applies is reported once, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot import effects
from bot.actions import Action, AssignAction, CommentAction, ReactAction, ReactionContent
from bot.commands import ASSIGNEE_VERBS, MUTATING, Command, Parsed, parse
from bot.config import BotConfig
from bot.markers import marker, markers_in, said
from bot.observed import Comment, Observed
from bot.render import Renderer
from bot.snapshot import Snapshot

Decision = Literal["accepted", "refused"]
WRITERS = frozenset({"write", "maintain", "admin"})
MAINTAINERS = frozenset({"maintain", "admin"})


class CommandReport(dict[str, object]):
    """One command's line in the plan JSON (comment id, parsed form, decision, reason)."""


@dataclass
class Inbox:
    """The outcome of reading every command: the working snapshot and what to answer."""

    snapshot: Snapshot
    actions: list[Action] = field(default_factory=list)
    reports: list[CommandReport] = field(default_factory=list)
    assignees: dict[int, tuple[str, ...]] = field(default_factory=dict)
    applied: list[tuple[Comment, str]] = field(default_factory=list)
    # Highest comment id up to which every command is settled against the default branch.
    settled_through: int = 0


@dataclass(frozen=True)
class _Verdict:
    command: Command
    decision: Decision
    text: str


def is_bot(comment: Comment, bot_login: str) -> bool:
    return comment.user_type == "Bot" or comment.user == bot_login or comment.user.endswith("[bot]")


def read(base: Snapshot, observed: Observed, config: BotConfig, renderer: Renderer) -> Inbox:
    """Replay decided commands and decide new ones, in comment order, on top of `base`."""
    return _Reader(base, observed, config, renderer).run()


class _Reader:
    def __init__(self, base: Snapshot, observed: Observed, config: BotConfig, renderer: Renderer) -> None:
        self.base, self.observed, self.config, self.renderer = base, observed, config, renderer
        self.mine = observed.bot_comments()
        self.decisions: dict[tuple[int, int], Decision] = {}
        self.replied: set[int] = set()
        for reply in self.mine:
            for topic, key in markers_in(reply.body):
                if topic == "command-reply" and key.isdigit():
                    self.replied.add(int(key))
                elif topic == "decision":
                    cid, line, verdict = key.split(":") if key.count(":") == 2 else ("", "", "")
                    if cid.isdigit() and line.isdigit() and verdict in ("accepted", "refused"):
                        self.decisions[(int(cid), int(line))] = verdict  # type: ignore[assignment]
        self.ledger = {entry.key for entry in base.ledger}
        self.inbox = Inbox(base, assignees={i.number: i.assignees for i in observed.issues})
        self.prefix = config.commands.prefix

    def _parse(self, comment: Comment) -> Parsed:
        limits = self.config.commands
        return parse(comment.body, self.prefix, limits.max_comment_chars, limits.max_argument_chars)

    def run(self) -> Inbox:
        candidates = [
            (c, self._parse(c))
            for c in sorted(self.observed.comments, key=lambda c: (c.created_at, c.id))
            if c.id > self.base.commands_settled_through and not is_bot(c, self.observed.bot_login) and not c.edited
        ]
        candidates = [(c, p) for c, p in candidates if not p.empty]
        dropped = self._dropped(candidates)
        for comment, parsed in candidates:
            if comment.id in self.replied:
                self._replay(comment, parsed, dropped)
            else:
                self._decide(comment, parsed, dropped)
        self.inbox.settled_through = self._settled_through(candidates, dropped)
        return self.inbox

    def _settled_through(self, candidates: list[tuple[Comment, Parsed]], dropped: dict[tuple[int, int], int]) -> int:
        """Ledger compaction bound: comments up to it were answered and their changes merged or dropped."""
        settled = self.base.commands_settled_through
        for comment, parsed in sorted(candidates, key=lambda item: item[0].id):
            pending = comment.id not in self.replied or any(
                self.decisions.get((comment.id, c.line)) == "accepted"
                and c.verb in MUTATING
                and (comment.id, c.line) not in self.ledger
                and (comment.id, c.line) not in dropped
                for c in parsed.commands
            )
            if pending:
                break
            settled = comment.id
        return settled

    # --- decisions -------------------------------------------------------------------------

    def _permission(self, user: str) -> str:
        return self.observed.permissions.get(user, "none")

    def _authorise(self, command: Command, comment: Comment) -> str | None:
        """None when allowed, else why not."""
        permission = self._permission(comment.user)
        if command.verb == "help":
            return None
        if command.verb == "drop":
            return (
                None
                if permission in MAINTAINERS
                else f"`drop` needs maintain permission; {comment.user} has {permission}"
            )
        if permission in WRITERS:
            return None
        if command.verb in ASSIGNEE_VERBS:
            packet = self.inbox.snapshot.packet(command.target)
            if packet is not None and comment.user in self.inbox.assignees.get(packet.issue, ()):
                return None
            return f"{comment.user} has {permission} permission and is not assigned to the packet's issue"
        return f"`{command.verb}` needs write permission; {comment.user} has {permission}"

    def _dropped(self, candidates: list[tuple[Comment, Parsed]]) -> dict[tuple[int, int], int]:
        """Pending commands dropped by an accepted `drop`, mapped to the dropping comment's id."""
        dropped: dict[tuple[int, int], int] = {}
        for comment, parsed in candidates:
            for command in parsed.commands:
                if command.verb != "drop":
                    continue
                key = (comment.id, command.line)
                accepted = (
                    self.decisions.get(key) == "accepted"
                    if comment.id in self.replied
                    else self._authorise(command, comment) is None
                )
                if not accepted:
                    continue
                for earlier, earlier_parsed in candidates:
                    if earlier.id >= comment.id or (not command.drop_all and earlier.id not in command.drop_ids):
                        continue
                    for target in earlier_parsed.commands:
                        target_key = (earlier.id, target.line)
                        if target.verb in MUTATING and target_key not in self.ledger:
                            dropped.setdefault(target_key, comment.id)
        return dropped

    def _decide(self, comment: Comment, parsed: Parsed, dropped: dict[tuple[int, int], int]) -> None:
        self._react(comment, "eyes")
        verdicts: list[_Verdict] = []
        for command in parsed.commands:
            verdicts.append(self._verdict(comment, command, dropped))
        errors = [(e.line, e.text, e.message) for e in parsed.errors]
        for line, text, message in errors:
            self._report(comment, line, text, None, "refused", message)
        if parsed.too_long:
            limit = self.config.commands.max_comment_chars
            self._report(comment, 0, "", None, "refused", f"comment longer than {limit} characters")
        self.inbox.actions.append(
            CommentAction(
                issue=comment.issue,
                topic="command-reply",
                body=self.renderer.render(
                    "comments/command-reply.md.j2",
                    marker=marker("command-reply", str(comment.id)),
                    decisions=[marker("decision", f"{comment.id}:{v.command.line}:{v.decision}") for v in verdicts]
                    + [marker("decision", f"{comment.id}:{line}:refused") for line, _, _ in errors],
                    author=comment.user,
                    verdicts=verdicts,
                    errors=errors,
                    too_long=parsed.too_long,
                    limit=self.config.commands.max_comment_chars,
                    prefix=self.prefix,
                ),
            )
        )
        refused = any(v.decision == "refused" for v in verdicts) or bool(errors) or parsed.too_long
        if any(v.decision == "accepted" for v in verdicts):
            self._react(comment, "rocket")
        if refused:
            self._react(comment, "confused")

    def _verdict(self, comment: Comment, command: Command, dropped: dict[tuple[int, int], int]) -> _Verdict:
        why_not = self._authorise(command, comment)
        if why_not is not None:
            return self._refuse(comment, command, why_not)
        if command.verb == "help":
            return self._accept(comment, command, self.renderer.render("comments/help.md.j2", prefix=self.prefix))
        if command.verb == "drop":
            return self._accept(comment, command, self._describe_drop(comment, dropped))
        if command.verb in ("claim", "unclaim"):
            return self._claim(comment, command)
        outcome = effects.apply(self.inbox.snapshot, command, comment, self.config)
        if isinstance(outcome, effects.Refused):
            return self._refuse(comment, command, outcome.reason)
        if (comment.id, command.line) in dropped:
            return self._accept(comment, command, outcome.effect + " — then dropped before it was merged", "dropped")
        self.inbox.snapshot = outcome.snapshot
        self.inbox.applied.append((comment, outcome.effect))
        return self._accept(comment, command, outcome.effect)

    def _claim(self, comment: Comment, command: Command) -> _Verdict:
        packet = effects.find_packet(self.inbox.snapshot, command.target)
        if isinstance(packet, effects.Refused):
            return self._refuse(comment, command, packet.reason)
        current = self.inbox.assignees.get(packet.issue)
        if current is None:
            return self._refuse(comment, command, f"issue #{packet.issue} was not observed")
        add = command.verb == "claim"
        if (comment.user in current) != add:
            others = tuple(u for u in current if u != comment.user)
            self.inbox.assignees[packet.issue] = (*others, comment.user) if add else others
            self.inbox.actions.append(AssignAction(issue=packet.issue, login=comment.user, add=add))
        # The same words whether or not this run made the change, so a rerun answers identically.
        state = "is assigned to" if add else "is not assigned to"
        return self._accept(comment, command, f"{comment.user} {state} #{packet.issue} (`{packet.id}`)")

    def _describe_drop(self, comment: Comment, dropped: dict[tuple[int, int], int]) -> str:
        mine = sorted(key for key, by in dropped.items() if by == comment.id)
        if not mine:
            return "no pending commands to drop"
        return "dropped pending commands: " + ", ".join(f"comment {cid} line {line}" for cid, line in mine)

    def _accept(self, comment: Comment, command: Command, text: str, decision: str = "accepted") -> _Verdict:
        self._report(comment, command.line, command.text, command, decision, text)
        return _Verdict(command, "accepted", text)

    def _refuse(self, comment: Comment, command: Command, reason: str) -> _Verdict:
        self._report(comment, command.line, command.text, command, "refused", reason)
        return _Verdict(command, "refused", reason)

    # --- replay ----------------------------------------------------------------------------

    def _replay(self, comment: Comment, parsed: Parsed, dropped: dict[tuple[int, int], int]) -> None:
        self._react(comment, "eyes")
        any_accepted = any_refused = False
        for command in parsed.commands:
            key = (comment.id, command.line)
            decision = self.decisions.get(key)
            any_accepted |= decision == "accepted"
            any_refused |= decision == "refused"
            if decision != "accepted":
                self._report(comment, command.line, command.text, command, "refused", "refused earlier")
            elif command.verb not in MUTATING:
                self._report(comment, command.line, command.text, command, "answered", "answered earlier")
            elif key in self.ledger:
                self._report(comment, command.line, command.text, command, "merged", "in the default branch's ledger")
            elif key in dropped:
                self._report(
                    comment, command.line, command.text, command, "dropped", f"dropped by comment {dropped[key]}"
                )
            else:
                self._reapply(comment, command)
        any_refused |= bool(parsed.errors) or parsed.too_long
        if any_accepted:
            self._react(comment, "rocket")
        if any_refused:
            self._react(comment, "confused")

    def _reapply(self, comment: Comment, command: Command) -> None:
        outcome = effects.apply(self.inbox.snapshot, command, comment, self.config)
        if isinstance(outcome, effects.Applied):
            self.inbox.snapshot = outcome.snapshot
            self.inbox.applied.append((comment, outcome.effect))
            self._report(comment, command.line, command.text, command, "replayed", outcome.effect)
            return
        self._report(comment, command.line, command.text, command, "lapsed", outcome.reason)
        key = f"{comment.id}:{command.line}"
        if not said(self.mine, "lapsed", key):
            self.inbox.actions.append(
                CommentAction(
                    issue=comment.issue,
                    topic="command-reply",
                    body=self.renderer.render(
                        "comments/command-lapsed.md.j2",
                        marker=marker("lapsed", key),
                        author=comment.user,
                        command=command,
                        reason=outcome.reason,
                    ),
                )
            )

    # --- answers ---------------------------------------------------------------------------

    def _react(self, comment: Comment, content: ReactionContent) -> None:
        bot = self.observed.bot_login
        if any(r.comment_id == comment.id and r.user == bot and r.content == content for r in self.observed.reactions):
            return
        self.inbox.actions.append(ReactAction(issue=comment.issue, comment_id=comment.id, content=content))

    def _report(
        self, comment: Comment, line: int, text: str, command: Command | None, decision: str, reason: str
    ) -> None:
        self.inbox.reports.append(
            CommandReport(
                comment_id=comment.id,
                issue=comment.issue,
                author=comment.user,
                line=line,
                text=text[:300],
                parsed=command.parsed() if command else None,
                decision=decision,
                reason=reason,
            )
        )
