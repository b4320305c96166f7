"""The job summary, the step outputs and the plan JSON file a reconcile leaves for the workflow."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from bot.cli import main
from tests.support.harness import Repo
from tests.support.one_state import walk_after_run

LATE_DAY = "2026-09-15T12:00:00Z"  # every seed constraint is past its review date
# Text from outside perfbot that tries every trick a sink could fall for.
HOSTILE = "x|y `z` <img src=q> @everyone **bold** [l](http://e.x) ::error::pwned"


class _Reading(HTMLParser):
    """Text outside code spans, and each table's rows as cmark-gfm placed them in the source."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outside: list[str] = []
        self.code_depth = 0
        self.tables: list[list[tuple[str, list[str]]]] = []  # per row: its span, its cells' spans

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        span = dict(attrs).get("data-sourcepos") or ""
        if tag == "code":
            self.code_depth += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append((span, []))
        elif tag in ("td", "th"):
            self.tables[-1][-1][1].append(span)

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self.code_depth -= 1

    def handle_data(self, data: str) -> None:
        if self.code_depth == 0:
            self.outside.append(data)


def read(markdown: str) -> _Reading:
    reading = _Reading()
    options = Options.CMARK_OPT_SOURCEPOS | Options.CMARK_OPT_UNSAFE
    reading.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=options))
    return reading


def _end_column(span: str) -> int:
    return int(span.rsplit(":", 1)[1])


def assert_tables_whole(reading: _Reading) -> int:
    """Each row has the header's cell count, no padded cell (column 0) and no cut-off cell after
    its last one (the last cell ends just before the row's closing pipe)."""
    for rows in reading.tables:
        header = len(rows[0][1])
        for row_span, cells in rows:
            assert len(cells) == header
            assert all(not re.fullmatch(r"\d+:0-\d+:0", c) for c in cells), row_span
            assert _end_column(cells[-1]) + 1 == _end_column(row_span), row_span
    return len(reading.tables)


def summarise(sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """Run reconcile on the sandbox with GITHUB_STEP_SUMMARY set; the summary it wrote."""
    summary, plan = tmp_path / "summary.md", tmp_path / "plan.json"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), *args]
    assert main([*argv, "--plan-json", str(plan)]) == 0
    if "--dry-run" not in args:  # one state, one rule (tests/support/one_state.py)
        walk_after_run(sandbox, args, json.loads(plan.read_text(encoding="utf-8")))
    text = summary.read_text(encoding="utf-8")
    summary.unlink()
    return text


def test_the_seed_run_summary_is_valid_gfm(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = summarise(sandbox, tmp_path, monkeypatch, "--now", LATE_DAY)
    capsys.readouterr()
    reading = read(text)
    assert assert_tables_whole(reading) == 2  # actions, overdue reviews
    outside = "".join(reading.outside)
    for name in ("active-native-lane-collision", "issue-9420-cache-weight-residency", "config/leases.json"):
        assert name in text
        assert name not in outside  # only inside code spans
    assert "| comment `review-overdue` | #9495 | done |" in text
    assert "8 done; 0 deferred to the next run (write budget)." in text
    assert "| `metal-resident-decode` | `2026-08-27` | #8324 |" in text
    assert "None recorded (offline run)." in text
    assert "```" not in text  # no longer a dump of the printed plan


def hostile_inputs(sandbox: Repo) -> Path:
    """A lease held for another issue on M1's paths, a claim, and an event whose sender is full of tricks."""
    leases = json.loads((sandbox.root / "config" / "leases.json").read_text(encoding="utf-8"))
    leases.append({**leases[0], "lane": "docs", "holder": f"issue-1-{HOSTILE}", "tree": ["docs/_witnesses/**"]})
    (sandbox.root / "config" / "leases.json").write_text(json.dumps(leases), encoding="utf-8")
    login = "mallory-1"
    sandbox.edit_state(permissions={login: "write"})
    sandbox.add_comment(900, 8325, login, "/perf claim mac.m1-streamed-q4k-no-copy")
    event = sandbox.root / "event.json"
    event.write_text(
        json.dumps(
            {"action": "created", "issue": {"number": 8325}, "comment": {"id": 900, "user": {"login": HOSTILE}}}
        ),
        encoding="utf-8",
    )
    return event


def test_text_from_outside_stays_in_code_spans(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    event = hostile_inputs(sandbox)
    args = ("--now", "2026-08-27T12:00:00Z", "--event-name", "issue_comment", "--event-path", str(event))
    text = summarise(sandbox, tmp_path, monkeypatch, *args)
    printed = capsys.readouterr().out
    reading = read(text)
    assert assert_tables_whole(reading) == 3  # commands, packets whose state changes, actions
    assert "| `mac.m1-streamed-q4k-no-copy` | #8325 | `ready` | `waiting-coordination` |" in text
    # The commands, each with its comment's link; reactions counted in one row; times to the second.
    assert "/issues/8325#issuecomment-" in text
    assert "| react " not in text
    assert re.search(r"^\| \d+ reactions? \(", text, re.M)
    assert "Run at `2026-08-27T12:00:00Z`" in text
    outside = "".join(reading.outside)
    for trick in ("<img", "@everyone", "**bold**", "::error", "pwned", "issue-1-", "mallory-1"):
        assert trick not in outside
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    for tag in ("<img", 'href="http://e.x"', "<strong>"):
        assert tag not in html
    assert "| assign `mallory-1` | #8325 | done |" in text
    assert "by ``x|y `z` <img src=q> @\u200beveryone **bold** [l](http://e.x) ::error::pwned``." in text
    # The printed plan carries the holder too; no line of it can start a workflow command.
    assert "pwned" in printed
    assert not any(line.lstrip().startswith("::") for line in re.split(r"[\r\n]", printed))


def test_step_outputs_and_the_plan_file(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_inputs(sandbox)
    outputs, plan_json = tmp_path / "outputs", tmp_path / "plan.json"
    argv = ["--now", "2026-08-27T12:00:00Z", "--json", "--plan-json", str(plan_json), "--outputs", str(outputs)]
    text = summarise(sandbox, tmp_path, monkeypatch, *argv)
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(plan_json.read_text(encoding="utf-8")) == printed
    created = [p for p in sandbox.state()["pulls"] if p["state"] == "open"]
    assert len(created) == 1
    number = created[0]["number"]
    assert re.fullmatch(r"[0-9a-f]{40}", created[0]["head_sha"])
    assert outputs.read_text(encoding="utf-8").splitlines() == [
        f"pull-request-number={number}",
        "pull-request-operation=created",
        f"pull-request-url=https://github.com/anthony-chaudhary/fak/pull/{number}",
        "pull-request-branch=perfbot/update",
        f"pull-request-head-sha={created[0]['head_sha']}",
        "comments-written=0",  # the claim was accepted: 🚀 alone, no reply
        "nudged-issues=[]",
        f"plan-json={plan_json}",
    ]
    link = f"[#{created[0]['number']}](https://github.com/anthony-chaudhary/fak/pull/{created[0]['number']})"
    assert f"`create` {link} from `perfbot/update`: 2 files." in text

    # The next run has nothing left to do, and says which PR stands.
    outputs.unlink()
    summarise(sandbox, tmp_path, monkeypatch, *argv)
    capsys.readouterr()
    assert outputs.read_text(encoding="utf-8").splitlines()[:7] == [
        f"pull-request-number={number}",
        "pull-request-operation=none",
        f"pull-request-url=https://github.com/anthony-chaudhary/fak/pull/{number}",
        "pull-request-branch=perfbot/update",
        "pull-request-head-sha=",  # this run committed nothing
        "comments-written=0",
        "nudged-issues=[]",
    ]


def test_a_dry_run_writes_nothing_and_says_so(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_inputs(sandbox)
    outputs = tmp_path / "outputs"
    text = summarise(
        sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T12:00:00Z", "--dry-run", "--outputs", str(outputs)
    )
    capsys.readouterr()
    assert text.startswith("## perfbot plan (dry run: nothing written)\n")
    assert "| planned |" in text
    assert "| done |" not in text
    assert outputs.read_text(encoding="utf-8").splitlines()[:7] == [
        "pull-request-number=",
        "pull-request-operation=none",
        "pull-request-url=",
        "pull-request-branch=",
        "pull-request-head-sha=",
        "comments-written=0",
        "nudged-issues=[]",
    ]
    assert sandbox.state().get("pulls", []) == []


def test_the_readback_age(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-29T18:30:00Z", "--dry-run")
    capsys.readouterr()
    assert "its newest lease activity is `2026-08-27T16:24:05+00:00`, 2 d 2 h before this run" in text


def test_a_published_readback_shows_its_own_time_and_a_stale_one_warns(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_inputs(sandbox)  # a holder full of tricks, published like any other
    publish = ["publish-leases", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    source = str(sandbox.root / "config" / "leases.json")
    assert main([*publish, "--from", source, "--now", "2026-08-27T17:00:00Z"]) == 0
    args = ("--leases", "perfbot/leases:leases.json", "--dry-run")
    fresh = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T18:59:00Z", *args)
    stale = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T19:01:00Z", *args)
    capsys.readouterr()
    assert "- Age: read back at `2026-08-27T17:00:00Z`, 1 h 59 min before this run.\n" in fresh
    assert "Warning" not in fresh
    assert "newest lease activity" not in fresh  # the readback's own time, not a guess from its leases
    warning = (
        "- **Warning: a stale readback.** It is older than 2 h 0 min (`leases_rules.readback_max_age_minutes`): "
        "the host that runs dos has not published one since. Its leases still count.\n"
    )
    assert warning in stale
    reading = read(stale)
    assert_tables_whole(reading)
    outside = "".join(reading.outside)
    for trick in ("<img", "@everyone", "**bold**", "::error", "pwned", "issue-1-", "perfbot/leases:leases.json"):
        assert trick not in outside
    assert "<strong>Warning: a stale readback.</strong>" in cmarkgfm.github_flavored_markdown_to_html(stale)


def test_the_summary_tells_the_runs_story_on_either_adapter(
    either: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #25, build item 5: the commands, the packets whose state changed and why, what is
    pending in the PR (named and linked on both adapters) and every change the PR makes."""
    m1 = "mac.m1-streamed-q4k-no-copy"
    either.edit_state(permissions={"alice": "write"})
    either.add_comment(102, 8325, "alice", f"/perf complete {m1} result: accepted. receipt: #9482")
    either.add_comment(105, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04")
    released = tmp_path / "released.json"
    released.write_text("[]\n", encoding="utf-8")  # #9420 holds nothing any more
    summary = tmp_path / "summary.md"
    environ = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_SERVER_URL": "https://github.com"}
    either.reconcile(capsys, "--now", "2026-08-27T18:00:00Z", "--leases", str(released), environ=environ)
    text = summary.read_text(encoding="utf-8")
    reading = read(text)
    assert assert_tables_whole(reading) >= 3  # commands, packets, actions
    (number,) = [p["number"] for p in either.state()["pulls"] if p["state"] == "open"]
    link = f"[#{number}](https://github.com/anthony-chaudhary/fak/pull/{number})"
    # The merged state moved where the evidence moved it: the labels show it now.
    gate = "| `cuda.q8_1-numerical-gate` | #8635 | `waiting-coordination` | `ready` | "
    assert gate in text
    assert "blocker `cuda.cache-weight-residency` no longer holds an overlapping lease" in text
    # The completion waits for the PR, which is named and linked.
    assert f"Pending in {link}: each becomes its new state when the PR merges." in text
    assert f"- `{m1}` becomes `complete`\n- `mac.m2-whole-sequence-prefill` becomes `ready`\n" in text
    # What the PR changes, from the two snapshots: the command's and the evidence's.
    story = text[text.index("### What the PR changes") : text.index("### Actions")]
    assert f"- packet `{m1}` (#8325)\n  - state `ready` → `complete`: by a command (see Commands)\n" in story
    assert f"  - satisfied dependency: `{m1}` (complete, moved from the hard dependencies)" in story
    assert "  - review by `2026-08-27` → `2026-09-04`" in story
    assert "  - blocker cleared: `cuda.cache-weight-residency`" in story
    assert f"`create` {link} from `perfbot/update`" in text or f"`update` {link} from `perfbot/update`" in text
    assert "Every packet's state is the one the default branch records" not in text


def test_a_quiet_run_says_nothing_changes(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T17:00:00Z")
    capsys.readouterr()
    assert "Every packet's state is the one the default branch records (17 packets)." in text
    assert "### What the PR changes\n\nNothing: the default branch's snapshot is the one this run decided.\n" in text
    assert "Pending in" not in text


def test_the_commands_listed_are_the_ones_this_run_decided(
    sandbox: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #45: a run lists the commands it decided, not every earlier one still waiting in the PR."""
    m1 = "mac.m1-streamed-q4k-no-copy"
    sandbox.edit_state(permissions={"alice": "write"})
    sandbox.add_comment(102, 8325, "alice", f"/perf complete {m1} result: accepted. receipt: #9482")
    first = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T17:00:00Z")
    commands = first[first.index("### Commands") : first.index("### Packets")]
    assert f"/perf complete {m1}" in commands
    assert "carried as" not in commands
    sandbox.add_comment(103, 8324, "alice", "/perf review metal-resident-decode by 2026-09-04")
    second = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T17:05:00Z")
    commands = second[second.index("### Commands") : second.index("### Packets")]
    assert "/perf review metal-resident-decode" in commands
    assert f"/perf complete {m1}" not in commands
    assert "1 command decided by earlier runs is carried as it was (the plan JSON's `commands` lists it)." in commands
    third = summarise(sandbox, tmp_path, monkeypatch, "--now", "2026-08-27T17:10:00Z")
    commands = third[third.index("### Commands") : third.index("### Packets")]
    capsys.readouterr()
    assert "No command was decided or acted on by this run." in commands
    assert "2 commands decided by earlier runs are carried as they were" in commands
