"""`repository_dispatch`: the one request that starts a workflow run with any token.

GitHub's Actions docs ("Triggering a workflow from a workflow"): events triggered by the
GITHUB_TOKEN, with the exception of `workflow_dispatch` and `repository_dispatch`, start no
workflow run. GitHub starts the default branch's workflows that list the event type. Sent again
after a lost answer, a dispatch starts a second run, which finds its work done; so it is sent once.
"""

from __future__ import annotations

from githubkit.exception import GitHubException

from bot.github.live.client import Session, failure

# The permission the endpoint needs ("Create a repository dispatch event").
NEEDS = "contents: write"


def send(session: Session, event_type: str, payload: dict[str, str]) -> None:
    conn = session.conn
    try:
        session.github.rest.repos.create_dispatch_event(
            conn.owner, conn.name, event_type=event_type, client_payload=payload
        )
    except GitHubException as exc:
        raise failure(exc, f"sending repository_dispatch {event_type}", session, needs=NEEDS) from exc
