"""The command registry: every verb's facts in one spec — grammar, usage, help, who, effect.

Adding a verb means one word in `Verb`, one row in `SPECS` and its line in `HELP` (here), and
its effect (in `effects.py`: an answer, or a change to the snapshot); a new shape of
arguments adds its type and reader to `grammar.py`. docs/architecture.md lists every file a new
verb touches. The `/perf help` reply and the README's "Slash commands" table are generated from
these specs; after changing one, regenerate the README's table:

    python -m bot.commands.registry --readme < README.md > README.md.new && mv README.md.new README.md
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence
from typing import Literal, NamedTuple, get_args

from bot.commands import effects, grammar
from bot.commands.effects import Answered, Effect, Outcome, Situation
from bot.commands.grammar import Command, Grammar, only_id, verb_only
from bot.config import CommandSettings
from bot.github.observed import Comment

# Every verb, in the order `SPECS` lists them (a test holds the two equal).
Verb = Literal[
    "complete", "claim", "unclaim", "state", "block", "unblock", "review", "evidence", "exit", "why", "help", "drop"
]
VERBS: tuple[Verb, ...] = get_args(Verb)

# Who may use a verb: anyone; `write` permission or more; that, or the assignee of the packet's
# issue; `maintain` permission or more (the collaborator permission, not the author association).
Audience = Literal["anyone", "write", "assignee", "maintain"]
_WHO: dict[Audience, str] = {
    "anyone": "anyone",
    "write": "`write`",
    "assignee": "`write`, or the packet's assignee",
    "maintain": "`maintain`",
}


# Verbs whose whole outcome is their reply: it gets no 🚀 (nothing changed), and a later run that
# finds it recorded has nothing to finish.
ANSWERS_ONLY: frozenset[str] = frozenset({"why", "help"})
# Verbs whose reply is worth reading even when everything was accepted (a drop names what it
# dropped), so a quiet answer (`commands.replies: errors`) still replies to them.
READ_REPLIES: frozenset[str] = frozenset({"drop"})


class VerbSpec(NamedTuple):
    """One verb: how it is written, what it does, who may use it, whether it changes the snapshot."""

    verb: Verb
    grammar: Grammar
    effect: Effect
    audience: Audience = "write"
    changes_snapshot: bool = True

    @property
    def help(self) -> str:
        return HELP[self.verb]


def _help(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """The help reply: this registry's table."""
    prefix = situation.config.commands.prefix
    return Answered(situation.renderer.render("comments/help.md.j2", table=command_table(prefix)))


# Each row is one verb; its help text is its line in HELP.
SPECS: tuple[VerbSpec, ...] = (
    VerbSpec("complete", grammar.complete, effects.complete),
    VerbSpec("claim", only_id("claim", "packet"), effects.claim, "assignee", changes_snapshot=False),
    # Anyone may take themselves off an issue: a rerun that finds them unassigned decides the same.
    VerbSpec("unclaim", only_id("unclaim", "packet"), effects.unclaim, "anyone", changes_snapshot=False),
    VerbSpec("state", grammar.state, effects.state),
    VerbSpec("block", grammar.block, effects.block, "assignee"),
    VerbSpec("unblock", only_id("unblock", "packet"), effects.unblock),
    VerbSpec("review", grammar.review, effects.review),
    VerbSpec("evidence", grammar.evidence, effects.evidence),
    VerbSpec("exit", grammar.exit_met, effects.exit_met),
    VerbSpec("why", only_id("why", "packet"), effects.why, "anyone", changes_snapshot=False),
    VerbSpec("help", verb_only("help"), _help, "anyone", changes_snapshot=False),
    VerbSpec("drop", grammar.drop, effects.drop, "maintain", changes_snapshot=False),
)
# What each verb does, as the help reply and the README's table say it.
HELP: dict[Verb, str] = {
    "complete": "exit met: `complete`, the result, the receipt issue; dependents' dependency becomes satisfied",
    "claim": "assign the commenter on the packet's issue",
    "unclaim": "unassign the commenter from the packet's issue",
    "state": "a person's decision: `capacity-hold` or `waiting-evidence`, lifted with `ready`",
    "block": "set the packet's `blocked_by_condition`",
    "unblock": "clear the packet's `blocked_by_condition`",
    "review": "re-observed on the comment's date; new `review_by` (default: `commands.review_days` later)",
    "evidence": "append an evidence item to the constraint",
    "exit": "retire the constraint into `retired_constraints` (refused while anything names it)",
    "why": "reply why the packet is in its state, with its evidence, and what would make it ready",
    "help": "reply with this table",
    "drop": "drop accepted commands that are not merged yet; the reply says which",
}
_BY_VERB: dict[str, VerbSpec] = {s.verb: s for s in SPECS}


def spec(verb: str) -> VerbSpec:
    return _BY_VERB[verb]


def lookup(word: str) -> VerbSpec | None:
    """The spec of a verb as someone typed it (already lower-cased), or None for an unknown word."""
    return _BY_VERB.get(word)


def changes_snapshot(verb: str) -> bool:
    return _BY_VERB[verb].changes_snapshot


def command_table(prefix: str) -> str:
    """The Markdown table of every verb: its forms, what it does, who may use it."""
    rows = [
        "| "
        + " | ".join((" / ".join(f"`{prefix} {form}`" for form in s.grammar.forms), s.help, _WHO[s.audience]))
        + " |"
        for s in SPECS
    ]
    return "\n".join(["| command | effect | who |", "|---|---|---|", *rows])


# The README's table stands between these two lines.
TABLE_START = "<!-- commands table: generated by `python -m bot.commands.registry --readme`; do not edit -->"
TABLE_END = "<!-- end of the commands table -->"


def _table_span(lines: Sequence[str]) -> tuple[int, int] | None:
    """Where the generated table's lines start and end, or None when the markers are missing."""
    try:
        start = lines.index(TABLE_START) + 1
        return start, lines.index(TABLE_END, start)
    except ValueError:
        return None


def with_table(readme: str, prefix: str = CommandSettings().prefix) -> str:
    """The README with its commands table regenerated (unchanged when it has no marked table)."""
    lines = readme.split("\n")
    span = _table_span(lines)
    if span is None:
        return readme
    return "\n".join([*lines[: span[0]], command_table(prefix), *lines[span[1] :]])


def table_drift(readme: str) -> str:
    """A diff of the README against its regenerated commands table; empty when they agree."""
    if _table_span(readme.split("\n")) is None:
        return f"the README has no commands table between {TABLE_START!r} and {TABLE_END!r}"
    diff = difflib.unified_diff(
        readme.split("\n"), with_table(readme).split("\n"), "README.md", "README.md (generated)", lineterm=""
    )
    return "\n".join(diff)


if __name__ == "__main__":
    if sys.argv[1:] != ["--readme"]:
        sys.exit("usage: python -m bot.commands.registry --readme < README.md > README.md.new")
    sys.stdout.write(with_table(sys.stdin.read()))
