"""Acting on the playground's double as a person does on GitHub: over its REST and GraphQL APIs,
with that person's token, so the double answers (and refuses) as GitHub would.

Each person's token is `<login>-token`; the bot's is the double's default token.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bot.errors import BotError
from tests.github_double import DEFAULT_TOKEN

RUNNING = "double.json"  # in the playground folder while its double runs: pid, address, repository
BOT = "perfbot[bot]"


def token_of(login: str) -> str:
    return DEFAULT_TOKEN if login == BOT else f"{login}-token"


@dataclass(frozen=True)
class Playground:
    """A running double: its folder, process, address and repository."""

    folder: Path
    pid: int
    api_url: str
    repository: str

    @classmethod
    def find(cls, folder: Path) -> Playground:
        try:
            found = json.loads((folder / RUNNING).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise BotError(f"no playground double runs in {folder}/ (start one with `start`)") from None
        return cls(folder, int(found["pid"]), str(found["api_url"]), str(found["repository"]))

    def call(self, login: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One REST request as `login`; GitHub's refusal (its status and message) is an error."""
        headers = {"authorization": f"token {token_of(login)}", "accept": "application/vnd.github+json"}
        url = f"{self.api_url}/repos/{self.repository}{path}"
        try:
            response = httpx.request(method, url, headers=headers, json=body, timeout=30)
        except httpx.HTTPError as error:
            raise BotError(f"the double at {self.api_url} did not answer ({error}); is it running?") from None
        if response.status_code >= 400:
            message = response.json().get("message", "") if response.content else ""
            raise BotError(f"{method} {path} as {login}: GitHub (the double) answered {response.status_code} {message}")
        return response.json() if response.content else None

    def file(self, expression: str) -> str | None:
        """A file's text at `BRANCH:PATH` on the double (None when there is no such file)."""
        owner, name = self.repository.split("/")
        query = "query($o:String!,$n:String!,$e:String!){repository(owner:$o,name:$n){object(expression:$e){...on Blob{text}}}}"
        headers = {"authorization": f"token {DEFAULT_TOKEN}"}
        variables = {"o": owner, "n": name, "e": expression}
        response = httpx.post(f"{self.api_url}/graphql", headers=headers, json={"query": query, "variables": variables})
        found = (response.json().get("data") or {}).get("repository") or {}
        blob = found.get("object")
        return None if blob is None else str(blob["text"])

    def open_pull(self, branch: str) -> int:
        """The number of the open PR from `branch` (the regeneration PR)."""
        owner = self.repository.split("/")[0]
        pulls = self.call(BOT, "GET", f"/pulls?state=open&head={owner}:{branch}")
        if not pulls:
            raise BotError(f"no open pull request from {branch}: run perfbot first (`run`)")
        return int(pulls[0]["number"])


def comment(playground: Playground, login: str, issue: int, text: str) -> str:
    made = playground.call(login, "POST", f"/issues/{issue}/comments", {"body": text})
    return f"{login} commented on #{issue} (comment {made['id']})"


def edit(playground: Playground, login: str, comment_id: int, text: str) -> str:
    playground.call(login, "PATCH", f"/issues/comments/{comment_id}", {"body": text})
    return f"{login} edited comment {comment_id}"


def merge(playground: Playground, login: str, number: int) -> str:
    merged = playground.call(login, "PUT", f"/pulls/{number}/merge", {"merge_method": "merge"})
    return f"{login} merged #{number} (merge commit {merged['sha'][:7]})"


def close(playground: Playground, login: str, number: int) -> str:
    playground.call(login, "PATCH", f"/pulls/{number}", {"state": "closed"})
    return f"{login} closed #{number}"
