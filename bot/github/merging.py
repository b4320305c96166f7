"""How the regeneration PR merges itself (`pull_request.merge: auto`): GitHub's rules as a pure choice.

GitHub's own merge rules decide, read from the PR's `mergeStateStatus` (GraphQL, "Detailed
information about the current pull request merge state status") and the repository's settings:

- `CLEAN` ("mergeable and passing commit status"), `HAS_HOOKS` and `UNSTABLE` ("mergeable with
  non-passing commit status": a check that is not required failed): GitHub merges it now, so
  perfbot merges it directly (`PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge` with the head
  `sha` it wrote). GitHub refuses to arm auto-merge on such a PR ("Pull request is in clean
  status"): there is nothing to wait for.
- `BLOCKED` ("the merge is blocked": a required check has not passed, or a required review is
  missing): GitHub's native auto-merge (`enablePullRequestAutoMerge`, with `expectedHeadOid`)
  merges it once the requirements are met, when the repository allows auto-merge
  (`autoMergeAllowed`). A PR opened with Actions' `GITHUB_TOKEN` starts no workflow, so its
  required checks never run and it waits until a person pushes, re-runs or merges; a GitHub App's
  token starts them (docs/reference.md, *A PR that merges itself*).
- `BEHIND` (the branch must be up to date with its base), `DIRTY` (conflicts) and a draft: neither
  is allowed; the next run rebuilds the PR on the new tip.
- `UNKNOWN` ("the state cannot currently be determined": GitHub computes mergeability after a
  push): read again after a pause, a few times; then auto-merge is tried when allowed, else a
  direct merge, and GitHub's refusal is the line said.

The merge method is the first the repository allows of merge commit, squash and rebase.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

MergeMethod = Literal["MERGE", "SQUASH", "REBASE"]
METHODS: tuple[MergeMethod, ...] = ("MERGE", "SQUASH", "REBASE")
# Mergeable now: GitHub merges these directly, and refuses to arm auto-merge on them.
MERGEABLE_NOW = frozenset({"CLEAN", "HAS_HOOKS", "UNSTABLE"})
# Where GitHub's setting lives, for the line said when auto-merge would be needed.
AUTO_MERGE_SETTING = "Settings → General → Pull Requests → Allow auto-merge"


class MergeFacts(NamedTuple):
    """What GitHub says of the PR and its repository, read just after perfbot wrote the PR."""

    state: str  # mergeStateStatus
    auto_merge_allowed: bool
    methods: tuple[MergeMethod, ...]  # those the repository allows, in METHODS' order
    armed: bool  # auto-merge is enabled on it already
    draft: bool = False


class MergeStep(NamedTuple):
    """What to do: merge now, arm GitHub's auto-merge, wait and read again, or nothing (`line` says why)."""

    kind: Literal["merge", "auto", "again", "none"]
    method: MergeMethod | None = None
    line: str = ""


class MergeOutcome(BaseModel):
    """What `merge: auto` did with the PR: merged it, turned on auto-merge, or neither (`line`: why)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Literal["merged", "auto-merge", "not-merged"]
    pull: int
    method: MergeMethod | None = None
    line: str = ""

    def said(self) -> str:
        """The outcome in one line, for the run's log and the job summary."""
        how = {"MERGE": "a merge commit", "SQUASH": "squash", "REBASE": "rebase"}.get(self.method or "", "")
        if self.status == "merged":
            return f"merged PR #{self.pull} ({how})"
        if self.status == "auto-merge":
            return f"turned on auto-merge for PR #{self.pull} ({how}): GitHub merges it when its required checks pass"
        return f"PR #{self.pull} not merged: {self.line}"


def choose(facts: MergeFacts, reads_left: int) -> MergeStep:
    """The one step GitHub's rules allow for a PR in `facts` (see the module's docstring)."""
    if not facts.methods:
        return MergeStep("none", line="the repository allows no merge method")
    method = facts.methods[0]
    if facts.draft:
        return MergeStep("none", line="it is a draft")
    if facts.state in MERGEABLE_NOW:
        return MergeStep("merge", method)
    if facts.state == "UNKNOWN" and reads_left > 0:
        return MergeStep("again")
    if facts.state in ("BLOCKED", "UNKNOWN"):
        if facts.armed:
            return MergeStep("none", line="auto-merge is on already: GitHub merges it when its requirements are met")
        if facts.auto_merge_allowed:
            return MergeStep("auto", method)
        if facts.state == "UNKNOWN":
            return MergeStep("merge", method)
        return MergeStep(
            "none",
            line="the default branch requires checks or reviews it has not passed, and the repository does not "
            f"allow auto-merge ({AUTO_MERGE_SETTING})",
        )
    if facts.state == "BEHIND":
        return MergeStep("none", line="the default branch requires it to be up to date, and it is behind")
    if facts.state == "DIRTY":
        return MergeStep("none", line="it conflicts with the default branch")
    return MergeStep("none", line=f"GitHub gives its merge state as {facts.state}")


def allowed_methods(merge_commit: bool, squash: bool, rebase: bool) -> tuple[MergeMethod, ...]:
    flags = {"MERGE": merge_commit, "SQUASH": squash, "REBASE": rebase}
    return tuple(method for method in METHODS if flags[method])
