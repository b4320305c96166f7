"""What perfbot prints and renders cannot be steered by outside text (issue #10, items 2, 9, 10, 11).

The Actions runner reads `::command::` at the start of a log line (after spaces) and the legacy
`##[command]` anywhere in one; the job summary wraps the plan in a code fence; the page is Markdown.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest

from bot.cli import main
from tests.support.harness import Repo, comments, pull

NOW = "2026-08-27T23:00:00Z"
HOLDER = "issue-1\n::error file=x::pwned\n```\n##[add-mask]secret"


def stale_lease_file(repo: Repo, holder: str = HOLDER) -> Path:
    lease = {
        "lane": "docs",
        "loop_ts": "t",
        "holder": holder,
        "tree": ["docs/**"],
        "acquired_at": "2020-01-01T00:00:00Z",
    }
    path = repo.root / "leases.json"
    path.write_text(json.dumps([lease]), encoding="utf-8")
    return path


def commands_of(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.lstrip().startswith("::") or "##[" in line]


def test_a_stale_lease_holder_cannot_write_workflow_commands_or_close_the_summary_fence(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = sandbox.root / "summary.md"
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--dry-run"]
    argv += ["--leases", str(stale_lease_file(sandbox)), "--now", NOW]
    assert main(argv, environ={"GITHUB_STEP_SUMMARY": str(summary)}) == 0
    out = capsys.readouterr().out
    stale = [line for line in out.split("\n") if line.startswith("  stale (still counted):")]
    assert len(stale) == 1
    assert "pwned" in stale[0]
    assert "add-mask" in stale[0]
    assert commands_of(out) == []
    text = summary.read_text(encoding="utf-8")
    assert commands_of(text) == []
    # The job summary is Markdown: outside text may appear only inside code spans.
    html = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "pwned" not in re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL)


def test_the_json_plan_is_log_safe_and_still_says_exactly_what_it_read(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path), "--dry-run", "--json"]
    assert main([*argv, "--leases", str(stale_lease_file(sandbox)), "--now", NOW]) == 0
    out = capsys.readouterr().out
    assert commands_of(out) == []
    plan = json.loads(out)
    subjects = [r["subject"] for p in plan["packets"] for r in p["reasons"]]
    assert any(HOLDER in subject for subject in subjects)  # the JSON value itself is unchanged


def test_an_error_about_a_hostile_key_is_one_line_per_problem(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.state_path.write_text('{"permissions": {"x\\n::error::pwned ##[error]y": "owner"}}', encoding="utf-8")
    argv = ["reconcile", "--config", str(sandbox.config), "--offline", str(sandbox.state_path)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert commands_of(err) == []
    assert main(argv, environ={"GITHUB_ACTIONS": "true"}) == 1
    lines = capsys.readouterr().out.strip().split("\n")
    assert len(lines) == 1  # the annotation perfbot writes, with the key escaped inside it
    assert lines[0].startswith("::error file=")
    assert "permissions.x ::error::pwned ##\u200b[error]y: Input should be" in lines[0]


def test_render_output_is_log_safe(sandbox: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """The page is printed to the job log by `render` and `render --check`; validation keeps
    workflow commands out of the snapshot, and the printer breaks any that reach it anyway."""
    from bot.untrusted import log_safe

    assert commands_of(log_safe("::error::x\n  ::warning::y\rz ##[error]w\n")) == []
    assert log_safe("plain\ntext\n") == "plain\ntext\n"
    assert main(["render", "--config", str(sandbox.config)]) == 0
    assert capsys.readouterr().out == sandbox.page_path.read_text(encoding="utf-8")


@pytest.fixture
def admins(sandbox: Repo) -> Repo:
    sandbox.edit_state(permissions={"root": "admin"})
    return sandbox


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("/perf block cuda.cache-weight-residency waiting for \u202eevil", "bidirectional control character"),
        ("/perf block cuda.cache-weight-residency waiting for \u2066x\u2069", "bidirectional control character"),
        (
            "/perf complete mac.m1-streamed-q4k-no-copy result: accepted\\ receipt: #9482",
            "trailing backslash would escape the markup",
        ),
        ("/perf block cuda.cache-weight-residency ##[error]x", "would be read as a GitHub Actions command"),
    ],
    ids=["rtl-override", "isolate", "trailing-backslash", "workflow-command"],
)
def test_text_the_page_cannot_show_faithfully_is_refused_with_a_reply(
    admins: Repo, capsys: pytest.CaptureFixture[str], body: str, why: str
) -> None:
    admins.add_comment(101, 9420, "root", body)
    plan = admins.reconcile(capsys, "--now", NOW, dry_run=True)
    assert [(c["comment_id"], c["decision"]) for c in plan["commands"]] == [(101, "refused")]
    assert why in plan["commands"][0]["reason"]
    (reply,) = comments(plan)
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", reply["body"])
    assert "##[" not in reply["body"]
    assert pull(plan)["operation"] == "none"


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("    lane: metal\n", "    lane: metal\u202e\n", "bidirectional control character"),
        ("    lane: metal\n", "    lane: 'metal\\'\n", "trailing backslash"),
        ("    lane: metal\n", '    lane: "metal\\x0b"\n', "control character or line separator"),
        ("    lane: metal\n", '    lane: "metal\\u2028x"\n', "control character or line separator"),
        ("    lane: metal\n", "    lane: '::error::x'\n", "would be read as a GitHub Actions command"),
        (
            "definition: An active constraint",
            "definition: An active##[error]x constraint",
            "would be read as a GitHub Actions command",
        ),
        (
            "    lane: metal\n",
            "    <<: {blocked_by_condition: hidden}\n    lane: metal\n",
            "merge keys (<<) are not allowed",
        ),
    ],
    ids=[
        "rtl-override",
        "trailing-backslash",
        "vertical-tab",
        "line-separator",
        "workflow-command",
        "legacy-command",
        "merge-key",
    ],
)
def test_a_hand_edited_snapshot_with_such_text_is_invalid(
    sandbox: Repo, capsys: pytest.CaptureFixture[str], old: str, new: str, why: str
) -> None:
    sandbox.edit_snapshot(old, new)
    assert main(["validate", "--config", str(sandbox.config)]) == 1
    err = capsys.readouterr().err
    assert why in err
    assert re.search(r"snapshot\.yaml:\d+:\d+: ", err)


def test_an_even_run_of_trailing_backslashes_is_an_escaped_backslash_and_fine(
    sandbox: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.edit_snapshot("    lane: metal\n", "    lane: 'metal\\\\'\n")
    assert main(["validate", "--config", str(sandbox.config)]) == 0
    capsys.readouterr()


def reply_bodies(plan: dict[str, Any]) -> str:
    return "\n".join(c["body"] for c in comments(plan))
