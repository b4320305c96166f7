"""`perfbot init`: a repository fitted to the one it runs in (its default branch, the schemas its
`$schema` lines name, neutral words), written all or nothing and only inside `--dir`; then the
new repository validates, renders, checks its schemas, reconciles against the GitHub double, and
its workflow passes actionlint and zizmor."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from bot.adopt import place
from bot.adopt.scaffold import UNSET_ACTION, push_filter, scaffold
from bot.cli import main
from bot.config import SHIPPED_TEMPLATES
from bot.errors import OutputError
from bot.files import write_atomic
from tests.boundary.test_workflows import PINNED, started_jobs
from tests.support.backends import NOW, cli_over, double_on, live_environ
from tests.support.paths import ROOT

ACTION = "example/perfbot@3d3c42e5aac5ba805825da76410c181273ba90b1"
# A repository without dos (no `.dos/`, no lease file) reads its open pull requests as leases.
FILES = [
    "config/perfbot.yaml",
    "config/snapshot.yaml",
    ".github/workflows/perfbot.yml",
    "docs/current-constraints.md",
    "schema/snapshot.schema.json",
    "schema/config.schema.json",
]
TOOLS = Path(sys.executable).parent


def git(repo: Path, *args: str) -> str:
    environment = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com"}
    environment |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"}
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=environment)
    return done.stdout.strip()


def new_repo(tmp_path: Path, branch: str, *, commit: bool) -> Path:
    repo = tmp_path / "adopter"
    repo.mkdir()
    git(repo, "init", "-q", "-b", branch)
    if commit:
        (repo / "README.md").write_text("adopter\n", encoding="utf-8")
        git(repo, "add", "README.md")
        git(repo, "commit", "-q", "-m", "first")
    return repo


@pytest.fixture
def empty_repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, "main", commit=False)


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".git" not in p.relative_to(root).parts)


def push_branches(repo: Path) -> list[str]:
    workflow = YAML(typ="safe").load((repo / ".github" / "workflows" / "perfbot.yml").read_text(encoding="utf-8"))
    branches: list[str] = workflow["on"]["push"]["branches"]
    return branches


def lint_tool(name: str) -> str:
    """actionlint and zizmor come with the lint extra; a clone without it skips, CI fails."""
    found = shutil.which(name, path=str(TOOLS)) or shutil.which(name)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is missing: .ci/run installs it with the lint extra")
        pytest.skip(f"{name} is missing: pip install -e '.[lint]'")
    return found


def reconcile_on_the_double(
    repo: Path, capsys: pytest.CaptureFixture[str], pulls: list[dict[str, object]] | None = None, now: str = ""
) -> dict[str, Any]:
    state = repo.parent / "state.json"
    issue = {"number": 1, "title": "First measurement", "state": "open"}
    world = {"repository": "example/adopter", "issues": [issue], "pulls": pulls or []}
    state.write_text(json.dumps(world), encoding="utf-8")
    double = double_on(state, repo)
    with cli_over(double):
        status = main(
            ["reconcile", "--config", str(repo / "config" / "perfbot.yaml"), "--json", "--now", now or NOW.isoformat()],
            environ=live_environ("example/adopter"),
        )
    out = capsys.readouterr().out
    assert status == 0, out
    plan: dict[str, Any] = json.loads(out)
    return plan


@pytest.mark.parametrize(
    ("branch", "commit"), [("main", True), ("trunk", True), ("pilot", False)], ids=["main", "trunk", "no-commits"]
)
def test_init_fits_the_repository_and_everything_passes_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], branch: str, commit: bool
) -> None:
    repo = new_repo(tmp_path, branch, commit=commit)
    assert main(["init", "--dir", str(repo), "--action", ACTION]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        *(f"wrote {repo / f}" for f in FILES),
        "leases: open pull requests (no .dos/ and no config/leases.json: `--leases-from file` reads dos's lease file)",
        f"the workflow's push trigger is on {branch} (the default branch, from git)",
    ]
    assert push_branches(repo) == [branch]
    config = str(repo / "config" / "perfbot.yaml")
    for command in (["validate"], ["render", "--check"], ["schema", "--check"]):
        assert main([*command, "--config", config]) == 0, command
    capsys.readouterr()
    plan = reconcile_on_the_double(repo, capsys)
    assert [p["id"] for p in plan["packets"]] == ["example.first-measurement"]
    workflow = str(repo / ".github" / "workflows" / "perfbot.yml")
    linted = subprocess.run([lint_tool("actionlint"), workflow], capture_output=True, text=True, check=False)
    assert (linted.returncode, linted.stdout) == (0, ""), linted.stdout
    audit = [lint_tool("zizmor"), "--offline", "--min-severity", "low", "--format", "plain", str(repo / ".github")]
    audited = subprocess.run(audit, capture_output=True, text=True, check=False)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert "No findings to report" in audited.stdout


def test_the_review_nudge_of_what_init_writes_reaches_an_issue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #45: `init` writes where each constraint's review nudge goes, so the example
    constraint, once past `review_by`, is nudged on its issue and nothing is listed as unrouted."""
    repo = new_repo(tmp_path, "main", commit=True)
    assert main(["init", "--dir", str(repo), "--action", ACTION]) == 0
    capsys.readouterr()
    snapshot = (repo / "config" / "snapshot.yaml").read_text(encoding="utf-8")
    assert "    review_issue: 1\n" in snapshot
    late = (dt.datetime.now(dt.UTC) + dt.timedelta(days=60)).isoformat()
    plan = reconcile_on_the_double(repo, capsys, now=late)
    assert "unrouted_reviews" not in plan
    assert [(o["constraint"], o["issue"]) for o in plan["overdue"]] == [("example-startup-latency", 1)]
    nudges = [a for a in plan["actions"] if a["kind"] == "comment" and a["topic"] == "review-overdue"]
    assert [a["issue"] for a in nudges] == [1]


def pull(number: int, user: str, paths: list[str], body: str = "") -> dict[str, object]:
    """A person's open PR on the double (its branch made from `paths` alone: a fork's, say)."""
    return {"number": number, "head": f"{user}/x", "title": "x", "body": body, "state": "open", "user": user} | {
        "paths": paths,
        "pushed_at": "2026-08-27T20:00:00Z",
    }


def test_a_new_repository_without_dos_shows_running_and_collisions_from_prs_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = new_repo(tmp_path, "main", commit=True)
    assert main(["init", "--dir", str(repo), "--action", ACTION]) == 0
    capsys.readouterr()
    assert not (repo / "config" / "leases.json").exists()
    packet_id = "example.first-measurement"  # issue 1, paths docs/**
    # The team replaces the example with its work: here, the example packet may start now.
    snapshot = repo / "config" / "snapshot.yaml"
    text = snapshot.read_text(encoding="utf-8")
    assert text.count("    state: waiting-evidence\n    owner: unassigned\n") == 1
    snapshot.write_text(text.replace("    state: waiting-evidence\n    owner:", "    state: ready\n    owner:"))
    config = str(repo / "config" / "perfbot.yaml")
    for command in (["validate"], ["render", "--write"], ["schema", "--check"]):
        assert main([*command, "--config", config]) == 0, command
    capsys.readouterr()

    plan = reconcile_on_the_double(repo, capsys, [pull(7, "alice", ["docs/guide.md"])])
    (waiting,) = plan["packets"]
    assert (waiting["id"], waiting["derived_state"]) == (packet_id, "waiting-coordination")
    assert [(r["kind"], r["subject"], r["detail"]) for r in waiting["reasons"]] == [
        ("pull-overlap", "PR #7 by alice", "docs/guide.md")
    ]
    assert (plan["leases"]["file"], plan["leases"]["format"], plan["leases"]["live"]) == (
        "open pull requests",
        "pull-requests",
        1,
    )

    # A PR that changes only perfbot's own page claims nothing; one that closes the issue runs it.
    pulls = [pull(8, "carol", ["docs/current-constraints.md"]), pull(9, "bob", ["docs/x.md"], body="Closes #1")]
    plan = reconcile_on_the_double(repo, capsys, pulls)
    (running,) = plan["packets"]
    assert (running["derived_state"], running["derived_owner"]) == ("running", "bob / PR #9")
    assert [r["kind"] for r in running["reasons"]] == ["pull-closes"]


def test_a_repository_with_dos_reads_its_lease_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = new_repo(tmp_path, "main", commit=True)
    (repo / ".dos").mkdir()
    assert main(["init", "--dir", str(repo), "--action", ACTION]) == 0
    assert "leases: config/leases.json, as dos writes it" in capsys.readouterr().out
    assert "\nleases: config/leases.json\n" in (repo / "config" / "perfbot.yaml").read_text(encoding="utf-8")
    (tmp_path / "other").mkdir()
    other = new_repo(tmp_path / "other", "main", commit=True)
    assert main(["init", "--dir", str(other), "--leases-from", "file"]) == 0
    assert (other / "config" / "leases.json").exists()


def test_the_placeholder_pin_passes_both_linters_and_init_says_to_replace_it(
    empty_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--dir", str(empty_repo)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"set `uses: {UNSET_ACTION}`")
    workflow = empty_repo / ".github" / "workflows" / "perfbot.yml"
    assert f"uses: {UNSET_ACTION}\n" in workflow.read_text(encoding="utf-8")
    assert subprocess.run([lint_tool("actionlint"), str(workflow)], check=False).returncode == 0
    audit = [lint_tool("zizmor"), "--offline", "--min-severity", "low", str(workflow)]
    assert subprocess.run(audit, capture_output=True, check=False).returncode == 0


def test_the_default_branch_of_a_clone_is_the_remotes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upstream = new_repo(tmp_path, "develop", commit=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)
    git(clone, "checkout", "-q", "-b", "my-feature")
    assert main(["init", "--dir", str(clone)]) == 0
    assert push_branches(clone) == ["develop"]


def test_branch_names_the_push_trigger_and_git_is_not_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "not-a-repo"
    assert main(["init", "--dir", str(plain)]) == 1
    assert (
        capsys.readouterr().err
        == f"{plain}: cannot tell its default branch: it does not exist yet; name it with --branch NAME\n"
    )
    plain.mkdir()
    assert main(["init", "--dir", str(plain)]) == 1
    assert "it is not a git repository; name it with --branch NAME" in capsys.readouterr().err
    assert list(plain.iterdir()) == []
    assert main(["init", "--dir", str(plain), "--branch", "release+1"]) == 0
    assert push_branches(plain) == ["release\\+1"]  # a branch filter that matches that branch alone
    assert capsys.readouterr().out.splitlines()[-2] == "the workflow's push trigger is on release+1"


def test_a_folder_inside_a_repository_is_not_its_root(empty_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inside = empty_repo / "sub"
    inside.mkdir()
    assert main(["init", "--dir", str(inside)]) == 1
    assert "is inside the git repository at" in capsys.readouterr().err
    assert list(inside.iterdir()) == []


@pytest.mark.parametrize(
    "flags",
    [
        ["--action", "example/perfbot@v1"],
        ["--action", "example/perfbot@3d3c42e5"],
        ["--branch", "bad..name"],
        ["--branch", "-x"],
        ["--branch", "a b"],
        ["--branch", "HEAD"],
        ["--branch", "feature/.hidden"],
    ],
)
def test_a_bad_flag_value_is_a_usage_error(
    empty_repo: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["init", "--dir", str(empty_repo), *flags])
    assert stopped.value.code == 2
    assert f"argument {flags[0]}: " in capsys.readouterr().err
    assert listing(empty_repo) == []


@pytest.mark.parametrize("value", ["-1", "x", "1.5", ""])
def test_a_write_budget_below_zero_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["reconcile", "--dry-run", "--max-writes", value])
    assert stopped.value.code == 2
    assert "argument --max-writes: " in capsys.readouterr().err


# All or nothing, and only inside --dir.


def test_init_refuses_to_overwrite_and_writes_nothing(empty_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = empty_repo / "docs" / "current-constraints.md"
    page.parent.mkdir()
    page.write_text("ours\n", encoding="utf-8")
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert capsys.readouterr().err == f"{page}: already exists; perfbot init writes nothing\n"
    assert listing(empty_repo) == ["docs", "docs/current-constraints.md"]
    assert page.read_text(encoding="utf-8") == "ours\n"


@pytest.mark.parametrize("blocker", [".github", "docs", "config", "schema", ".github/workflows"])
def test_a_file_in_the_way_of_a_folder_stops_every_write(
    empty_repo: Path, blocker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (empty_repo / blocker).parent.mkdir(parents=True, exist_ok=True)
    (empty_repo / blocker).write_text("a file\n", encoding="utf-8")
    before = listing(empty_repo)
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert f"{empty_repo / blocker} is not a folder; perfbot init writes nothing" in capsys.readouterr().err
    assert listing(empty_repo) == before


def test_a_dangling_link_is_never_written_through(
    empty_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside" / "perfbot.yaml"
    (empty_repo / "config").mkdir()
    (empty_repo / "config" / "perfbot.yaml").symlink_to(outside)
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert f"{empty_repo / 'config' / 'perfbot.yaml'}: already exists" in capsys.readouterr().err
    assert not outside.parent.exists()
    assert listing(empty_repo) == ["config", "config/perfbot.yaml"]


def test_a_folder_linked_outside_the_repository_is_refused(
    empty_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (empty_repo / "docs").symlink_to(outside)
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert "is a symbolic link that leads outside" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    assert listing(empty_repo) == ["docs"]


def test_a_folder_linked_inside_the_repository_is_written_through(
    empty_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (empty_repo / "site" / "docs").mkdir(parents=True)
    (empty_repo / "docs").symlink_to(empty_repo / "site" / "docs")
    assert main(["init", "--dir", str(empty_repo)]) == 0
    assert (empty_repo / "site" / "docs" / "current-constraints.md").is_file()


def test_a_write_that_fails_takes_back_what_was_written(
    empty_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (empty_repo / "config").mkdir()  # a folder that was there stays
    written: list[Path] = []

    def fourth_fails(path: Path, text: str) -> None:
        if len(written) == 3:
            raise OutputError(f"{path}: cannot write: No space left on device")
        write_atomic(path, text)
        written.append(path)

    monkeypatch.setattr(place, "write_atomic", fourth_fails)
    assert main(["init", "--dir", str(empty_repo)]) == 1
    assert capsys.readouterr().err.endswith("No space left on device; perfbot init took back what it had written\n")
    assert len(written) == 3
    assert listing(empty_repo) == ["config"]


# What the files say.


def test_the_scaffolded_workflow() -> None:
    files = scaffold(dt.date(2026, 9, 1), ACTION, "trunk")
    workflow = YAML(typ="safe").load(files[".github/workflows/perfbot.yml"])
    job = workflow["jobs"]["perfbot"]
    uses = [step["uses"] for step in job["steps"] if "uses" in step]
    assert uses[-1] == ACTION
    assert all(PINNED.match(ref) for ref in uses)
    assert workflow["permissions"] == {}
    assert workflow["on"]["repository_dispatch"] == {"types": ["perfbot-leases", "perfbot-follow-up"]}
    assert job["concurrency"] == {"group": "perfbot-writer", "cancel-in-progress": False}
    assert job["timeout-minutes"] > 0
    assert "pull_request_target" not in workflow["on"]
    plain = {"action": "created", "comment": {"body": "thanks", "user": {"type": "User"}}}
    command = {"action": "created", "comment": {"body": "/perf help", "user": {"type": "User"}}}
    assert started_jobs(workflow, "issue_comment", plain) == []
    assert started_jobs(workflow, "issue_comment", command) == ["perfbot"]
    assert started_jobs(workflow, "issue_comment", {**command, "action": "edited"}) == ["perfbot"]  # decided again
    assert started_jobs(workflow, "issue_comment", {**command, "action": "deleted"}) == []
    assert started_jobs(workflow, "repository_dispatch", {"action": "perfbot-leases"}) == ["perfbot"]
    assert started_jobs(workflow, "repository_dispatch", {"action": "perfbot-follow-up"}) == ["perfbot"]
    assert started_jobs(workflow, "repository_dispatch", {"action": "other"}) == []
    assert UNSET_ACTION in scaffold(dt.date(2026, 9, 1), None, "main")[".github/workflows/perfbot.yml"]


def test_the_workflow_of_a_team_without_dos_follows_prs_but_not_perfbots_own() -> None:
    workflow = YAML(typ="safe").load(
        scaffold(dt.date(2026, 9, 1), ACTION, "main", "pull-requests")[".github/workflows/perfbot.yml"]
    )
    assert "opened" in workflow["on"]["pull_request_target"]["types"]
    here = {"full_name": "example/adopter"}
    opened = {"action": "opened", "repository": here}
    person = opened | {"pull_request": {"head": {"ref": "alice/x", "repo": here}}}
    ours = opened | {"pull_request": {"head": {"ref": "perfbot/update", "repo": here}}}
    fork = opened | {"pull_request": {"head": {"ref": "perfbot/update", "repo": {"full_name": "x/fork"}}}}
    assert started_jobs(workflow, "pull_request_target", person) == ["perfbot"]
    assert started_jobs(workflow, "pull_request_target", ours) == []
    assert started_jobs(workflow, "pull_request_target", fork) == ["perfbot"]
    command = {"action": "created", "comment": {"body": "/perf help", "user": {"type": "User"}}}
    assert started_jobs(workflow, "issue_comment", command) == ["perfbot"]


@pytest.mark.parametrize("branch", ["main", "release+1", "a!b", 'q"uote', "x/y#z", "ünï", "{a}", "a,b"])
def test_any_branch_git_takes_is_one_filter_that_matches_it(branch: str) -> None:
    workflow = YAML(typ="safe").load(scaffold(dt.date(2026, 9, 1), ACTION, branch)[".github/workflows/perfbot.yml"])
    (entry,) = workflow["on"]["push"]["branches"]
    assert entry == json.loads(push_filter(branch))
    assert entry.replace("\\", "") == branch


def test_the_schemas_the_dollar_schema_lines_name_are_written() -> None:
    files = scaffold(dt.date(2026, 9, 1), None, "main")
    for path in ("config/snapshot.yaml", "config/perfbot.yaml"):
        first = files[path].splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema=../")
        assert (Path(path).parent / first.split("=", 1)[1]).as_posix().replace("config/../", "") in files


def test_the_adopters_files_carry_none_of_the_seeds_words() -> None:
    files = scaffold(dt.date(2026, 9, 1), None, "main")
    for path in ("config/perfbot.yaml", "config/snapshot.yaml", "config/leases.json", "docs/current-constraints.md"):
        text = files[path].replace("schema: fak-native-performance-current/2", "")  # the format's name
        for seed_word in ("DOS", "fak-native", "9420", "native-performance", "README", "in its README"):
            assert seed_word not in text, (path, seed_word)
    assert "docs/reference.md" in files["config/perfbot.yaml"]


def test_the_snapshot_is_dated_by_the_run() -> None:
    snapshot = scaffold(dt.date(2026, 9, 1), None, "main")["config/snapshot.yaml"]
    assert "\nas_of: 2026-09-01\n" in snapshot
    assert "    review_by: 2026-09-15\n" in snapshot


def test_the_templates_ship_inside_the_package() -> None:
    # In a checkout, bot/templates links to the repository's templates/; hatchling copies what
    # it points to into the wheel, so an installed perfbot needs nothing outside the package.
    assert SHIPPED_TEMPLATES.parent == ROOT / "bot"
    assert SHIPPED_TEMPLATES.resolve() == (ROOT / "templates").resolve()
    assert (SHIPPED_TEMPLATES / "scaffold" / "snapshot.yaml.j2").is_file()


def test_the_new_teams_page_has_no_empty_table_or_section() -> None:
    page = scaffold(dt.date(2026, 9, 1), None, "main")["docs/current-constraints.md"]
    lines = page.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|---") or line.startswith("|--:") or line.startswith("|---:"):
            row = lines[i + 1] if i + 1 < len(lines) else ""
            assert row.startswith("| "), f"a table with no rows: {lines[i - 1]}"
        if line.startswith("#"):
            following = next((later for later in lines[i + 1 :] if later.strip()), "")
            assert following.strip("#"), f"an empty section: {line}"
            assert not following.startswith("#"), f"an empty section: {line}"
    assert "Graph-dependency-ready arms" not in page
    assert "source queue" not in page
