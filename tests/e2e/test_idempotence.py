"""Idempotence: applying a plan and planning again yields no comment and no PR change."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import Settings
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.offline import OfflineGitHub, parse_state
from bot.reconcile import executor, gather
from bot.reconcile.decide import decide
from bot.reconcile.inputs import Inputs
from bot.render import Renderer
from bot.snapshot import store, store_save
from bot.snapshot.model import Snapshot
from tests.support.paths import ROOT
from tests.support.property_budget import examples

OPEN_STATES = ["running", "ready", "waiting-dependency", "waiting-coordination", "waiting-evidence", "capacity-hold"]
PEOPLE = ["alice", "bob"]


def state_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    return data


@st.composite
def worlds(draw: st.DrawFn, seed: Snapshot) -> tuple[Snapshot, tuple[Lease, ...], dict[str, Any], dt.datetime]:
    packets = []
    for p in seed.work_packets:
        if draw(st.booleans()) and draw(st.booleans()):
            packets.append(p.model_copy(update={"state": "complete", "result": "accepted"}))
        else:
            packets.append(p.model_copy(update={"state": draw(st.sampled_from(OPEN_STATES))}))
    snapshot = seed.model_copy(update={"work_packets": tuple(packets)})
    issues = sorted({p.issue for p in seed.work_packets})
    trees = sorted({path for p in seed.work_packets for path in p.paths})
    leases = tuple(
        Lease(
            lane=f"lane{i}",
            loop_ts="t",
            holder=f"issue-{draw(st.sampled_from(issues))}",
            tree=(draw(st.sampled_from(trees)),),
        )
        for i in range(draw(st.integers(0, 4)))
    )
    state = state_file()
    for issue in state["issues"]:
        issue["assignees"] = draw(st.lists(st.sampled_from(PEOPLE), unique=True, max_size=2))
        issue["state"] = draw(st.sampled_from(["open", "open", "closed"]))
        issue["state_reason"] = draw(st.sampled_from([None, "reopened"]))
    now = dt.datetime(2026, 8, 25, tzinfo=dt.UTC) + dt.timedelta(days=draw(st.integers(0, 20)))
    state["permissions"] = {"alice": "write", "root": "admin", "mallory": "read"}
    packet_ids = [p.id for p in seed.work_packets]
    constraint_ids = [c.id for c in seed.constraints]
    templates = [
        "/perf complete {p} result: accepted receipt: #9999",
        "/perf state {p} capacity-hold reason: no node",
        "/perf block {p} waiting for a window",
        "/perf unblock {p}",
        "/perf claim {p}",
        "/perf unclaim {p}",
        "/perf review {c}",
        "/perf evidence {c} issue seen again (#1)",
        "/perf exit {c} met: #2",
        "/perf help",
        "/perf drop all",
        "/perf nonsense",
    ]
    comments = []
    for n in range(draw(st.integers(0, 4))):
        lines = [
            draw(st.sampled_from(templates)).format(
                p=draw(st.sampled_from(packet_ids)), c=draw(st.sampled_from(constraint_ids))
            )
            for _ in range(draw(st.integers(1, 2)))
        ]
        comments.append(
            {
                "id": 1000 + n,
                "issue": draw(st.sampled_from(issues)),
                "user": draw(st.sampled_from(["alice", "root", "mallory"])),
                "created_at": (now - dt.timedelta(hours=5 - n)).isoformat(),
                "body": "\n".join(lines),
            }
        )
    state["comments"] = comments
    return snapshot, leases, state, now


def test_applied_plan_is_a_fixed_point(settings: Settings, renderer: Renderer) -> None:
    loaded = gather.snapshot(settings)
    seed = loaded.model
    committed = gather.committed_files(settings)
    seen: list[tuple[int, str]] = []

    @settings_for_property
    @given(worlds(seed))
    def check(world: tuple[Snapshot, tuple[Lease, ...], dict[str, Any], dt.datetime]) -> None:
        snapshot, leases, raw, now = world
        # The world's snapshot as a file holds it (the seed's text with the drawn states written in),
        # loaded as a run loads it.
        source = store.parse_model(store_save.save_text(loaded, snapshot), loaded.file, Snapshot)

        def plan_for(github: OfflineGitHub) -> Any:
            return decide(
                Inputs(
                    snapshot=source,
                    snapshot_path=settings.config.snapshot,
                    page_path=settings.config.page,
                    committed=committed,
                    readback=LeaseReadback("leases.json", "live-array", leases),
                    observed=github.observed,
                    config=settings.config,
                    renderer=renderer,
                    now=now,
                )
            )

        github = OfflineGitHub(raw, parse_state(json.dumps(raw), "state")[1], now)
        first = plan_for(github)
        seen.append((len(first.comments()), first.pull_request().operation))
        executor.apply(first, github, budget=1000)
        again = OfflineGitHub(github.raw, parse_state(github.text(), "state")[1], now)
        second = plan_for(again)
        assert second.comments() == []
        assert second.pull_request().operation == "none"
        assert [a for a in second.actions if a.kind != "pull_request"] == []

    check()
    # The property is only worth something if first runs really comment and open PRs.
    assert sum(1 for n, _ in seen if n) > len(seen) // 2
    assert {op for _, op in seen} >= {"create"}


settings_for_property = settings(
    max_examples=examples(40, bounded=8), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
