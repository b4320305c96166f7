"""REST bodies for accounts, the repository, issues, comments, reactions and permissions.

Field names and URL templates follow GitHub's REST API (its OpenAPI description, as githubkit's
models carry it); values the state does not hold get fixed, plausible values.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from tests.github_double.branches import DERIVED_DATE, user_id
from tests.github_double.world import World

WEB = "https://github.com"
# Legacy permission names the permission endpoint reports for each role (maintain -> write, ...).
LEGACY = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}
ROLE_FLAGS = ("pull", "triage", "push", "maintain", "admin")
ROLE_RANK = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
REPOSITORY_URLS = {
    "archive_url": "/{archive_format}{/ref}",
    "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}",
    "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}",
    "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}",
    "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}",
    "contributors_url": "/contributors",
    "deployments_url": "/deployments",
    "downloads_url": "/downloads",
    "events_url": "/events",
    "forks_url": "/forks",
    "git_commits_url": "/git/commits{/sha}",
    "git_refs_url": "/git/refs{/sha}",
    "git_tags_url": "/git/tags{/sha}",
    "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}",
    "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}",
    "keys_url": "/keys{/key_id}",
    "labels_url": "/labels{/name}",
    "languages_url": "/languages",
    "merges_url": "/merges",
    "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}",
    "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}",
    "stargazers_url": "/stargazers",
    "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers",
    "subscription_url": "/subscription",
    "tags_url": "/tags",
    "teams_url": "/teams",
    "trees_url": "/git/trees{/sha}",
}


def node_id(prefix: str, number: int) -> str:
    return prefix + "_" + base64.b64encode(number.to_bytes(8, "big")).decode().rstrip("=")


def user(api: str, login: str, kind: str | None = None) -> dict[str, Any]:
    kind = kind or ("Bot" if login.endswith("[bot]") else "User")
    account, number = f"{api}/users/{quote(login)}", user_id(login)
    html = f"{WEB}/apps/{login.removesuffix('[bot]')}" if kind == "Bot" else f"{WEB}/{login}"
    return {
        "login": login,
        "id": number,
        "node_id": node_id("BOT" if kind == "Bot" else "U", number),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{number}?v=4",
        "gravatar_id": "",
        "url": account,
        "html_url": html,
        "followers_url": f"{account}/followers",
        "following_url": f"{account}/following{{/other_user}}",
        "gists_url": f"{account}/gists{{/gist_id}}",
        "starred_url": f"{account}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{account}/subscriptions",
        "organizations_url": f"{account}/orgs",
        "repos_url": f"{account}/repos",
        "events_url": f"{account}/events{{/privacy}}",
        "received_events_url": f"{account}/received_events",
        "type": kind,
        "user_view_type": "public",
        "site_admin": False,
    }


def repository(api: str, world: World, fork: str | None = None, *, full: bool = False) -> dict[str, Any]:
    """This repository, or the fork `fork` (`OWNER/NAME`) of it."""
    name = fork or world.repository
    number = user_id(name)
    url, open_count = (
        f"{api}/repos/{name}",
        sum(
            i.get("state", "open") == "open" and world.other(i.get("repository")) is None
            for i in world.records("issues")
        ),
    )
    body: dict[str, Any] = {
        "id": number,
        "node_id": node_id("R", number),
        "name": name.split("/")[1],
        "full_name": name,
    }
    body |= {"private": False, "owner": user(api, name.split("/")[0]), "html_url": f"{WEB}/{name}", "description": None}
    body |= {"fork": fork is not None, "url": url} | {key: url + suffix for key, suffix in REPOSITORY_URLS.items()}
    body |= {
        "git_url": f"git://github.com/{name}.git",
        "ssh_url": f"git@github.com:{name}.git",
        "clone_url": f"{WEB}/{name}.git",
        "svn_url": f"{WEB}/{name}",
        "mirror_url": None,
        "homepage": None,
        "language": "Python",
        "forks_count": 0,
        "forks": 0,
        "stargazers_count": 0,
        "watchers_count": 0,
        "watchers": 0,
        "size": 0,
        "default_branch": world.default_branch,
        "open_issues_count": open_count,
        "open_issues": open_count,
        "is_template": False,
        "topics": [],
        "has_issues": True,
        "has_projects": True,
        "has_downloads": True,
        "has_wiki": True,
        "has_pages": False,
        "has_discussions": False,
        "archived": False,
        "disabled": False,
        "visibility": "public",
        "pushed_at": DERIVED_DATE,
        "created_at": DERIVED_DATE,
        "updated_at": DERIVED_DATE,
        "license": None,
    }
    if full:
        body |= {
            "subscribers_count": 0,
            "network_count": 0,
            "allow_forking": True,
            "web_commit_signoff_required": False,
        }
    return body


def label(api: str, world: World, name: str) -> dict[str, Any]:
    """A label as REST shows it: the repository's colour and description when the state has them."""
    number = user_id(f"label:{name}")
    url = f"{api}/repos/{world.repository}/labels/{quote(name, safe='')}"
    known = next((found for found in world.records("labels") if found["name"] == name), {})
    return {"id": number, "node_id": node_id("LA", number), "url": url, "name": name} | {
        "description": known.get("description"),
        "color": known.get("color", "ededed"),
        "default": False,
        "archived_at": None,
        "archived_by": None,
    }


def issue(api: str, world: World, record: dict[str, Any]) -> dict[str, Any]:
    number, repo_url = record["number"], f"{api}/repos/{world.repository}"
    url, closed = f"{repo_url}/issues/{number}", record.get("state") == "closed"
    assignees = [user(api, login) for login in record.get("assignees", [])]
    comments = sum(c["issue"] == number for c in world.records("comments"))
    return {
        "id": user_id(f"issue:{number}"),
        "node_id": node_id("I", user_id(f"issue:{number}")),
        "url": url,
        "repository_url": repo_url,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{WEB}/{world.repository}/issues/{number}",
        "number": number,
        "state": record.get("state", "open"),
        "state_reason": record.get("state_reason"),
        "title": record.get("title", ""),
        "body": record.get("body"),
        "user": user(api, record.get("user") or world.owner),
        "labels": [label(api, world, name) for name in record.get("labels", [])],
        "assignee": assignees[0] if assignees else None,
        "assignees": assignees,
        "milestone": None,
        "locked": False,
        "active_lock_reason": None,
        "comments": comments,
        "closed_at": DERIVED_DATE if closed else None,
        "created_at": DERIVED_DATE,
        "updated_at": DERIVED_DATE,
        "author_association": "OWNER",
    }


def comment(api: str, world: World, record: dict[str, Any]) -> dict[str, Any]:
    number, repo_url = record["id"], f"{api}/repos/{world.repository}"
    author = user(api, record["user"], record.get("user_type"))
    return {
        "id": number,
        "node_id": node_id("IC", number),
        "url": f"{repo_url}/issues/comments/{number}",
        "html_url": f"{WEB}/{world.repository}/issues/{record['issue']}#issuecomment-{number}",
        "body": record.get("body", ""),
        "user": author,
        "created_at": record["created_at"],
        "updated_at": record.get("updated_at", record["created_at"]),
        "issue_url": f"{repo_url}/issues/{record['issue']}",
        "author_association": "NONE" if author["type"] == "Bot" else "CONTRIBUTOR",
    }


def reaction(api: str, index: int, record: dict[str, Any], created_at: str) -> dict[str, Any]:
    return {
        "id": index + 1,
        "node_id": node_id("REA", index + 1),
        "user": user(api, record["user"]),
        "content": record["content"],
        "created_at": created_at,
    }


def permission(api: str, login: str, role: str) -> dict[str, Any]:
    """GET collaborators/{user}/permission: the legacy name, the exact role, and the account."""
    legacy = LEGACY.get(role, "read")
    flags = {flag: ROLE_RANK.get(role, 0) > index for index, flag in enumerate(ROLE_FLAGS)}
    account = user(api, login) | {"permissions": flags, "role_name": role}
    return {"permission": legacy, "role_name": role, "user": account}
