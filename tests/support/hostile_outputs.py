"""Every template's output when everything from outside is one hostile string (tests/boundary/test_templates_hostile.py).

Each output is made by the code that makes it in a run where that is practical: the job summary by
`reconcile.summary`, status by `reconcile.status`, explain by `evidence.explain`, the graphs by
`evidence.packet_graph` and `Renderer`, the replies by the command outbox. Their inputs (the snapshot's
text, ids and paths; leases; logins; comments; issue and PR titles; file names; messages) carry the
hostile string. Each text of the snapshot is the hostile string followed by its seed value, so ids
still name what they named and the derivations, explanations and graphs keep their shape.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Literal

from pydantic import BaseModel

from bot.commands.grammar import Command, Targeted
from bot.commands.outbox import Voice, actions, reports
from bot.commands.reading import ParseError
from bot.commands.registry import command_table
from bot.commands.replay import Handled, Line
from bot.config import Settings
from bot.errors import Problem
from bot.evidence import packet_graph
from bot.evidence.derive import Derivation, Reason, ReasonKind, derive_all
from bot.evidence.explain import explain
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.actions import (
    TOPICS,
    AssignAction,
    CommentAction,
    CreateIssueAction,
    DashboardReport,
    EditIssueAction,
    NativeNote,
    NoteKind,
    OverdueReview,
    PullRequestAction,
    ReactAction,
    TipReport,
    Topic,
)
from bot.github.events import Trigger
from bot.github.markers import header, marker
from bot.github.observed import Comment, Issue, LabelEvent, Observed, PullRequest
from bot.issue_refs import number_of
from bot.reconcile import dashboard
from bot.reconcile.changes import Change, snapshot_changes
from bot.reconcile.dashboard import content
from bot.reconcile.decide import lease_report
from bot.reconcile.executor import Report
from bot.reconcile.labels_and_links import LINK_TOPIC, RECORD_TOPIC, NativePlan, plan_native
from bot.reconcile.plan import Plan
from bot.reconcile.reach import Unreachable
from bot.reconcile.status import status
from bot.reconcile.summary import RunResult, failure_summary, job_summary
from bot.reconcile.view import evidence_for
from bot.render import Renderer
from bot.snapshot.model import SCHEMA_ONE, RetiredConstraint, Snapshot, WorkState
from bot.snapshot.store import load_snapshot
from bot.upstream.importing import LEASES, UPSTREAM_PAGE
from tests.support.paths import ROOT

REASON_KINDS: tuple[ReasonKind, ...] = ReasonKind.__args__  # type: ignore[attr-defined]
NOW = dt.datetime(2026, 8, 28, 10, 0, tzinfo=dt.UTC)


def hostile_copy(value: Any, hostile: str) -> Any:
    """`value` with the hostile string before every text (every `str` field, every text in a tuple)."""
    if isinstance(value, BaseModel):
        update: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            current = getattr(value, name)
            if info.annotation is str:
                update[name] = hostile + current
            elif isinstance(current, tuple | BaseModel):
                update[name] = hostile_copy(current, hostile)
        return value.model_copy(update=update)
    if isinstance(value, tuple):
        return tuple(hostile + item if isinstance(item, str) else hostile_copy(item, hostile) for item in value)
    return value


class World:
    """A run's inputs with the hostile string in every value from outside, and what it derives."""

    def __init__(self, hostile: str, settings: Settings, renderer: Renderer) -> None:
        self.hostile, self.settings, self.renderer = hostile, settings, renderer
        self.config = settings.config
        seed: Snapshot = load_snapshot(ROOT / "config" / "snapshot.yaml").model
        self.snapshot: Snapshot = hostile_copy(seed, hostile)
        self.readback = self._readback()
        self.observed = self._observed()
        self.evidence = evidence_for(self.readback, self.observed, self.config, {})
        self.derivations = tuple(derive_all(self.snapshot, self.evidence))
        self.native = self._native()
        self.plan = self._plan()

    def _readback(self) -> LeaseReadback:
        h, packets = self.hostile, self.snapshot.work_packets
        own = Lease(lane=h + "model", loop_ts=h, holder=h + "issue-9420-x", tree=packets[0].paths)
        # A foreign holder on the paths of a ready packet, seen long ago: an overlap, a stale lease.
        ready = next(p for p in packets if p.state == "ready")
        old = "2026-08-01T00:00:00Z"
        foreign = Lease(lane=h, loop_ts=h + "2", holder=h, tree=(*ready.paths, h), acquired_at=old)
        released = Lease(lane=h + "r", loop_ts=h + "3", holder=h + "issue-8325-r", tree=(h,))
        at = NOW - dt.timedelta(days=3)
        return LeaseReadback(h + "leases.json", "journal", (own, foreign), (released,), (h,), readback_at=at)

    def _observed(self) -> Observed:
        h = self.hostile
        numbers = sorted({number_of(p.issue) for p in self.snapshot.work_packets})
        issues = [Issue(number=n, title=h, assignees=(h,) if i % 2 else (), labels=(h,)) for i, n in enumerate(numbers)]
        issues[0] = issues[0].model_copy(update={"state": "closed"})
        pull = PullRequest(number=3, head=self.config.pull_request.branch, title=h, body=h)
        return Observed(repository=h, issues=tuple(issues), pulls=(pull,))

    def _native(self) -> NativePlan:
        """Labels and links as `plan_native` plans them when a hostile login took perfbot's labels and
        links off every packet issue, a person linked two packet issues, and perfbot's last record of a
        program names a link the snapshot no longer implies."""
        h, bot, s = self.hostile, self.observed.bot_login, self.snapshot
        packets = [p for p in s.work_packets if p.state != "complete"]
        person = ("blocked_by", packets[0].issue, next(p.issue for p in packets if p.issue != packets[0].issue))
        issues = {i.key: i for i in self.observed.issues}
        issues[person[1]] = issues[person[1]].model_copy(update={"blocked_by": (person[2],)})
        for program in s.programs:
            issues.setdefault(program.authority_issue, Issue(number=number_of(program.authority_issue), title=h))
        moves: tuple[tuple[Literal["labeled", "unlabeled"], str, int], ...] = (("labeled", bot, 2), ("unlabeled", h, 1))
        label, ago = self.config.labels.prefix, dt.timedelta(hours=1)
        taken = tuple(
            LabelEvent(issue=p.issue, label=label + p.state, action=act, actor=who, created_at=NOW - n * ago)
            for p in packets
            for act, who, n in moves
        )
        record = header((RECORD_TOPIC, s.programs[0].id), (LINK_TOPIC, "blocked_by:1:2"))
        mine = Comment(id=4, issue=s.programs[0].authority_issue, user=bot, created_at=NOW, body=record)
        observed = self.observed.model_copy(
            update={"issues": tuple(issues.values()), "label_events": taken, "comments": (mine,)}
        )
        return plan_native(s, s, list(self.derivations), observed, self.config, self.renderer)

    def native_bodies(self, topic: str) -> list[str]:
        return [a.body for a in self.native.actions if isinstance(a, CommentAction) and a.topic == topic]

    def native_notes(self) -> tuple[NativeNote, ...]:
        """The notes `plan_native` made, and one of each kind with the hostile string where text goes."""
        h = self.hostile
        made = (NativeNote(kind=k, issue=7, packet=h, other=8, detail=h) for k in NoteKind.__args__)  # type: ignore[attr-defined]
        return (*self.native.notes, *made)

    def every_reason(self) -> Derivation:
        h = self.hostile
        return Derivation(
            id=h,
            issue=7,
            recorded_state="running",
            derived_state="ready",
            reasons=tuple(Reason(kind=kind, subject=h, detail=h) for kind in REASON_KINDS),
            recorded_owner=h,
            derived_owner=h + "!",
            cleared_blockers=(h,),
            newly_satisfied=(h,),
        )

    def pr_changes(self) -> list[Change]:
        """Every kind of change a PR makes, each value carrying the hostile string: every packet's
        state, owner, result, receipts, dependencies, blockers and condition; a constraint's dates
        and evidence; a constraint retired; a program's text."""
        h, s = self.hostile, self.snapshot
        packets = tuple(
            p.model_copy(
                update={
                    "state": "complete" if p.state != "complete" else "ready",
                    "owner": h + "!",
                    "result": h + "r",
                    "related_issues": (*p.related_issues, 1),
                    "hard_dependency_ids": p.hard_dependency_ids[1:],
                    "satisfied_dependency_ids": (*p.satisfied_dependency_ids, *p.hard_dependency_ids[:1]),
                    "blocked_by_ids": (*p.blocked_by_ids[1:], h + "b"),
                    "blocked_by_condition": h + "c",
                    "lane": h + "l",
                }
            )
            for p in s.work_packets
        )
        first, *rest = s.constraints
        evidence = (*rest[0].evidence[1:], hostile_copy(rest[0].evidence[0], h + "e"))
        constraints = (
            rest[0].model_copy(update={"review_by": NOW.date(), "evidence": evidence, "driver": h}),
            *rest[1:],
        )
        retired = RetiredConstraint(id=first.id, name=first.name, retired_on=NOW.date(), ref=h)
        programs = (s.programs[0].model_copy(update={"current_result": h + "!"}), *s.programs[1:])
        after = s.model_copy(
            update={
                "work_packets": packets,
                "constraints": constraints,
                "retired_constraints": (*s.retired_constraints, retired),
                "programs": programs,
            }
        )
        return snapshot_changes(s, after, self.derivations)

    def comment(self) -> Comment:
        return Comment(id=5, issue=7, user=self.hostile, created_at=NOW, body=self.hostile)

    def handled(self, fresh: bool) -> Handled:
        """A comment's outcome: an applied and a refused command, help, lapsed lines, unread lines."""
        h = self.hostile
        help_text = self.renderer.render("comments/help.md.j2", table=command_table(self.config.commands.prefix))

        def line(verb: str, verdict: Any, reason: str, notice: bool = False) -> Line:
            command = Command(verb, 1, h, Targeted(h))
            return Line(1, h, command, verdict, verdict, reason, notice=notice)

        lines = (
            line("block", "accepted", h, notice=True),
            line("claim", "accepted", h, notice=True),
            line("block", "refused", h),
            line("help", "accepted", help_text),
            line("help", "accepted", help_text),
        )
        errors = (ParseError(2, h, h),)
        whole = "this comment has more than 20 commands" if fresh else ""
        return Handled(self.comment(), fresh, lines, errors if fresh else (), whole)

    def bodies(self, topic: str) -> list[str]:
        """The bodies of the outbox's comments on `topic`, for a new comment and for a replayed one."""
        voice = Voice(self.renderer, self.config.commands.prefix, frozenset(), frozenset({5}))
        made = [a for fresh in (True, False) for a in actions(self.handled(fresh), voice)]
        return [a.body for a in made if isinstance(a, CommentAction) and a.topic == topic]

    def _plan(self) -> Plan:
        h = self.hostile
        inputs = SimpleNamespace(readback=self.readback, config=self.config, now=NOW)
        return Plan(
            now=NOW.isoformat(),
            actions=(
                CommentAction(issue=7, topic="packet-ready", body=h),
                ReactAction(issue=7, comment_id=5, content="eyes"),
                AssignAction(issue=7, login=h, add=True),
                AssignAction(issue=7, login=h, add=False),
                PullRequestAction(operation="update", number=3, branch=h, note=h, files={h: h}),
                CreateIssueAction(title=h, body=h, labels=(h,)),
                EditIssueAction(issue=8, body=h),
            ),
            packets=(*self.derivations, self.every_reason()),
            overdue=(OverdueReview(constraint=h, review_by="2026-08-27", issue=7),),
            leases=lease_report(inputs),  # type: ignore[arg-type]
            commands=tuple(reports(self.handled(True))),
            api={"graphql": 2, "rest_read": 3, "rest_write": 1, "graphql_points": 2},
            trigger=Trigger(event=h, action=h, issue=7, comment_id=5, sender=h),
            decided_on=TipReport(oid=h, files=(h,)),
            native_notes=self.native_notes(),
            proposals=tuple(self.native.proposals),
            merged=(*self.derivations, self.every_reason()),
            pending={h: "complete", self.snapshot.work_packets[0].id: "ready"},
            changes=tuple(self.pr_changes()),
            dashboard=DashboardReport(status="closed", issue=8, chars=9, omitted={"waiting packets": 2}, others=(9,)),
            unreachable=(
                Unreachable(repository=h, access="none", reason=h, withheld=2, unobserved=1),
                Unreachable(repository=h, access="read", reason=h, withheld=1),
            ),
        )

    def dashboards(self) -> list[str]:
        """The dashboard's body whole, and cut to a small limit; every other packet pending in the PR,
        and a command pending with it."""
        h = self.hostile
        pending: dict[str, WorkState] = {d.id: "complete" for d in self.derivations[::2]}
        applied = [(self.comment(), h)]
        drawn = dashboard.graphs(self.snapshot, self.derivations, self.renderer)
        stamp = dashboard.Stamp(at="2026-08-28T10:00:00Z", readback_age=5, readback_at="2026-08-28T09:55:00Z")
        found = []
        for pull in ((3, False), (None, True)):
            c = content(self.snapshot, self.derivations, pending, applied, self.readback, self.config, NOW, pull, h)
            found += [dashboard.render(c, drawn, stamp, self.renderer, limit).text for limit in (65_536, 4_000, 1_500)]
        return found

    def graph(self) -> packet_graph.Graph:
        rules = self.config.leases_rules
        return packet_graph.of_derivations(self.snapshot, self.derivations, self.readback.live, rules)

    def run_graph(self) -> str:
        rules = self.config.leases_rules
        return self.renderer.mermaid_block(
            packet_graph.of_run(self.snapshot, self.derivations, self.readback.live, rules)
        )

    def job_summaries(self) -> list[str]:
        """The summary of a dry run and of a run that did part of the plan."""
        report = Report(done=list(self.plan.actions[:2]), deferred=list(self.plan.actions[2:]), pull_request_number=3)
        return [
            job_summary(RunResult(self.plan, run, self.readback, NOW, self.hostile), self.renderer)
            for run in (None, report)
        ]

    def failures(self) -> list[str]:
        problems = [Problem(self.hostile, 3, 4, self.hostile), Problem(self.hostile, 0, 0, self.hostile)]
        return [
            failure_summary(self.renderer, problems, self.hostile),
            failure_summary(self.renderer, [], self.hostile),
        ]

    def explanations(self) -> list[str]:
        prefix = self.config.commands.prefix
        return [
            self.renderer.render(
                "explain.md.j2",
                x=explain(p.id, self.snapshot, self.derivations, self.evidence, NOW),
                prefix=prefix,
                # Every other packet pending in a PR from the config's branch, as a `why` in a run says it.
                pending="complete" if n % 2 else None,
                pull=None,
                branch=self.config.pull_request.branch,
            )
            for n, p in enumerate(self.snapshot.work_packets)
        ]


def outputs(world: World) -> dict[str, Callable[[], list[str]]]:
    """Each template's outputs, by template name."""
    r, h, s, prefix = world.renderer, world.hostile, world.snapshot, world.config.commands.prefix
    text = world.config.page_text

    return {
        "page.md.j2": lambda: [r.page(s, text), r.page(s, text.model_copy(update={"dependency_graph": True}))],
        "plan.txt.j2": lambda: [r.render("plan.txt.j2", plan=world.plan, dry_run=True)],
        "job-summary.md.j2": world.job_summaries,
        "job-failed.md.j2": world.failures,
        "status.txt.j2": lambda: [
            r.render("status.txt.j2", s=status(world.plan, world.readback, world.observed, world.config, NOW))
        ],
        "explain.md.j2": world.explanations,
        "dashboard.md.j2": world.dashboards,
        "graph/mermaid.j2": lambda: [r.graph(world.graph(), "mermaid")],
        "graph/dot.j2": lambda: [r.graph(world.graph(), "dot")],
        "graph/block.md.j2": lambda: [world.run_graph()],
        "pr_body.md.j2": lambda: [
            r.render(
                "pr_body.md.j2",
                changes=world.pr_changes(),
                commands=[(world.comment(), h)],
                omitted=2,
                repository=h,
                files=[h],
                readback=world.readback,
                leases=world.plan.leases,
                graph=world.run_graph(),
                proposals=world.native.proposals,
            )
        ],
        "page-schema-1.md.j2": lambda: [r.page(s.model_copy(update={"schema_": SCHEMA_ONE}), text)],
        # `perfbot import`'s files: the names of the two files given carry the hostile string; the
        # page is a path `importing.page_problem` has checked.
        "import/perfbot.yaml.j2": lambda: [
            r.render(
                "import/perfbot.yaml.j2",
                page=UPSTREAM_PAGE,
                upstream_page=UPSTREAM_PAGE,
                leases=LEASES,
                schema=h,
                schema_one=one,
                current=h,
                graph=h,
            )
            for one in (False, True)
        ],
        "import/snapshot-comments.txt.j2": lambda: [
            r.render("import/snapshot-comments.txt.j2", s=s, current=h, graph=h, dropped=["levers[].name (12)"])
        ],
        "comments/help.md.j2": lambda: [r.render("comments/help.md.j2", table=command_table(prefix))],
        "comments/did-you-mean.md.j2": lambda: [
            r.render("comments/did-you-mean.md.j2", kind="packet", given=h, meant=h)
        ],
        **{TOPICS[topic].template: texts for topic, texts in topic_outputs(world).items()},
    }


def topic_outputs(world: World) -> dict[Topic, Callable[[], list[str]]]:
    """Each comment topic's outputs, by topic (each topic's template is in the registry, `TOPICS`)."""
    r, h, s, prefix = world.renderer, world.hostile, world.snapshot, world.config.commands.prefix
    packet, constraint, d = s.work_packets[0], s.constraints[0], world.every_reason()

    def nudge(topic: Topic, **context: Any) -> list[str]:
        return [r.render(TOPICS[topic].template, marker=marker(topic, h), prefix=prefix, **context)]

    return {
        "command-reply": lambda: world.bodies("command-reply"),
        "command-lapsed": lambda: world.bodies("command-lapsed"),
        "native-links": lambda: world.native_bodies("native-links"),
        "native-restored": lambda: world.native_bodies("native-restored"),
        "issue-mismatch": lambda: [
            body
            for kind in ("closed-while-open", "reopened-while-complete")
            for body in nudge("issue-mismatch", kind=kind, packets=[packet], omitted=1)
        ],
        # Each with the leases a repository reads: dos's file, open pull requests, or both.
        **{
            topic: lambda topic=topic: [  # type: ignore[misc]
                body
                for lease_file, pulls in ((True, False), (False, True), (True, True))
                for body in nudge(
                    topic, packet=packet, derivation=d, reasons=d.reasons, omitted=1, lease_file=lease_file, pulls=pulls
                )
            ]
            for topic in ("lease-lost", "packet-ready")
        },
        "review-overdue": lambda: nudge("review-overdue", constraint=constraint, today="2026-08-28"),
    }


# Templates no text from outside reaches, each with the reason; they are not rendered here.
NO_OUTSIDE_TEXT = {
    # Two integers: how many characters were cut and the limit (bot.bodies.capped).
    "cut.md.j2": "integers only",
    # A time perfbot formats from a parsed datetime, a count, and a reason that is one of four words.
    "publish-commit.txt.j2": "a formatted time, a count and a fixed reason",
    # docs/reference.md from perfbot's own argparse parser, JSON schemas and topic list.
    "reference/cli.md.j2": "perfbot's own parser",
    "reference/keys.md.j2": "perfbot's own models' schemas",
    "reference/topics.md.j2": "perfbot's own topic list",
    # `perfbot init` files: fixed text, dates, and an `--action` that must match OWNER/REPO@<40 hex>.
    "scaffold/leases.json.j2": "fixed text",
    "scaffold/perfbot.yaml.j2": "fixed text",
    "scaffold/snapshot.yaml.j2": "fixed text and two dates",
    "scaffold/workflow.yml.j2": "fixed text and a checked action reference",
}
