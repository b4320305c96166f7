"""A hostile string through every template: no workflow command, no closed fence, no raw newline.

Issue #10 items 9 and 10. Every value a template takes from outside (a lease, a comment, a login,
the snapshot) is the hostile string; what perfbot composes itself (markers, the help table, the
config's texts) is ordinary. Each template in `templates/` must have a context here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel

from bot.commands.grammar import Command
from bot.config import Settings
from bot.evidence.derive import Derivation, Reason, ReasonKind
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.events import Trigger
from bot.github.markers import marker
from bot.github.observed import Comment
from bot.reconcile.actions import (
    AssignAction,
    CommentAction,
    LeaseReport,
    OverdueReview,
    Plan,
    PullRequestAction,
    ReactAction,
)
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from bot.snapshot.store import load_snapshot
from tests.paths import ROOT

HOSTILE = (
    "::error::pwned\n::warning file=x::y\r\n```\n~~~\n##[set-output name=x]y\u2028\u202eevil\u2066 @all <!-- --> |"
)
REASON_KINDS: tuple[ReasonKind, ...] = ReasonKind.__args__  # type: ignore[attr-defined]
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def hostile_copy(value: Any) -> Any:
    """`value` with every free-text field (and every text in a tuple) replaced by the hostile string."""
    if isinstance(value, BaseModel):
        update: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            current = getattr(value, name)
            if info.annotation is str:
                update[name] = HOSTILE
            elif isinstance(current, tuple | BaseModel):
                update[name] = hostile_copy(current)
        return value.model_copy(update=update)
    if isinstance(value, tuple):
        return tuple(HOSTILE if isinstance(item, str) else hostile_copy(item) for item in value)
    return value


def seed() -> Snapshot:
    return load_snapshot(ROOT / "config" / "snapshot.yaml").model


def derivation() -> Derivation:
    return Derivation(
        id=HOSTILE,
        issue=7,
        recorded_state="running",
        derived_state="ready",
        reasons=tuple(Reason(kind=kind, subject=HOSTILE, detail=HOSTILE) for kind in REASON_KINDS),
        recorded_owner=HOSTILE,
        derived_owner=HOSTILE + "!",
        cleared_blockers=(HOSTILE,),
        newly_satisfied=(HOSTILE,),
    )


def lease() -> Lease:
    return Lease(lane=HOSTILE, loop_ts=HOSTILE, holder=HOSTILE, tree=(HOSTILE,))


def comment() -> Comment:
    at = dt.datetime(2026, 8, 27, tzinfo=dt.UTC)
    return Comment(id=5, issue=7, user=HOSTILE, created_at=at, body=HOSTILE)


def command(verb: str = "block") -> Command:
    return Command(verb=verb, line=1, text=HOSTILE, target=HOSTILE)  # type: ignore[arg-type]


def plan_context() -> dict[str, Any]:
    plan = Plan(
        now="2026-08-28T10:00:00+00:00",
        actions=(
            CommentAction(issue=7, topic="packet-ready", body=HOSTILE),
            ReactAction(issue=7, comment_id=5, content="eyes"),
            AssignAction(issue=7, login=HOSTILE, add=True),
            PullRequestAction(operation="update", number=3, branch=HOSTILE, note=HOSTILE, files={HOSTILE: HOSTILE}),
        ),
        packets=(derivation(),),
        overdue=(OverdueReview(constraint=HOSTILE, review_by="2026-08-27", issue=7),),
        leases=LeaseReport(file=HOSTILE, format="journal", live=1, stale=(HOSTILE,), warnings=(HOSTILE,)),
        commands=({"comment_id": 5, "line": 1, "issue": 7, "author": HOSTILE, "decision": HOSTILE, "reason": HOSTILE},),
        trigger=Trigger(event=HOSTILE, action=HOSTILE, issue=7, comment_id=5, sender=HOSTILE),
    )
    return {"plan": plan, "dry_run": True}


def reply_context(settings: Settings, renderer: Renderer) -> dict[str, Any]:
    help_text = renderer.render("comments/help.md.j2", prefix=settings.config.commands.prefix)
    answers = [
        SimpleNamespace(command=command(), verdict="accepted", text=HOSTILE),
        SimpleNamespace(command=command(), verdict="refused", text=HOSTILE),
        SimpleNamespace(command=command("help"), verdict="accepted", text=help_text),
    ]
    return {
        "marker": marker("command-reply", HOSTILE),
        "decisions": [marker("decision", HOSTILE)],
        "author": HOSTILE,
        "answers": answers,
        "errors": [(1, HOSTILE, HOSTILE)],
        "whole": "this comment has more than 20 commands",
        "prefix": settings.config.commands.prefix,
    }


def contexts(settings: Settings, renderer: Renderer) -> dict[str, Callable[[], dict[str, Any]]]:
    prefix = settings.config.commands.prefix
    snapshot = hostile_copy(seed())
    packet, constraint = snapshot.work_packets[0], snapshot.constraints[0]
    return {
        "page.md.j2": lambda: {"s": snapshot, "text": settings.config.page_text},
        "plan.txt.j2": plan_context,
        "pr_body.md.j2": lambda: {
            "changes": [derivation()],
            "commands": [(comment(), HOSTILE)],
            "omitted": 2,
            "repository": HOSTILE,
            "files": [HOSTILE],
            "readback": LeaseReadback(HOSTILE, "journal", (lease(),), (lease(),), (HOSTILE,)),
        },
        "comments/command-lapsed.md.j2": lambda: {
            "marker": marker("command-lapsed", HOSTILE),
            "author": HOSTILE,
            "command": command(),
            "reason": HOSTILE,
        },
        "comments/command-reply.md.j2": lambda: reply_context(settings, renderer),
        "comments/help.md.j2": lambda: {"prefix": prefix},
        "comments/issue-mismatch.md.j2": lambda: {
            "marker": marker("issue-mismatch", HOSTILE),
            "kind": "closed-while-open",
            "packets": [packet, packet],
            "prefix": prefix,
        },
        "comments/lease-lost.md.j2": lambda: {
            "marker": marker("lease-lost", HOSTILE),
            "packet": packet,
            "derivation": derivation(),
        },
        "comments/packet-ready.md.j2": lambda: {
            "marker": marker("packet-ready", HOSTILE),
            "packet": packet,
            "derivation": derivation(),
        },
        "comments/review-overdue.md.j2": lambda: {
            "marker": marker("review-overdue", HOSTILE),
            "constraint": constraint,
            "today": "2026-08-28",
            "prefix": prefix,
        },
    }


# Templates that only define macros; each is rendered through the templates that import it.
MACRO_LIBRARIES = {"reasons.j2"}
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def template_names() -> list[str]:
    return sorted(p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*.j2"))


def test_every_template_has_a_hostile_context(settings: Settings, renderer: Renderer) -> None:
    assert set(template_names()) - MACRO_LIBRARIES == set(contexts(settings, renderer))


@pytest.mark.parametrize("name", sorted(set(template_names()) - MACRO_LIBRARIES))
def test_a_hostile_string_cannot_steer_any_template(name: str, settings: Settings, renderer: Renderer) -> None:
    source = (ROOT / "templates" / name).read_text(encoding="utf-8")
    output = renderer.render(name, **contexts(settings, renderer)[name]())
    assert "pwned" in output or name == "comments/help.md.j2"  # the hostile text did reach the output
    lines = output.split("\n")
    assert [line for line in lines if line.lstrip().startswith("::")] == []
    assert [line for line in lines if "##[" in line] == []
    if not any(FENCE.match(line) for line in source.split("\n")):
        assert [line for line in lines if FENCE.match(line)] == []
    for raw in ("\r", "\u2028", "\u2029", "\x85"):
        assert raw not in output
    assert not BIDI.search(output)
    # Where the hostile string's first line lands, its second line is on the same line: no newline got
    # through. (A marker carries it percent-encoded.)
    carrying = [line for line in lines if "pwned" in line and not line.startswith("<!-- perfbot:")]
    assert all("::warning file=x::y" in line for line in carrying)
