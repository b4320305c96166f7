"""The command registry: every verb's facts in one spec — grammar, usage, help, who, effect.

Adding a verb means one `Verb` word (`grammar.py`), one entry in `SPECS`, one effect function
and one test. The `/perf help` reply and the README's "Slash commands" table are generated from
these specs; after changing one, regenerate the README's table:

    python -m bot.commands.registry --readme < README.md > README.md.new && mv README.md.new README.md
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.commands import answers, effects
from bot.commands.effects import Answered, Effect, Outcome, Situation
from bot.commands.grammar import (
    Builder,
    Command,
    Verb,
    build_block,
    build_complete,
    build_drop,
    build_evidence,
    build_exit,
    build_help,
    build_review,
    build_state,
    only_id,
)
from bot.config import CommandSettings
from bot.github.observed import Comment

# Who may use a verb: anyone; `write` permission or more; that, or the assignee of the packet's
# issue; `maintain` permission or more (the collaborator permission, not the author association).
Audience = Literal["anyone", "write", "assignee", "maintain"]
_WHO: dict[Audience, str] = {
    "anyone": "anyone",
    "write": "`write`",
    "assignee": "`write`, or the packet's assignee",
    "maintain": "`maintain`",
}


@dataclass(frozen=True)
class VerbSpec:
    verb: Verb
    # The verb's forms after the prefix; a parse error shows them joined by ` | `.
    forms: tuple[str, ...]
    help: str
    changes_snapshot: bool
    audience: Audience
    build: Builder
    effect: Effect

    @property
    def usage(self) -> str:
        return " | ".join(self.forms)


def _help(situation: Situation, command: Command, comment: Comment) -> Outcome:
    """The help reply: this registry's table."""
    prefix = situation.config.commands.prefix
    return Answered(situation.renderer.render("comments/help.md.j2", table=command_table(prefix)))


SPECS: tuple[VerbSpec, ...] = (
    VerbSpec(
        verb="complete",
        forms=("complete <packet> result: <text> [receipt: #N]",),
        help="the packet's exit is met: `complete`, its result, the receipt issue; "
        "dependents' dependency moves to `satisfied_dependency_ids`",
        changes_snapshot=True,
        audience="write",
        build=build_complete,
        effect=effects.complete,
    ),
    VerbSpec(
        verb="claim",
        forms=("claim <packet>",),
        help="assign the commenter on the packet's issue",
        changes_snapshot=False,
        audience="assignee",
        build=only_id("claim", "packet"),
        effect=answers.claim,
    ),
    VerbSpec(
        verb="unclaim",
        forms=("unclaim <packet>",),
        help="unassign the commenter from the packet's issue",
        changes_snapshot=False,
        audience="assignee",
        build=only_id("unclaim", "packet"),
        effect=answers.unclaim,
    ),
    VerbSpec(
        verb="state",
        forms=("state <packet> <state> [reason: <text>]",),
        help="a person's decision: `capacity-hold` or `waiting-evidence`, lifted with `ready`",
        changes_snapshot=True,
        audience="write",
        build=build_state,
        effect=effects.state,
    ),
    VerbSpec(
        verb="block",
        forms=("block <packet> <condition>",),
        help="set the packet's `blocked_by_condition`",
        changes_snapshot=True,
        audience="assignee",
        build=build_block,
        effect=effects.block,
    ),
    VerbSpec(
        verb="unblock",
        forms=("unblock <packet>",),
        help="clear the packet's `blocked_by_condition`",
        changes_snapshot=True,
        audience="write",
        build=only_id("unblock", "packet"),
        effect=effects.unblock,
    ),
    VerbSpec(
        verb="review",
        forms=("review <constraint> [by YYYY-MM-DD] [note: <text>]",),
        help="re-observed on the comment's date; new `review_by` (default: `commands.review_days` later)",
        changes_snapshot=True,
        audience="write",
        build=build_review,
        effect=effects.review,
    ),
    VerbSpec(
        verb="evidence",
        forms=("evidence <constraint> <class> <summary> (<ref>)",),
        help="append an evidence item to the constraint",
        changes_snapshot=True,
        audience="write",
        build=build_evidence,
        effect=effects.evidence,
    ),
    VerbSpec(
        verb="exit",
        forms=("exit <constraint> met: <ref>",),
        help="retire the constraint into `retired_constraints` (refused while anything names it)",
        changes_snapshot=True,
        audience="write",
        build=build_exit,
        effect=effects.exit_met,
    ),
    VerbSpec(
        verb="help",
        forms=("help",),
        help="reply with this table",
        changes_snapshot=False,
        audience="anyone",
        build=build_help,
        effect=_help,
    ),
    VerbSpec(
        verb="drop",
        forms=("drop all", "drop <comment-id> [<comment-id> ...]"),
        help="drop accepted commands that are not merged yet; the reply says which",
        changes_snapshot=False,
        audience="maintain",
        build=build_drop,
        effect=answers.drop,
    ),
)
_BY_VERB: dict[str, VerbSpec] = {s.verb: s for s in SPECS}


def spec(verb: Verb) -> VerbSpec:
    return _BY_VERB[verb]


def lookup(word: str) -> VerbSpec | None:
    """The spec of a verb as someone typed it (already lower-cased), or None for an unknown word."""
    return _BY_VERB.get(word)


def changes_snapshot(verb: Verb) -> bool:
    return _BY_VERB[verb].changes_snapshot


def command_table(prefix: str) -> str:
    """The Markdown table of every verb: its forms, what it does, who may use it."""
    rows = [
        "| " + " | ".join((" / ".join(f"`{prefix} {form}`" for form in s.forms), s.help, _WHO[s.audience])) + " |"
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
