"""The double as a real server on a loopback port: in a thread, and as `python -m tests.github_double`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import githubkit
import httpx

from tests.github_double import GitHubDouble
from tests.github_double.server import serve
from tests.support.double_support import BOT, NAME, NOW, OWNER, example_state
from tests.support.paths import ROOT


def test_a_threaded_server_answers_githubkit_and_saves_writes(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    log = tmp_path / "requests.jsonl"
    double = GitHubDouble(example_state(comments=[]), state_path=state, repo_dir=ROOT, clock=lambda: NOW, log_path=log)
    server = serve(double, 0)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with githubkit.GitHub("test-token", base_url=url, auto_retry=False, http_cache=False, timeout=10) as gh:
            assert gh.graphql("query { viewer { login } }") == {"viewer": {"login": BOT}}
            made = gh.rest.issues.create_comment(OWNER, NAME, 8325, body="over the wire").parsed_data
    finally:
        server.shutdown()
        server.server_close()
    assert made.url.startswith("https://api.github.com/")
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert [c["body"] for c in saved["comments"]] == ["over the wire"]
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert lines == [
        {"method": "POST", "path": "/graphql", "status": 200, "kind": "graphql", "write": False},
        {
            "method": "POST",
            "path": f"/repos/{OWNER}/{NAME}/issues/8325/comments",
            "status": 201,
            "kind": "rest_write",
            "write": True,
        },
    ]


def test_python_m_serves_one_request_then_stops(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(example_state()), encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "tests.github_double",
        "--state",
        str(state),
        "--port",
        "0",
        "--repo-dir",
        str(ROOT),
    ]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as server:
        try:
            assert server.stdout is not None
            url = server.stdout.readline().rsplit(" at ", 1)[1].strip()
            assert url.startswith("http://127.0.0.1:")
            answer = httpx.get(f"{url}/repos/{OWNER}/{NAME}", headers={"authorization": "token test-token"}, timeout=10)
            unauthenticated = httpx.get(f"{url}/repos/{OWNER}/{NAME}", timeout=10)
        finally:
            server.terminate()
            server.wait(timeout=10)
    assert answer.status_code == 200
    assert answer.json()["full_name"] == f"{OWNER}/{NAME}"
    assert answer.json()["url"] == f"{url}/repos/{OWNER}/{NAME}"
    assert unauthenticated.status_code == 401


def test_python_m_reports_a_bad_state_file_in_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"issues": [{"number": "x"}]}', encoding="utf-8")
    command = [sys.executable, "-m", "tests.github_double", "--state", str(state), "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "issues.0.number" in done.stderr
    assert "Traceback" not in done.stderr
