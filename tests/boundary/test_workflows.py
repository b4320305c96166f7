"""The action and the workflows: their shape (pins, permissions, no expressions in shells) and
which events start a job, judged by evaluating each job's `if:` against real webhook payloads."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from bot.adopt.scaffold import WORKFLOW, scaffold
from tests.support.expressions import condition
from tests.support.paths import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTION = ROOT / "action.yml"
# npm `@octokit/webhooks-examples`, unpacked by .ci/run (see there for the version).
EXAMPLES = ROOT / ".cache" / "webhooks-examples" / "package" / "api.github.com" / "index.json"
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return data


def steps(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every step of a workflow's jobs, or of a composite action."""
    if "runs" in document:
        yield from document["runs"].get("steps", [])
    for job in document.get("jobs", {}).values():
        yield from job.get("steps", [])


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_inside_a_shell(path: Path) -> None:
    """Inputs and event text reach a `run:` only through `env:`, never spliced into the script."""
    scripts = [step["run"] for step in steps(load(path)) if "run" in step]
    assert scripts, "every file here runs something"
    for script in scripts:
        assert "${{" not in script, script


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit(path: Path) -> None:
    uses = [str(step["uses"]) for step in steps(load(path)) if "uses" in step]
    assert uses
    for ref in uses:
        assert ref.startswith("./") or PINNED.match(ref), f"{ref} is not pinned to a full commit SHA"
    # The version the SHA stands for is said next to it, for people and for update bots.
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.search(r"uses: [^.].*@[0-9a-f]{40}", line):
            assert re.search(r"# v\d+(\.\d+)*\s*$", line), line


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_granted_per_job(path: Path) -> None:
    workflow = load(path)
    assert workflow.get("permissions") == {}, "the workflow level grants nothing"
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("permissions"), dict), f"job {name} states what it needs"


def test_the_validate_job_only_reads() -> None:
    jobs = load(ROOT / ".github" / "workflows" / "perfbot.yml")["jobs"]
    assert jobs["validate"]["permissions"] == {"contents": "read"}
    assert jobs["reconcile"]["needs"] == "validate"
    assert all(step.get("uses") != "./" for step in jobs["validate"]["steps"])


def test_one_writer_group() -> None:
    jobs = load(ROOT / ".github" / "workflows" / "perfbot.yml")["jobs"]
    writers = [job for job in jobs.values() if "write" in job["permissions"].values()]
    assert [job["concurrency"] for job in writers] == [{"group": "perfbot-writer", "cancel-in-progress": False}]


def test_the_action_passes_inputs_through_env_only() -> None:
    action = load(ACTION)
    declared = set(action["inputs"])
    assert declared == {
        "github-token",
        "config",
        "dry-run",
        "max-writes",
        "follow-up",
        "leases",
        "observation-cache",
        "pull-request-labels",
        "pull-request-reviewers",
        "pull-request-team-reviewers",
        "pull-request-draft",
        "pull-request-delete-branch",
        "python-version",
    }
    reconcile = next(step for step in steps(action) if step.get("id") == "reconcile")
    passed = {re.sub(r"^\$\{\{ inputs\.(.+) \}\}$", r"\1", value) for value in reconcile["env"].values()}
    python = next(step for step in steps(action) if step.get("id") == "python")
    assert python["with"]["python-version"] == "${{ inputs.python-version }}"
    assert declared - {"python-version"} <= passed


def test_every_output_comes_from_the_reconcile_step() -> None:
    outputs = load(ACTION)["outputs"]
    assert set(outputs) == {
        "pull-request-number",
        "pull-request-operation",
        "pull-request-url",
        "pull-request-branch",
        "pull-request-head-sha",
        "comments-written",
        "nudged-issues",
        "plan-json",
    }
    for name, output in outputs.items():
        assert output["value"] == f"${{{{ steps.reconcile.outputs.{name} }}}}"
        assert output["description"]


def test_the_install_is_hash_checked_from_the_locks_and_the_venv_is_cached_whole() -> None:
    by_id = {step.get("id", step.get("name")): step for step in steps(load(ACTION))}
    key = by_id["venv-key"]["run"]
    for part in ("lock/perfbot.txt", "lock/uv.txt", "$RUNNER_OS", "${ImageOS", "$RUNNER_ARCH", "$PYTHON_VERSION"):
        assert part in key, part
    assert by_id["venv-key"]["env"]["PYTHON_VERSION"] == "${{ steps.python.outputs.python-version }}"
    cache = by_id["venv"]
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"] == {"path": "${{ runner.temp }}/perfbot-venv", "key": "${{ steps.venv-key.outputs.key }}"}
    assert "restore-keys" not in cache["with"]  # another lock's venv is never restored
    install = by_id["Install perfbot's locked dependencies"]
    assert install["if"] == "steps.venv.outputs.cache-hit != 'true'"
    lines = [line for line in install["run"].splitlines() if " install " in line or " sync " in line]
    assert len(lines) == 2
    assert all("--require-hashes" in line for line in lines)
    assert '-r "$GITHUB_ACTION_PATH/lock/uv.txt"' in lines[0]
    assert lines[1].endswith('"$GITHUB_ACTION_PATH/lock/perfbot.txt"')
    assert "pip install" not in by_id["reconcile"]["run"]
    assert '-P -m bot reconcile "${args[@]}"' in by_id["reconcile"]["run"]


def test_the_validate_job_installs_the_locked_dependencies() -> None:
    validate = load(ROOT / ".github" / "workflows" / "perfbot.yml")["jobs"]["validate"]
    script = next(step["run"] for step in validate["steps"] if step.get("name") == "Validate the snapshot")
    assert "--require-hashes -r lock/perfbot.txt" in script


@pytest.mark.parametrize("where", ["perfbot.yml", "scaffold"])
def test_a_follow_up_waits_for_its_pace_before_the_writer_and_from_the_payload_only_through_env(where: str) -> None:
    """The wait reads `next_at` from the environment (never expanded into the script) and is capped."""
    if where == "scaffold":
        files = scaffold(dt.date(2026, 8, 27), None, "main")
        workflow = YAML(typ="safe").load(files[WORKFLOW])
        job = workflow["jobs"]["perfbot"]
    else:
        workflow = load(ROOT / ".github" / "workflows" / "perfbot.yml")
        job = workflow["jobs"]["validate"]
        assert "concurrency" not in job  # people's runs are not held behind a waiting follow-up
    wait = job["steps"][0]
    assert wait["if"] == "github.event.action == 'perfbot-follow-up'"
    assert wait["env"] == {"NEXT_AT": "${{ github.event.client_payload.next_at }}"}
    assert "${{" not in wait["run"]
    assert "3600" in wait["run"]
    assert job["timeout-minutes"] > 60


def test_the_observation_cache_is_restored_by_prefix_and_saved_under_this_run_even_after_a_failure() -> None:
    by_id = {step.get("id"): step for step in steps(load(ACTION))}
    restore, save, reconcile = by_id["observed-restore"], by_id["observed-save"], by_id["reconcile"]
    ids = list(by_id)
    assert ids.index("observed-restore") < ids.index("reconcile") < ids.index("observed-save")
    assert restore["uses"].startswith("actions/cache/restore@")
    assert save["uses"].startswith("actions/cache/save@")
    assert restore["uses"].split("@")[1] == save["uses"].split("@")[1]  # one pinned release
    assert re.fullmatch(r"[0-9a-f]{40}", restore["uses"].split("@")[1])  # a full commit SHA
    # Each run saves its own entry: two runs never write one key; the newest is restored by prefix.
    key = save["with"]["key"]
    assert "${{ github.run_id }}" in key
    assert "${{ github.run_attempt }}" in key
    assert restore["with"]["key"] == key
    assert key.startswith(restore["with"]["restore-keys"])
    assert save["if"].startswith("always()")
    folder = "${{ runner.temp }}/perfbot-cache"
    assert restore["with"]["path"] == save["with"]["path"] == folder
    assert '--cache "$RUNNER_TEMP/perfbot-cache/observed.json"' in reconcile["run"]


# Which jobs an event starts.


def triggered(workflow: dict[str, Any], event: str, payload: dict[str, Any]) -> bool:
    """Whether the workflow's `on:` takes this event (its `types:` filter included)."""
    on = workflow["on"]
    if event not in on:
        return False
    types = (on[event] or {}).get("types")
    return types is None or payload.get("action") in types


def started_jobs(workflow: dict[str, Any], event: str, payload: dict[str, Any]) -> list[str]:
    """The jobs that run: each job's `if:` holds and every job it needs ran (and, here, succeeded)."""
    if not triggered(workflow, event, payload):
        return []
    contexts = {"github": {"event_name": event, "event": payload}, "inputs": payload.get("inputs") or {}}
    started: list[str] = []
    for name, job in workflow["jobs"].items():  # jobs are listed after the jobs they need
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        if all(n in started for n in needs) and condition(str(job.get("if", "true")), contexts):
            started.append(name)
    return started


@cache
def examples() -> dict[str, list[dict[str, Any]]]:
    if not EXAMPLES.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{EXAMPLES} is missing: .ci/run fetches it with npm pack")
        pytest.skip(f"{EXAMPLES} is missing: run .ci/run (npm pack @octokit/webhooks-examples) to fetch it")
    index = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    return {entry["name"]: entry["examples"] for entry in index}


def comment_events() -> list[dict[str, Any]]:
    created = [e for e in examples()["issue_comment"] if e["action"] == "created"]
    assert created, "the examples hold created comments"
    return created


def a_bot() -> dict[str, Any]:
    """A real bot account object from the examples (a `sender` of another event)."""
    for events in examples().values():
        for event in events:
            sender = event.get("sender") or {}
            if sender.get("type") == "Bot":
                return copy.deepcopy(sender)
    raise AssertionError("the examples hold no bot account")


def with_comment(event: dict[str, Any], body: str, user: dict[str, Any] | None = None) -> dict[str, Any]:
    changed = copy.deepcopy(event)
    changed["comment"]["body"] = body
    if user is not None:
        changed["comment"]["user"] = user
    return changed


@pytest.fixture(scope="module")
def perfbot() -> dict[str, Any]:
    return load(ROOT / ".github" / "workflows" / "perfbot.yml")


def test_an_ordinary_comment_starts_no_job(perfbot: dict[str, Any]) -> None:
    for event in comment_events():
        assert "/perf" not in event["comment"]["body"]
        assert started_jobs(perfbot, "issue_comment", event) == []


def test_a_command_starts_both_jobs(perfbot: dict[str, Any]) -> None:
    for event in comment_events():
        for body in ("/perf claim cuda.q8_1", "Thanks!\n\n/PERF help"):
            assert started_jobs(perfbot, "issue_comment", with_comment(event, body)) == ["validate", "reconcile"]


def test_a_comment_by_a_bot_starts_no_job(perfbot: dict[str, Any]) -> None:
    bot = a_bot()
    assert bot["login"].endswith("[bot]")
    for event in comment_events():
        assert started_jobs(perfbot, "issue_comment", with_comment(event, "/perf help", bot)) == []


def test_an_edited_command_starts_both_jobs_and_a_deleted_one_none(perfbot: dict[str, Any]) -> None:
    """An edit of a command comment is decided again when nothing in it was accepted (issue #45)."""
    edited = [e for e in examples()["issue_comment"] if e["action"] == "edited"]
    deleted = [e for e in examples()["issue_comment"] if e["action"] == "deleted"]
    assert edited
    for event in edited:
        assert started_jobs(perfbot, "issue_comment", with_comment(event, "/perf help")) == ["validate", "reconcile"]
        assert started_jobs(perfbot, "issue_comment", with_comment(event, "thanks")) == []
        assert started_jobs(perfbot, "issue_comment", with_comment(event, "/perf help", a_bot())) == []
    for event in deleted:
        assert started_jobs(perfbot, "issue_comment", with_comment(event, "/perf help")) == []


def test_a_lease_or_follow_up_dispatch_starts_both_jobs_and_no_other_dispatch_does(perfbot: dict[str, Any]) -> None:
    """`publish-leases` sends `perfbot-leases`, a run that left writes `perfbot-follow-up`; the
    payload is GitHub's (its `action` is the event type)."""
    for payload in examples().get("repository_dispatch", []) or [{"action": "on-demand-test"}]:
        assert started_jobs(perfbot, "repository_dispatch", payload) == []
        for kind in ("perfbot-leases", "perfbot-follow-up"):
            asked = {**payload, "action": kind}
            assert started_jobs(perfbot, "repository_dispatch", asked) == ["validate", "reconcile"]


@pytest.mark.parametrize(
    ("event", "actions"),
    [("issues", {"closed", "reopened", "assigned", "unassigned"}), ("push", None), ("workflow_dispatch", None)],
)
def test_other_events_start_both_jobs(perfbot: dict[str, Any], event: str, actions: set[str] | None) -> None:
    payloads = examples()[event]
    assert payloads
    for payload in payloads:
        wanted = actions is None or payload.get("action") in actions
        assert started_jobs(perfbot, event, payload) == (["validate", "reconcile"] if wanted else [])


def test_the_adopt_guides_workflow_is_inits_own_in_short_filters_comments_and_writes_one_at_a_time() -> None:
    """The workflow the guide gives to copy by hand starts on the events `perfbot init`'s does (the
    follow-up dispatch included), waits for a follow-up's pace with init's own step, and outlasts
    that wait; one writer at a time, no job for an ordinary comment."""
    guide = (ROOT / "docs" / "adopt.md").read_text(encoding="utf-8")
    section = guide.split("# Adopt perfbot in your repository\n", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow = YAML(typ="safe").load(block)
    shipped = YAML(typ="safe").load(scaffold(dt.date(2026, 8, 27), None, "main")[WORKFLOW])
    assert workflow["on"] == shipped["on"]
    assert workflow["permissions"] == {}
    job, init_job = workflow["jobs"]["perfbot"], shipped["jobs"]["perfbot"]
    assert job["steps"][0] == init_job["steps"][0]
    assert (job["timeout-minutes"], job["permissions"]) == (init_job["timeout-minutes"], init_job["permissions"])
    assert job["concurrency"] == {"group": "perfbot-writer", "cancel-in-progress": False}
    for kind in ("perfbot-leases", "perfbot-follow-up"):
        assert started_jobs(workflow, "repository_dispatch", {"action": kind}) == ["perfbot"]
    plain, command = comment_events()[0], with_comment(comment_events()[0], "/perf help")
    assert started_jobs(workflow, "issue_comment", plain) == []
    assert started_jobs(workflow, "issue_comment", command) == ["perfbot"]
    assert started_jobs(workflow, "issue_comment", with_comment(command, "/perf help", a_bot())) == []


REUSABLE = ROOT / ".github" / "workflows" / "perfbot-reusable.yml"
CALLER = ROOT / "examples" / "organisation" / "perfbot.yml"


def test_the_organisations_workflow_is_called_and_makes_the_least_token_for_the_named_repositories() -> None:
    workflow = load(REUSABLE)
    called = workflow["on"]["workflow_call"]
    assert set(called["secrets"]) == {"app-private-key"}
    assert {"repositories", "perfbot-repository", "perfbot-ref", "app-client-id"} <= set(called["inputs"])
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read"}, "the App's token writes; the job's only reads"
    assert job["concurrency"] == {"group": "perfbot-writer-${{ github.repository }}", "cancel-in-progress": False}
    by_uses = {str(step.get("uses", "")).split("@")[0]: step for step in job["steps"]}
    token = by_uses["actions/create-github-app-token"]["with"]
    granted = {key: value for key, value in token.items() if key.startswith("permission-")}
    assert granted == {
        "permission-contents": "write",
        "permission-issues": "write",
        "permission-pull-requests": "write",
    }
    # The caller's own repository, named from GITHUB_REPOSITORY (a schedule's event may not name it).
    assert "${{ steps.caller.outputs.name }}" in token["repositories"]
    caller = next(step for step in job["steps"] if step.get("id") == "caller")
    assert caller["run"] == 'echo "name=${GITHUB_REPOSITORY#*/}" >> "$GITHUB_OUTPUT"'
    assert "${{ inputs.repositories }}" in token["repositories"]
    assert by_uses["./.perfbot-action"]["with"]["github-token"] == "${{ steps.token.outputs.token }}"
    # perfbot's own checkout comes after the pin check, which refuses anything but a full SHA.
    names = [step.get("name", step.get("uses")) for step in job["steps"]]
    assert names.index("Check that perfbot is pinned") < names.index(
        "Make the App's token for the snapshot's repositories"
    )


def test_the_example_caller_passes_what_the_reusable_workflow_requires() -> None:
    called = load(REUSABLE)["on"]["workflow_call"]
    required = {name for name, spec in called["inputs"].items() if spec.get("required")}
    (job,) = load(CALLER)["jobs"].values()
    assert job["uses"].split("@")[0].endswith("/.github/workflows/perfbot-reusable.yml")
    assert required <= set(job["with"])
    assert set(job["secrets"]) == set(called["secrets"])


@pytest.mark.parametrize("path", [REUSABLE, CALLER], ids=lambda p: p.name)
def test_the_organisations_workflows_pass_actionlint(path: Path) -> None:
    from tests.e2e.test_adopt import lint_tool

    linted = subprocess.run([lint_tool("actionlint"), str(path)], capture_output=True, text=True, check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr
