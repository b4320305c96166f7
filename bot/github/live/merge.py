"""`pull_request.merge: auto` against GitHub: read the PR's merge state, then merge it or arm auto-merge.

One GraphQL read gives the PR's `mergeStateStatus`, its node id, head and auto-merge request, and
the repository's `autoMergeAllowed` and merge methods; `bot.github.merging.choose` picks the step
GitHub's rules allow. A merge is `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` with the
head `sha` perfbot wrote (GitHub answers 409 when the head moved, 405 when it cannot merge); auto-merge
is the `enablePullRequestAutoMerge` mutation with `expectedHeadOid`. GitHub refuses to arm a PR it
would merge now ("Pull request is in clean status"): its state moved between the read and the
mutation, and the PR is merged directly then.
"""

from __future__ import annotations

from typing import Any, Literal

from githubkit.exception import RequestFailed

from bot.github.live.client import Session, error_body, failure, github_details, parsed
from bot.github.live.query import query
from bot.github.merging import MergeFacts, MergeMethod, MergeOutcome, allowed_methods, choose
from bot.github.port import GitHubError
from bot.untrusted import neutral

REST_METHODS: dict[MergeMethod, Literal["merge", "squash", "rebase"]] = {
    "MERGE": "merge",
    "SQUASH": "squash",
    "REBASE": "rebase",
}
# Reads of the merge state while GitHub still computes it (`UNKNOWN`), a pause growing between.
STATE_READS = 3
STATE_PAUSE_SECONDS = 2.0

STATE_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  rateLimit { cost }
  repository(owner: $owner, name: $name) {
    autoMergeAllowed
    mergeCommitAllowed
    squashMergeAllowed
    rebaseMergeAllowed
    pullRequest(number: $number) {
      id
      headRefOid
      isDraft
      mergeStateStatus
      autoMergeRequest { enabledAt }
    }
  }
}
"""

ARM = """
mutation($id: ID!, $method: PullRequestMergeMethod!, $head: GitObjectID!) {
  enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: $method, expectedHeadOid: $head}) {
    pullRequest { autoMergeRequest { enabledAt } }
  }
}
"""


class LiveMerger:
    def __init__(self, session: Session) -> None:
        self.session = session

    def merge(self, number: int) -> MergeOutcome:
        for read in range(STATE_READS):
            if read:
                self.session.wait(STATE_PAUSE_SECONDS * read)
            pull, facts = self._facts(number)
            step = choose(facts, reads_left=STATE_READS - 1 - read)
            if step.kind != "again":
                break
        head = str(pull["headRefOid"])
        if step.kind == "auto" and step.method is not None:
            refused = self._arm(str(pull["id"]), step.method, head)
            if refused is None:
                return MergeOutcome(status="auto-merge", pull=number, method=step.method)
            if "clean status" not in refused and "unstable status" not in refused:
                return MergeOutcome(status="not-merged", pull=number, line=refused)
        if step.kind in ("merge", "auto") and step.method is not None:
            return self._merge(number, step.method, head)
        return MergeOutcome(status="not-merged", pull=number, line=step.line)

    def _facts(self, number: int) -> tuple[dict[str, Any], MergeFacts]:
        data = query(self.session, STATE_QUERY, {"number": number}, f"reading PR #{number}'s merge state")
        repository = data.get("repository") or {}
        pull = repository.get("pullRequest")
        if not isinstance(pull, dict):
            raise GitHubError(f"reading PR #{number}'s merge state: GitHub does not show the PR")
        methods = allowed_methods(
            bool(repository.get("mergeCommitAllowed")),
            bool(repository.get("squashMergeAllowed")),
            bool(repository.get("rebaseMergeAllowed")),
        )
        facts = MergeFacts(
            state=str(pull.get("mergeStateStatus") or "UNKNOWN"),
            auto_merge_allowed=bool(repository.get("autoMergeAllowed")),
            methods=methods,
            armed=pull.get("autoMergeRequest") is not None,
            draft=bool(pull.get("isDraft")),
        )
        return pull, facts

    def _arm(self, node: str, method: MergeMethod, head: str) -> str | None:
        """Turn on GitHub's auto-merge; None when it is on, else GitHub's refusal in its words."""
        try:
            query(self.session, ARM, {"id": node, "method": method, "head": head}, "turning on auto-merge")
        except GitHubError as error:
            return str(error)
        return None

    def _merge(self, number: int, method: MergeMethod, head: str) -> MergeOutcome:
        conn = self.session.conn
        try:
            parsed(
                self.session.github.rest.pulls.merge(
                    conn.owner, conn.name, number, sha=head, merge_method=REST_METHODS[method]
                )
            )
        except RequestFailed as exc:
            if exc.response.status_code in (405, 409, 422):
                said = "; ".join(github_details(exc)) or str(error_body(exc.response.raw_response).get("message", ""))
                return MergeOutcome(
                    status="not-merged", pull=number, line=f"GitHub refused the merge: {neutral(said, 300)}"
                )
            raise failure(exc, f"merging PR #{number}", self.session) from exc
        return MergeOutcome(status="merged", pull=number, method=method)
