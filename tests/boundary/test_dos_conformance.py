"""Conformance with the real lease producer: perfbot's live set equals `dos lease-lane live`, and its
overlap rule is `dos._tree.lane_trees_disjoint` negated."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from dos._tree import lane_trees_disjoint
from dos.cli import main as dos_main
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.evidence.leases import parse_leases
from bot.evidence.overlap import overlaps
from tests.support.harness import Repo
from tests.support.property_budget import examples

DOS_TOML = """\
[lanes]
concurrent = ["model", "compute"]
autopick = ["model", "compute"]

[lanes.trees]
model = ["internal/model/**"]
compute = ["internal/compute/**"]
"""


class Workspace:
    """A dos workspace, driven through dos's own command line (`dos.cli.main`, what the `dos`
    script runs), in this process: a `dos` process costs half a second to start, and what is under
    test is what dos writes and prints, not how it starts."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys
        (root / "dos.toml").write_text(DOS_TOML, encoding="utf-8")
        for name in list(os.environ):
            if name.startswith(("DISPATCH_", "JOB_", "CID_")):
                monkeypatch.delenv(name)
        monkeypatch.setenv("DISPATCH_HOST_ID", "test-host")

    def dos(self, *args: str) -> Any:
        self.capsys.readouterr()
        status = dos_main(["--workspace", str(self.root), "lease-lane", *args])
        printed = self.capsys.readouterr()
        assert status == 0, printed.out + printed.err
        return json.loads(printed.out)

    @property
    def journal(self) -> Path:
        return self.root / ".dos" / "lane-journal.jsonl"

    def assert_conforms(self) -> list[dict[str, Any]]:
        """Our fold of the journal, and our reading of the printed array, equal what dos prints."""
        printed: list[dict[str, Any]] = self.dos("live")
        ours = parse_leases(self.journal.read_text(encoding="utf-8"), str(self.journal))
        assert [(x.lane, x.loop_ts, x.holder, x.tree, x.heartbeat_at) for x in ours.live] == [
            (p["lane"], p["loop_ts"], p["holder"], tuple(p["tree"]), p.get("heartbeat_at")) for p in printed
        ]
        array = parse_leases(json.dumps(printed), "live.json")
        assert array.live == ours.live
        return printed


def test_perfbot_reads_what_dos_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = Workspace(tmp_path, monkeypatch, capsys)
    got = ws.dos("acquire", "--lane", "model", "--owner", "issue-9420-cache-weight-residency")
    assert (got["outcome"], got["lane"]) == ("acquire", "model")
    assert [p["lane"] for p in ws.assert_conforms()] == ["model"]
    got = ws.dos("acquire", "--lane", "compute", "--owner", "issue-9420-cache-weight-residency")
    assert got["lane"] == "compute"
    ws.dos("heartbeat", "--lane", "model", "--owner", "issue-9420-cache-weight-residency")
    printed = ws.assert_conforms()
    assert [p["tree"] for p in printed] == [["internal/model/**"], ["internal/compute/**"]]
    assert "heartbeat_at" in printed[0]
    ws.dos("release", "--lane", "model", "--owner", "issue-9420-cache-weight-residency")
    assert [p["lane"] for p in ws.assert_conforms()] == ["compute"]
    ws.dos("release", "--lane", "compute", "--owner", "issue-9420-cache-weight-residency")
    assert ws.assert_conforms() == []
    released = parse_leases(ws.journal.read_text(encoding="utf-8"), "j").released
    assert [x.lane for x in released] == ["model", "compute"]


# Globs as people write them: separators both ways, case, spaces, every glob metacharacter.
PIECES = ["a", "b", "A", "/", "\\", "*", "**", "?", "[", "]", "[ab]", ".", " ", "_"]
GLOBS = st.lists(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
    | st.sampled_from(["docs/_witnesse?/**", "docs/_witnesses/**", "src/[ab]/x", "src/a/x", "src/b/", "**/*", ""]),
    max_size=4,
)


@settings(max_examples=examples(1000), deadline=None)
@given(GLOBS, GLOBS)
def test_overlap_is_the_negation_of_dos_lane_trees_disjoint(a: list[str], b: list[str]) -> None:
    assert overlaps(a, b) is (not lane_trees_disjoint(list(a), list(b)))


@pytest.mark.parametrize(
    ("lease_glob", "packet_glob"),
    [
        ("docs/_witnesse?/**", "docs/_witnesses/**"),
        ("src/[ab]/x", "src/a/x"),
        ("Docs\\_Witnesses\\**", "docs/_witnesses/**"),
    ],
)
def test_the_cases_where_cutting_only_at_star_disagreed_with_dos(lease_glob: str, packet_glob: str) -> None:
    assert not lane_trees_disjoint([lease_glob], [packet_glob])
    assert overlaps([lease_glob], [packet_glob])


def test_a_lease_on_a_question_mark_glob_holds_the_packet_it_covers(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mac.m1-streamed-q4k-no-copy` writes `docs/_witnesses/**`; dos counts `docs/_witnesse?/**` as the same tree."""
    leases = sandbox.root / "leases.json"
    lease = {"lane": "docs", "loop_ts": "t", "holder": "issue-1", "tree": ["docs/_witnesse?/**"]}
    leases.write_text(json.dumps([lease]), encoding="utf-8")
    plan = sandbox.reconcile(capsys, "--leases", str(leases), "--now", "2026-08-27T16:30:00Z", dry_run=True)
    m1 = next(p for p in plan["packets"] if p["id"] == "mac.m1-streamed-q4k-no-copy")
    assert m1["derived_state"] == "waiting-coordination"
    assert any(r["kind"] == "lease-overlap" and "docs/_witnesse?/**" in r["subject"] for r in m1["reasons"])
