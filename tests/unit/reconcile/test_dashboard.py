"""The dashboard on in-memory values: which write (or none) a run plans, how perfbot knows its own
issue, the sections each packet falls in, the graphs' size, and the body at 100x the seed."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from benchmarks.reconcile import world
from benchmarks.synthetic import scaled
from bot.config import BotConfig, DashboardSettings, Settings
from bot.evidence.derive import derive_all
from bot.evidence.leases import LeaseReadback
from bot.github.actions import CreateIssueAction, EditIssueAction
from bot.github.markers import marker
from bot.github.observed import Issue, Observed
from bot.reconcile import dashboard
from bot.reconcile.dashboard import WAITING_STATES, Content, content
from bot.reconcile.view import evidence_for
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from bot.snapshot.store import load_snapshot
from tests.support.paths import ROOT

NOW = dt.datetime(2026, 8, 27, 18, tzinfo=dt.UTC)
BOT = "perfbot[bot]"
LABEL = "perfbot-dashboard"
HEADER = marker(dashboard.TOPIC, dashboard.KEY)
NODE = re.compile(r'^\s*p\d+\["', re.M)


def config_on(settings: Settings, enabled: bool = True) -> BotConfig:
    return settings.config.model_copy(update={"dashboard": DashboardSettings(enabled=enabled)})


def body(text: str, at: str = "2026-08-27T18:00:00Z") -> dashboard.Body:
    return dashboard.Body(f"{HEADER}\n{text}\n{dashboard.SEPARATOR}\nupdated at {at}\n", {})


def board(number: int, text: str, state: str = "open", **fields: object) -> Issue:
    values: dict[str, object] = {"labels": (LABEL,), "user": BOT, "body": body(text).text} | fields
    return Issue(number=number, state=state, **values)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def seed() -> Snapshot:
    return load_snapshot(ROOT / "config" / "snapshot.yaml").model


def seed_content(seed: Snapshot, settings: Settings, readback: LeaseReadback | None = None) -> Content:
    observed = Observed.model_validate_json((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    from bot.reconcile import gather

    readback = readback or gather.leases(ROOT / "config" / "leases.json")
    merged = derive_all(seed, evidence_for(readback, observed, settings.config, {}))
    return content(seed, merged, {}, [], readback, settings.config, NOW, (None, False), "o/r")


def test_off_it_plans_nothing_and_reports_nothing(settings: Settings) -> None:
    planned = dashboard.plan([], body("x"), config_on(settings, enabled=False))
    assert planned == dashboard.Planned([], None)


def test_none_found_it_opens_one_with_its_title_and_label(settings: Settings) -> None:
    planned = dashboard.plan([], body("x"), config_on(settings))
    (action,) = planned.actions
    assert action == CreateIssueAction(title=DashboardSettings().title, body=body("x").text, labels=(LABEL,))
    assert planned.report is not None
    assert (planned.report.status, planned.report.issue) == ("created", None)


def test_the_same_content_at_another_time_writes_nothing(settings: Settings) -> None:
    found = [board(9, "same")]
    planned = dashboard.plan(found, body("same", at="2026-08-28T00:00:00Z"), config_on(settings))
    assert planned.actions == []
    assert planned.report is not None
    assert (planned.report.status, planned.report.issue) == ("unchanged", 9)


def test_other_content_is_one_edit_of_the_open_dashboard(settings: Settings) -> None:
    planned = dashboard.plan([board(9, "before")], body("after"), config_on(settings))
    assert planned.actions == [EditIssueAction(issue=9, body=body("after").text)]
    assert planned.report is not None
    assert planned.report.status == "edited"


def test_a_hand_edit_of_the_content_is_put_back(settings: Settings) -> None:
    edited = board(9, "same").model_copy(update={"body": body("same").text.replace("same", "someone's words")})
    assert dashboard.plan([edited], body("same"), config_on(settings)).actions == [
        EditIssueAction(issue=9, body=body("same").text)
    ]


def test_a_closed_dashboard_is_left_alone_and_reported(settings: Settings) -> None:
    planned = dashboard.plan([board(9, "before", state="closed")], body("after"), config_on(settings))
    assert planned.actions == []
    assert planned.report is not None
    assert (planned.report.status, planned.report.issue) == ("closed", 9)


def test_of_two_open_dashboards_the_oldest_is_kept_and_the_other_named(settings: Settings) -> None:
    planned = dashboard.plan([board(9, "before"), board(12, "before")], body("after"), config_on(settings))
    assert planned.actions == [EditIssueAction(issue=9, body=body("after").text)]
    assert planned.report is not None
    assert planned.report.others == (12,)


def test_only_the_bots_own_labelled_issue_with_the_marker_first_is_its_dashboard() -> None:
    issues = (
        board(5, "x"),
        board(3, "x", labels=("PerfBot-Dashboard",)),  # GitHub's label names ignore case
        board(6, "x", user="mallory"),
        board(7, "x", labels=("other",)),
        board(8, "x", body="quoted:\n" + HEADER),  # the marker counts only in the header
        Issue(number=4, title="a packet issue"),
    )
    found = dashboard.dashboards(Observed(bot_login=BOT, issues=issues), LABEL)
    assert [issue.number for issue in found] == [3, 5]


def test_every_packet_is_in_the_one_section_of_its_merged_state(seed: Snapshot, settings: Settings) -> None:
    c = seed_content(seed, settings)
    sections = {"ready": "ready", "running": "running", "complete": "complete"}
    listed = [p.id for p in (*c.ready, *(r.packet for r in c.running), *c.complete)]
    listed += [p.id for g in c.waiting for p in g.packets]
    assert sorted(listed) == sorted(p.id for p in seed.work_packets)  # each packet once
    for group in c.waiting:
        for packet in group.packets:
            assert packet.state in WAITING_STATES
            assert c.section_of(packet.id) == "waiting"
    for packet in (*c.ready, *c.complete, *(r.packet for r in c.running)):
        assert c.section_of(packet.id) == sections[packet.state]


def test_a_blocker_is_named_once_for_every_packet_that_waits_on_it(seed: Snapshot, settings: Settings) -> None:
    c = seed_content(seed, settings)
    keys = [group.blockers for group in c.waiting]
    assert len(keys) == len(set(keys))
    m5 = next(g for g in c.waiting if [b.text for b in g.blockers] == ["mac.m5-exact-p32t64-receipt"])
    assert [p.id for p in m5.packets] == [
        "mac.m6-paged-hybrid-state",
        "mac.m8-chunked-prefill",
        "mac.m9-resident-cobatching",
    ]
    lease = next(g for g in c.waiting if g.blockers[0].kind == "lease")
    assert lease.blockers[0].lease is not None
    assert (lease.blockers[0].lease.lane, lease.blockers[0].lease.issue) == ("compute", 9420)


def test_no_graph_draws_more_than_twelve_packets(seed: Snapshot, renderer: Renderer) -> None:
    one_program = seed.model_copy(
        update={"work_packets": tuple(p.model_copy(update={"program_id": "mac-top10"}) for p in seed.work_packets)}
    )
    drawn = dashboard.graphs(one_program, [], renderer).draw()
    assert [(g.program, g.part, g.parts) for g in drawn] == [("mac-top10", 1, 2), ("mac-top10", 2, 2)]
    assert [len(NODE.findall(g.text)) for g in drawn] == [12, 5]
    big = dashboard.graphs(scaled(seed, 3), [], renderer).draw()
    assert max(len(NODE.findall(g.text)) for g in big) <= dashboard.GRAPH_NODES


def test_at_the_seed_everything_is_shown(seed: Snapshot, settings: Settings, renderer: Renderer) -> None:
    c = seed_content(seed, settings)
    drawn = dashboard.graphs(seed, [], renderer)
    made = dashboard.render(c, drawn, dashboard.Stamp("2026-08-27T18:00:00Z", 95), renderer, 65_536)
    assert made.omitted == {}
    assert made.text.index("### Ready now") < made.text.index("### Running") < made.text.index("### Waiting")
    assert made.text.count("```mermaid") == len(seed.programs)
    assert "Left out" not in made.text
    # The ready packets come first: the summary line, the heading, then each with its claim.
    lines = made.text.splitlines()
    assert lines[1].startswith("**2 ready** · 1 running · 14 waiting")
    assert [n for n, line in enumerate(lines) if "claim: `/perf claim " in line] == [5, 6]


def test_at_100x_the_seed_it_fits_and_says_what_it_left_out(
    seed: Snapshot, settings: Settings, renderer: Renderer
) -> None:
    from bot.reconcile import gather

    observed = Observed.model_validate_json((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    big, leases, big_observed = world(seed, 100, gather.leases(ROOT / "config" / "leases.json").live, observed)
    merged = derive_all(big, evidence_for(leases, big_observed, settings.config, {}))
    c = content(big, merged, {}, [], leases, settings.config, NOW, (None, False), "o/r")
    made = dashboard.render(c, dashboard.graphs(big, merged, renderer), None, renderer, 65_536)
    assert len(made.text) <= 65_536
    # Ready and running are shown whole; the waiting packets and the reviews give way, and the graphs.
    assert set(made.omitted) == {"waiting packets", "reviews", "dependency graphs"}
    assert made.omitted["dependency graphs"] == 400
    said = "Left out to fit GitHub's limit of 65,536 characters: " + ", ".join(
        f"{n} {what}" for what, n in made.omitted.items()
    )
    assert said + ". `perfbot status` and `perfbot graph` show everything." in made.text
    assert made.text.count("claim: `/perf claim ") == 200
    assert made.text.startswith(HEADER + "\n")
    assert made.text.rstrip().endswith(dashboard.SEPARATOR)
