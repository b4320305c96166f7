"""The double's git model and PR endpoints: real oids, GitHub's refusals, PR records kept true."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import githubkit
import pytest
from githubkit.exception import RequestFailed

from tests.boundary.test_github_double_rest import BRANCH, PAGE, SNAPSHOT, open_pull
from tests.github_double import GitHubDouble
from tests.github_double.gitstore import blob_oid
from tests.support.double_support import NAME, OWNER, client, double, example_state, github, make_double
from tests.support.paths import ROOT

__all__ = ["double", "github"]  # fixtures
FILES = {SNAPSHOT: "snapshot: next\n", PAGE: "# next page\n"}


def refused(call: Any) -> dict[str, Any]:
    with pytest.raises(RequestFailed) as failure:
        call()
    assert failure.value.response.status_code == 422
    body: dict[str, Any] = failure.value.response.json()
    return body


def test_the_default_branch_holds_the_files_the_config_names(double: GitHubDouble) -> None:
    paths = ["config/leases.json", "config/perfbot.yaml", SNAPSHOT, PAGE]
    assert sorted(double.files()) == paths
    assert double.files()[SNAPSHOT] == (ROOT / SNAPSHOT).read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_oids_are_the_ones_git_computes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for path in ("config/perfbot.yaml", "config/leases.json", SNAPSHOT, PAGE):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, repo / path)
    when = "2026-01-01T00:00:00Z"
    person = {
        "GIT_AUTHOR_NAME": "octocat",
        "GIT_COMMITTER_NAME": "octocat",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    double = make_double(repo_dir=repo)
    email = double.world.git.commits[double.tip() or ""].author.email
    env = person | {"GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_EMAIL": email, "PATH": "/usr/bin:/bin"}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    git("add", "-A")
    tree = git("write-tree")
    made = subprocess.run(
        ["git", "commit-tree", tree],
        cwd=repo,
        env=env,
        input="Initial commit",
        check=True,
        capture_output=True,
        text=True,
    )
    assert made.stdout.strip() == double.tip()
    assert double.world.git.commits[made.stdout.strip()].tree == tree
    assert git("hash-object", SNAPSHOT) == blob_oid((repo / SNAPSHOT).read_text(encoding="utf-8"))


def test_the_default_branch_follows_the_working_tree_with_history(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "config", tmp_path / "config")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    double = make_double(repo_dir=tmp_path)
    first = double.tip()
    (tmp_path / PAGE).write_text("# edited\n", encoding="utf-8")
    with client(double) as gh:
        second = gh.rest.git.get_ref(OWNER, NAME, "heads/main").parsed_data.object_.sha
    assert second != first
    assert double.world.git.commits[second].parents == (first,)
    assert double.files()[PAGE] == "# edited\n"


def test_a_state_can_carry_the_default_branch_files() -> None:
    double = make_double(example_state(git={"files": {"README.md": "hello\n"}}))
    assert double.files() == {"README.md": "hello\n"}


def test_base_tree_must_be_a_tree_not_a_commit(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    tip = double.tip() or ""
    body = refused(lambda: github.rest.git.create_tree(OWNER, NAME, base_tree=tip, tree=[]))
    assert body["message"] == "base_tree is not a valid tree oid"


def test_update_ref_refuses_a_non_fast_forward_without_force(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    open_pull(github, double, FILES)
    moved = double.push(BRANCH, {"notes.md": "mine\n"})
    rewound = double.world.git.commits[moved].parents[0]
    body = refused(lambda: github.rest.git.update_ref(OWNER, NAME, f"heads/{BRANCH}", sha=rewound))
    assert body["message"] == "Update is not a fast forward"
    assert double.tip(BRANCH) == moved
    github.rest.git.update_ref(OWNER, NAME, f"heads/{BRANCH}", sha=rewound, force=True)
    assert double.tip(BRANCH) == rewound
    again = refused(lambda: github.rest.git.create_ref(OWNER, NAME, ref=f"refs/heads/{BRANCH}", sha=rewound))
    assert again["message"] == "Reference already exists"


def test_a_second_pr_from_one_head_and_a_pr_without_commits_are_refused(
    github: githubkit.GitHub[Any], double: GitHubDouble
) -> None:
    open_pull(github, double, FILES)
    body = refused(lambda: github.rest.pulls.create(OWNER, NAME, title="x", head=f"{OWNER}:{BRANCH}", base="main"))
    assert body["errors"][0]["message"] == f"A pull request already exists for {OWNER}:{BRANCH}."
    github.rest.git.create_ref(OWNER, NAME, ref="refs/heads/empty", sha=double.tip() or "")
    body = refused(lambda: github.rest.pulls.create(OWNER, NAME, title="x", head="empty", base="main"))
    assert body["errors"][0]["message"] == "No commits between main and empty"


def test_the_pr_list_filters_by_owner_and_branch_only(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    github.rest.git.create_ref(OWNER, NAME, ref="refs/heads/other", sha=double.tip() or "")
    double.push("other", {"notes.md": "a person's branch\n"})
    github.rest.pulls.create(OWNER, NAME, title="other", head="other", base="main")

    def numbers(**query: Any) -> list[int]:
        return [p.number for p in github.rest.pulls.list(OWNER, NAME, **query).parsed_data]

    assert numbers(head=f"{OWNER}:{BRANCH}") == [number]
    assert numbers(head=BRANCH) == [number + 1, number]  # a bare branch name is ignored, as on GitHub
    assert numbers(head=f"someone:{BRANCH}") == []


def test_the_pr_record_follows_its_branch(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    record = double.state()["pulls"][0]
    assert (record["number"], record["head"], record["files"]) == (number, BRANCH, FILES)
    assert "foreign_commits" not in record
    shown = github.rest.pulls.get(OWNER, NAME, number).parsed_data
    assert (shown.changed_files, shown.commits, shown.additions) == (2, 1, 2)
    double.push(BRANCH, {PAGE: "# a person's page\n"}, login="alice")
    record = double.state()["pulls"][0]
    assert record["files"] == {SNAPSHOT: FILES[SNAPSHOT], PAGE: "# a person's page\n"}
    assert record["foreign_commits"] is True
    compared = github.rest.repos.compare_commits(OWNER, NAME, f"main...{BRANCH}").parsed_data
    authors = [getattr(c.author, "login", None) for c in compared.commits]
    assert (compared.status, authors) == ("ahead", ["perfbot[bot]", "alice"])
    listed = github.rest.repos.list_commits(OWNER, NAME, sha=BRANCH).parsed_data
    assert [c.sha for c in listed][:2] == [c.sha for c in reversed(compared.commits)]


def test_a_pr_closed_then_force_pushed_cannot_be_reopened(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    github.rest.pulls.update(OWNER, NAME, number, state="closed")
    github.rest.pulls.update(OWNER, NAME, number, state="open")  # nothing moved: it reopens
    github.rest.pulls.update(OWNER, NAME, number, state="closed")
    open_pull(github, double, {SNAPSHOT: "snapshot: rebuilt\n", PAGE: "# rebuilt\n"}, title="new")
    body = refused(lambda: github.rest.pulls.update(OWNER, NAME, number, state="open"))
    assert (
        body["errors"][0]["message"] == f"state cannot be changed. The {BRANCH} branch was force-pushed or recreated."
    )
    assert [(p["number"], p["state"]) for p in double.state()["pulls"]] == [(number, "closed"), (number + 1, "open")]


def test_a_merged_pr_moves_the_default_branch(github: githubkit.GitHub[Any], double: GitHubDouble) -> None:
    number = open_pull(github, double, FILES)
    merge = double.merge_pull(number)
    assert double.tip() == merge
    assert double.files()[SNAPSHOT] == FILES[SNAPSHOT]
    assert double.state()["pulls"][0]["state"] == "merged"
    merged = github.rest.pulls.get(OWNER, NAME, number).parsed_data
    assert (merged.state, merged.merged) == ("closed", True)


def test_the_git_model_survives_a_restart_from_the_state_file(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    double = make_double(state_path=path)
    with client(double) as gh:
        number = open_pull(gh, double, FILES)
    again = GitHubDouble(state_path=path, repo_dir=ROOT)
    assert again.tip(BRANCH) == double.tip(BRANCH)
    assert again.files(BRANCH) == double.files(BRANCH)
    assert again.state()["pulls"][0]["number"] == number
    kept = again.state()["git"]["objects"]
    assert all(kind in ("blob", "tree", "commit") for kind in (o["type"] for o in kept.values()))


def test_an_open_pr_record_without_a_branch_gets_one() -> None:
    pull = {
        "number": 7,
        "state": "open",
        "head": BRANCH,
        "title": "t",
        "body": "b",
        "files": FILES,
        "foreign_commits": True,
    }
    double = make_double(example_state(pulls=[pull]))
    assert double.files(BRANCH)[SNAPSHOT] == FILES[SNAPSHOT]
    head = double.tip(BRANCH) or ""
    assert double.world.git.commits[head].author.login == "octocat"
    assert "git" not in double.state()  # nothing the state does not already imply


def test_edits_to_the_state_file_are_read_and_objects_in_flight_kept(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    double = make_double(state_path=path)
    with client(double) as gh:
        base_tree = gh.rest.git.get_commit(OWNER, NAME, double.tip() or "").parsed_data.tree.sha
        entry: list[Any] = [{"path": SNAPSHOT, "mode": "100644", "type": "blob", "content": "x: 1\n"}]
        tree = gh.rest.git.create_tree(OWNER, NAME, base_tree=base_tree, tree=entry).parsed_data.sha
        edited = example_state(permissions={"carol": "maintain"})
        path.write_text(json.dumps(edited), encoding="utf-8")  # someone edits the state meanwhile
        assert gh.rest.repos.get_collaborator_permission_level(OWNER, NAME, "carol").parsed_data.role_name == "maintain"
        made = gh.rest.git.create_commit(OWNER, NAME, message="m", tree=tree, parents=[double.tip() or ""])
    assert made.status_code == 201


def test_a_commits_details_edited_in_the_state_are_what_the_state_file_keeps(tmp_path: Path) -> None:
    """A commit's oid leaves out what the double keeps beside it (`verified`): an edit of only that
    is saved too, not the objects the double wrote before."""
    path = tmp_path / "state.json"
    pushed = make_double(example_state(), state_path=path)
    pushed.push("main", {"config/perfbot.yaml": "snapshot: config/snapshot.yaml\n"})
    pushed.world.save()
    state = json.loads(path.read_text(encoding="utf-8"))
    objects = state["git"]["objects"]
    oid = next(o for o, record in objects.items() if record["type"] == "commit")
    objects[oid]["verified"] = not objects[oid]["verified"]
    pushed.load(state)
    saved = json.loads(path.read_text(encoding="utf-8"))["git"]["objects"][oid]["verified"]
    assert saved == pushed.state()["git"]["objects"][oid]["verified"] == objects[oid]["verified"]
