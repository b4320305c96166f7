"""REST bodies of pull requests: the list form (`PullRequestSimple`) and the full one."""

from __future__ import annotations

from typing import Any

from tests.github_double import bodies, branches, git_bodies
from tests.github_double.bodies import WEB, node_id, repository, user
from tests.github_double.branches import DERIVED_DATE, user_id
from tests.github_double.world import World


def _side(api: str, world: World, branch: str, sha: str, fork: str | None = None) -> dict[str, Any]:
    """One end of a PR; a fork's head names the fork's owner and repository (None once deleted)."""
    owner = world.owner if fork is None else fork.partition("/")[0] or "ghost"
    return {
        "label": f"{owner}:{branch}",
        "ref": branch,
        "sha": sha,
        "user": user(api, owner),
        "repo": repository(api, world, fork) if fork != "" else None,
    }


def simple(api: str, world: World, record: dict[str, Any]) -> dict[str, Any]:
    number, repo_url = record["number"], f"{api}/repos/{world.repository}"
    url, html = f"{repo_url}/pulls/{number}", f"{WEB}/{world.repository}/pull/{number}"
    merged, open_ = record["state"] == "merged", record["state"] == "open"
    head = world.pull_head(record) or "0" * 40
    base_branch = world.pull_base(number)
    issue_url = f"{repo_url}/issues/{number}"
    links = {
        "self": url,
        "html": html,
        "issue": issue_url,
        "comments": f"{issue_url}/comments",
        "review_comments": f"{url}/comments",
        "review_comment": f"{repo_url}/pulls/comments{{/number}}",
        "commits": f"{url}/commits",
        "statuses": f"{repo_url}/statuses/{head}",
    }
    return {
        "url": url,
        "id": user_id(f"pull:{number}"),
        "node_id": node_id("PR", user_id(f"pull:{number}")),
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": issue_url,
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "comments_url": links["comments"],
        "statuses_url": links["statuses"],
        "number": number,
        "state": "open" if open_ else "closed",
        "locked": False,
        "title": record.get("title", ""),
        "user": user(api, world.bot_login),
        "body": record.get("body") or None,
        "labels": [_label(api, world, name) for name in record.get("labels", [])],
        "milestone": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [user(api, login) for login in record.get("requested_reviewers", [])],
        "requested_teams": [team(api, world, slug) for slug in record.get("requested_teams", [])],
        "created_at": DERIVED_DATE,
        "updated_at": DERIVED_DATE,
        "closed_at": None if open_ else DERIVED_DATE,
        "merged_at": DERIVED_DATE if merged else None,
        "merge_commit_sha": None,
        "draft": bool(record.get("draft", False)),
        "head": _side(api, world, record["head"], head, world.fork_of(record)),
        "base": _side(api, world, base_branch, world.tip(base_branch) or "0" * 40),
        "_links": {name: {"href": href} for name, href in links.items()},
        "author_association": "NONE",
        "auto_merge": None,
        "active_lock_reason": None,
    }


def full(api: str, world: World, record: dict[str, Any]) -> dict[str, Any]:
    body = simple(api, world, record)
    merged = record["state"] == "merged"
    head, base = world.pull_head(record), world.tip(world.pull_base(record["number"]))
    start = (world.git.merge_base(head, base) or base) if head and base else None
    changes = git_bodies.file_changes(api, world, start, head) if head and start else []
    body |= {
        "merged": merged,
        "mergeable": None,
        "rebaseable": None,
        "mergeable_state": "unknown",
        "merged_by": user(api, branches.PERSON) if merged else None,
        "comments": 0,
        "review_comments": 0,
        "maintainer_can_modify": False,
        "commits": len(world.git.only_in(head, base)) if head and base else 0,
        "additions": sum(c["additions"] for c in changes),
        "deletions": sum(c["deletions"] for c in changes),
        "changed_files": len(changes),
    }
    return body


def _label(api: str, world: World, name: str) -> dict[str, Any]:
    """A PR's label: as an issue's, but its description a string (GitHub's PR schema allows no null)."""
    label = bodies.label(api, world, name)
    return label | {"description": label["description"] or ""}


def team(api: str, world: World, slug: str) -> dict[str, Any]:
    """A team of the repository's owner, as a PR's `requested_teams` lists it."""
    number, org = user_id(f"team:{slug}"), world.owner
    url = f"{api}/organizations/{user_id(org)}/team/{number}"
    return {
        "id": number,
        "node_id": node_id("T", number),
        "url": url,
        "members_url": f"{url}/members{{/member}}",
        "name": slug,
        "description": None,
        "permission": "pull",
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "html_url": f"{WEB}/orgs/{org}/teams/{slug}",
        "repositories_url": f"{url}/repos",
        "slug": slug,
        "parent": None,
        "type": "organization",
    }
