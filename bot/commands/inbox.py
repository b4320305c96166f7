"""Commands from issue comments: which to handle, the decision on each, and the answers.

Exactly once, nothing lost: the bot's reply to a comment records its decision on every command
line, with the command's text, author and time (hidden `decision` markers in the reply's
header), and the snapshot's ledger records every applied command. Each run rebuilds the
working snapshot as the default branch's snapshot plus every accepted command not in that
ledger, in comment order, replayed from those records: an edited or deleted comment cannot
change or lose a decided command, and a replay needs no second permission check. A command
that no longer applies is reported once and is settled from then on.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Literal

from bot.commands import effects
from bot.commands.grammar import ASSIGNEE_VERBS, MUTATING, Command, Parsed, parse
from bot.config import BotConfig
from bot.github.markers import marker, markers_in, said
from bot.github.observed import Comment, Observed
from bot.reconcile.actions import Action, AssignAction, CommentAction, ReactAction, ReactionContent
from bot.render import Renderer
from bot.snapshot.model import Snapshot

Verdict = Literal["accepted", "refused"]
WRITERS = frozenset({"write", "maintain", "admin"})
MAINTAINERS = frozenset({"maintain", "admin"})


class CommandReport(dict[str, object]):
    """One command's line in the plan JSON (comment id, parsed form, decision, reason)."""


@dataclass(frozen=True)
class Record:
    """A decision as the bot's reply recorded it."""

    comment: Comment
    line: int
    verdict: Verdict
    text: str

    def key(self) -> tuple[int, int]:
        return (self.comment.id, self.line)

    def encode(self) -> str:
        """Accepted records keep the command's text for replay; refused ones need only the verdict."""
        c = self.comment
        text = self.text if self.verdict == "accepted" else ""
        data = {"c": c.id, "i": c.issue, "a": c.user, "at": c.created_at.isoformat(), "l": self.line}
        return json.dumps({**data, "v": self.verdict, "t": text}, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def decode(cls, key: str) -> Record | None:
        try:
            data = json.loads(key)
            comment = Comment(id=data["c"], issue=data["i"], user=data["a"], created_at=data["at"], body=data["t"])
            verdict = data["v"]
            if verdict not in ("accepted", "refused") or not isinstance(data["l"], int):
                return None
            return cls(comment, data["l"], verdict, data["t"])
        except (ValueError, KeyError, TypeError):
            return None


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
class _Answer:
    command: Command
    verdict: Verdict
    text: str


def is_bot(comment: Comment, bot_login: str) -> bool:
    return comment.user_type == "Bot" or comment.user == bot_login or comment.user.endswith("[bot]")


def read(base: Snapshot, observed: Observed, config: BotConfig, renderer: Renderer) -> Inbox:
    """Replay decided commands and decide new ones, in comment order, on top of `base`."""
    return _Reader(base, observed, config, renderer).run()


def unanswered(observed: Observed, floor: int, config: BotConfig) -> list[tuple[Comment, Parsed]]:
    """Comments past `floor` with commands the bot has not answered, in the order it answers them.

    Their authors are the only people whose permission a run needs to know."""
    records = recorded_decisions(observed.bot_comments())
    limits = config.commands
    new = [
        (c, parse(c.body, limits.prefix, limits.max_comment_chars, limits.max_argument_chars))
        for c in observed.comments
        if c.id > floor and c.id not in records and not is_bot(c, observed.bot_login) and not c.edited
    ]
    return [(c, p) for c, p in sorted(new, key=lambda item: (item[0].created_at, item[0].id)) if not p.empty]


def recorded_decisions(replies: list[Comment]) -> dict[int, list[Record]]:
    """Decision records by comment id; the bot's first reply to a comment is the one that counts."""
    records: dict[int, list[Record]] = {}
    for reply in sorted(replies, key=lambda c: c.id):
        header = markers_in(reply.body)
        replied = [int(key) for topic, key in header if topic == "command-reply" and key.isascii() and key.isdigit()]
        if len(replied) != 1 or replied[0] in records:
            continue
        found = [Record.decode(key) for topic, key in header if topic == "decision"]
        records[replied[0]] = sorted(
            (r for r in found if r is not None and r.comment.id == replied[0]), key=lambda r: r.line
        )
    return records


class _Reader:
    def __init__(self, base: Snapshot, observed: Observed, config: BotConfig, renderer: Renderer) -> None:
        self.base, self.observed, self.config, self.renderer = base, observed, config, renderer
        self.mine = observed.bot_comments()
        self.records = recorded_decisions(self.mine)
        self.ledger = {entry.key for entry in base.ledger}
        self.inbox = Inbox(base, assignees={i.number: i.assignees for i in observed.issues})
        self.prefix = config.commands.prefix
        self.comments = {c.id: c for c in observed.comments}
        self.lapsed: set[tuple[int, int]] = set()
        self.decided_now: dict[int, list[tuple[Command, Verdict]]] = {}
        self.waiting: set[int] = set()  # new comments left for a later run (per-person cap)

    def _parse(self, body: str) -> Parsed:
        limits = self.config.commands
        return parse(body, self.prefix, limits.max_comment_chars, limits.max_argument_chars)

    def _command(self, record: Record) -> Command | None:
        parsed = self._parse(record.text)
        return dataclasses.replace(parsed.commands[0], line=record.line) if parsed.commands else None

    def run(self) -> Inbox:
        floor = self.base.commands_settled_through
        new = unanswered(self.observed, floor, self.config)
        per_user: dict[str, int] = {}
        answered_now = []
        for comment, parsed in new:
            per_user[comment.user] = per_user.get(comment.user, 0) + 1
            if per_user[comment.user] <= self.config.commands.max_comments_per_user:
                answered_now.append((comment, parsed))
            else:
                self.waiting.add(comment.id)
        new = answered_now
        decided = [(records[0].comment, records) for cid, records in self.records.items() if cid > floor and records]
        queue: list[tuple[Comment, Parsed | list[Record]]] = [*new, *decided]
        queue.sort(key=lambda item: (item[0].created_at, item[0].id))
        dropped = self._dropped(queue)
        for comment, work in queue:
            if isinstance(work, Parsed):
                self._decide(self.comments.get(comment.id, comment), work, dropped)
            else:
                self._replay(comment, work, dropped)
        self.inbox.settled_through = self._settled_through(queue, dropped)
        return self.inbox

    def _settled_through(
        self, queue: list[tuple[Comment, Parsed | list[Record]]], dropped: dict[tuple[int, int], int]
    ) -> int:
        """Ledger compaction bound: comments up to it were answered and their changes merged,
        dropped or lapsed. This run's own decisions count as recorded, so the bound (and with it
        the snapshot) is the same whether or not this run's replies have been written yet."""
        settled = self.base.commands_settled_through
        for comment, work in sorted(queue, key=lambda item: item[0].id):
            if any(waiting < comment.id for waiting in self.waiting):
                break
            if isinstance(work, Parsed):
                decided = [(c, v) for c, v in self.decided_now.get(comment.id, [])]
            else:
                decided = [(c, r.verdict) for r in work if (c := self._command(r)) is not None]
            pending = any(
                verdict == "accepted"
                and command.verb in MUTATING
                and (comment.id, command.line) not in self.ledger
                and (comment.id, command.line) not in dropped
                and (comment.id, command.line) not in self.lapsed
                for command, verdict in decided
            )
            if pending:
                break
            settled = comment.id
        return settled

    # --- decisions -------------------------------------------------------------------------

    def _authorise(self, command: Command, comment: Comment) -> str | None:
        """None when allowed, else why not."""
        permission = self.observed.permissions.get(comment.user, "none")
        if command.verb == "help":
            return None
        if command.verb == "drop":
            allowed = permission in MAINTAINERS
            return None if allowed else f"`drop` needs maintain permission; {comment.user} has {permission}"
        if permission in WRITERS:
            return None
        if command.verb in ASSIGNEE_VERBS:
            packet = self.inbox.snapshot.packet(command.target)
            if packet is not None and comment.user in self.inbox.assignees.get(packet.issue, ()):
                return None
            return f"{comment.user} has {permission} permission and is not assigned to the packet's issue"
        return f"`{command.verb}` needs write permission; {comment.user} has {permission}"

    def _dropped(self, queue: list[tuple[Comment, Parsed | list[Record]]]) -> dict[tuple[int, int], int]:
        """Pending commands dropped by an accepted `drop`, mapped to the dropping comment's id."""
        mutating: list[tuple[int, tuple[int, int]]] = []
        drops: list[tuple[Comment, Command]] = []
        for comment, work in queue:
            if isinstance(work, Parsed):
                pairs = [(c, self._authorise(c, comment) is None) for c in work.commands]
            else:
                pairs = [(c, r.verdict == "accepted") for r in work if (c := self._command(r)) is not None]
            for command, accepted in pairs:
                if command.verb == "drop" and accepted:
                    drops.append((comment, command))
                elif command.verb in MUTATING and (comment.id, command.line) not in self.ledger:
                    mutating.append((comment.id, (comment.id, command.line)))
        dropped: dict[tuple[int, int], int] = {}
        for comment, command in drops:
            for cid, key in mutating:
                if cid < comment.id and (command.drop_all or cid in command.drop_ids):
                    dropped.setdefault(key, comment.id)
        return dropped

    def _too_big(self, comment: Comment, parsed: Parsed) -> str:
        """Why a comment's commands cannot be answered one by one (an empty string when they can)."""
        limits = self.config.commands
        if parsed.too_long:
            return f"this comment is longer than {limits.max_comment_chars} characters"
        if len(parsed.commands) + len(parsed.errors) > limits.max_commands_per_comment:
            return f"this comment has more than {limits.max_commands_per_comment} commands"
        records = [Record(comment, c.line, "accepted", c.text).encode() for c in parsed.commands]
        if sum(len(marker("decision", r)) for r in records) > limits.max_body_chars // 2:
            return "this comment's commands are too long to answer and record in one reply"
        return ""

    def _decide(self, comment: Comment, parsed: Parsed, dropped: dict[tuple[int, int], int]) -> None:
        self._react(comment, "eyes")
        whole = self._too_big(comment, parsed)
        if whole:
            parsed = Parsed(too_long=True)
        assignments: list[Action] = []
        answers = [self._answer(comment, command, dropped, assignments) for command in parsed.commands]
        self.decided_now[comment.id] = [(a.command, a.verdict) for a in answers]
        errors = [(e.line, e.text, e.message) for e in parsed.errors]
        for line, text, message in errors:
            self._report(comment, line, text, None, "refused", message)
        if parsed.too_long:
            self._report(comment, 0, "", None, "refused", whole)
        records = [Record(comment, a.command.line, a.verdict, a.command.text) for a in answers]
        records += [Record(comment, line, "refused", text) for line, text, _ in errors]
        self.inbox.actions.append(
            CommentAction(
                issue=comment.issue,
                topic="command-reply",
                body=self.renderer.render(
                    "comments/command-reply.md.j2",
                    marker=marker("command-reply", str(comment.id)),
                    decisions=[marker("decision", r.encode()) for r in records],
                    author=comment.user,
                    answers=answers,
                    errors=errors,
                    whole=whole,
                    prefix=self.prefix,
                ),
            )
        )
        # Side effects on GitHub come after the reply that records the decision, so a run that
        # stops in between is finished by the next run's replay, not decided a second time.
        self.inbox.actions += assignments
        if any(a.verdict == "accepted" for a in answers):
            self._react(comment, "rocket")
        if any(a.verdict == "refused" for a in answers) or errors or parsed.too_long:
            self._react(comment, "confused")

    def _answer(
        self, comment: Comment, command: Command, dropped: dict[tuple[int, int], int], assignments: list[Action]
    ) -> _Answer:
        why_not = self._authorise(command, comment)
        if why_not is not None:
            return self._refuse(comment, command, why_not)
        if command.verb == "help":
            return self._accept(comment, command, self.renderer.render("comments/help.md.j2", prefix=self.prefix))
        if command.verb == "drop":
            return self._accept(comment, command, self._describe_drop(comment, dropped))
        if command.verb in ("claim", "unclaim"):
            return self._claim(comment, command, assignments)
        if (comment.id, command.line) in self.ledger:
            # Merged already (its reply was lost or never written): answer it, never apply twice.
            return self._accept(comment, command, "applied and merged earlier", "merged")
        outcome = effects.apply(self.inbox.snapshot, command, comment, self.config)
        if isinstance(outcome, effects.Refused):
            return self._refuse(comment, command, outcome.reason)
        if (comment.id, command.line) in dropped:
            return self._accept(comment, command, outcome.effect + " — then dropped before it was merged", "dropped")
        self.inbox.snapshot = outcome.snapshot
        self.inbox.applied.append((comment, outcome.effect))
        return self._accept(comment, command, outcome.effect)

    def _claim(self, comment: Comment, command: Command, assignments: list[Action]) -> _Answer:
        packet = effects.find_packet(self.inbox.snapshot, command.target)
        if isinstance(packet, effects.Refused):
            return self._refuse(comment, command, packet.reason)
        if packet.issue not in self.inbox.assignees:
            return self._refuse(comment, command, f"issue #{packet.issue} was not observed")
        assignments += self._assign(packet.issue, comment.user, command.verb == "claim")
        # The same words whether or not this run made the change, so a rerun answers identically.
        state = "is assigned to" if command.verb == "claim" else "is not assigned to"
        return self._accept(comment, command, f"{comment.user} {state} #{packet.issue} (`{packet.id}`)")

    def _assign(self, issue: int, login: str, add: bool) -> list[Action]:
        current = self.inbox.assignees.get(issue, ())
        if (login in current) == add:
            return []
        others = tuple(u for u in current if u != login)
        self.inbox.assignees[issue] = (*others, login) if add else others
        return [AssignAction(issue=issue, login=login, add=add)]

    def _describe_drop(self, comment: Comment, dropped: dict[tuple[int, int], int]) -> str:
        accepted = {
            (cid, command.line)
            for cid, answers in self.decided_now.items()
            for command, v in answers
            if v == "accepted"
        } | {r.key() for records in self.records.values() for r in records if r.verdict == "accepted"}
        mine = sorted(key for key, by in dropped.items() if by == comment.id and key in accepted)
        if not mine:
            return "no pending commands to drop"
        return "dropped pending commands: " + ", ".join(f"comment {cid} line {line}" for cid, line in mine)

    def _accept(self, comment: Comment, command: Command, text: str, decision: str = "accepted") -> _Answer:
        self._report(comment, command.line, command.text, command, decision, text)
        return _Answer(command, "accepted", text)

    def _refuse(self, comment: Comment, command: Command, reason: str) -> _Answer:
        self._report(comment, command.line, command.text, command, "refused", reason)
        return _Answer(command, "refused", reason)

    # --- replay ----------------------------------------------------------------------------

    def _replay(self, comment: Comment, records: list[Record], dropped: dict[tuple[int, int], int]) -> None:
        present = comment.id in self.comments
        if present:
            self._react(comment, "eyes")
        finished = self._reacted(comment, "rocket") or self._reacted(comment, "confused")
        for record in records:
            command = self._command(record)
            if command is None or record.verdict != "accepted":
                self._report(comment, record.line, record.text, command, "refused", "refused earlier")
            elif command.verb in ("claim", "unclaim"):
                packet = self.inbox.snapshot.packet(command.target)
                if not finished and present and packet is not None:
                    # The run that decided it stopped before its side effect: finish it.
                    self.inbox.actions += self._assign(packet.issue, comment.user, command.verb == "claim")
                self._report(comment, record.line, record.text, command, "answered", "answered earlier")
            elif command.verb not in MUTATING:
                self._report(comment, record.line, record.text, command, "answered", "answered earlier")
            elif record.key() in self.ledger:
                self._report(comment, record.line, record.text, command, "merged", "in the default branch's ledger")
            elif record.key() in dropped:
                why = f"dropped by comment {dropped[record.key()]}"
                self._report(comment, record.line, record.text, command, "dropped", why)
            elif said(self.mine, "lapsed", f"{comment.id}:{record.line}"):
                self.lapsed.add(record.key())
                self._report(comment, record.line, record.text, command, "lapsed", "no longer applied (reported)")
            else:
                self._reapply(comment, command, record)
        if present:
            if any(r.verdict == "accepted" for r in records):
                self._react(comment, "rocket")
            if any(r.verdict == "refused" for r in records):
                self._react(comment, "confused")

    def _reapply(self, comment: Comment, command: Command, record: Record) -> None:
        outcome = effects.apply(self.inbox.snapshot, command, comment, self.config)
        if isinstance(outcome, effects.Applied):
            self.inbox.snapshot = outcome.snapshot
            self.inbox.applied.append((comment, outcome.effect))
            self._report(comment, record.line, record.text, command, "replayed", outcome.effect)
            return
        self.lapsed.add(record.key())
        self._report(comment, record.line, record.text, command, "lapsed", outcome.reason)
        self.inbox.actions.append(
            CommentAction(
                issue=comment.issue,
                topic="command-lapsed",
                body=self.renderer.render(
                    "comments/command-lapsed.md.j2",
                    marker=marker("lapsed", f"{comment.id}:{record.line}"),
                    author=comment.user,
                    command=command,
                    reason=outcome.reason,
                ),
            )
        )

    # --- answers ---------------------------------------------------------------------------

    def _reacted(self, comment: Comment, content: ReactionContent) -> bool:
        bot = self.observed.bot_login
        return any(
            r.comment_id == comment.id and r.user == bot and r.content == content for r in self.observed.reactions
        )

    def _react(self, comment: Comment, content: ReactionContent) -> None:
        if not self._reacted(comment, content):
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
