"""`pull_request.merge: auto`'s choice (bot.github.actions): the one step GitHub's rules allow."""

from __future__ import annotations

import pytest

from bot.github.actions import AUTO_MERGE_SETTING, MergeFacts, MergeOutcome, allowed_methods, choose

ALL = allowed_methods(True, True, True)


def facts(state: str, allowed: bool = False, armed: bool = False, methods: tuple[str, ...] = ALL) -> MergeFacts:
    return MergeFacts(state=state, auto_merge_allowed=allowed, methods=methods, armed=armed)  # type: ignore[arg-type]


@pytest.mark.parametrize("state", ["CLEAN", "HAS_HOOKS", "UNSTABLE"])
def test_a_pr_github_merges_now_is_merged_never_armed(state: str) -> None:
    # GitHub refuses auto-merge on these ("Pull request is in clean status"), allowed or not.
    assert choose(facts(state, allowed=True), reads_left=2) == ("merge", "MERGE", "")


def test_blocked_arms_githubs_auto_merge_where_allowed_else_says_why() -> None:
    assert choose(facts("BLOCKED", allowed=True), reads_left=0) == ("auto", "MERGE", "")
    step = choose(facts("BLOCKED"), reads_left=0)
    assert (step.kind, step.method) == ("none", None)
    assert AUTO_MERGE_SETTING in step.line
    armed = choose(facts("BLOCKED", allowed=True, armed=True), reads_left=0)
    assert (armed.kind, "on already" in armed.line) == ("none", True)


def test_unknown_is_read_again_then_tried() -> None:
    assert choose(facts("UNKNOWN", allowed=True), reads_left=1).kind == "again"
    assert choose(facts("UNKNOWN", allowed=True), reads_left=0).kind == "auto"
    assert choose(facts("UNKNOWN"), reads_left=0).kind == "merge"


@pytest.mark.parametrize(("state", "said"), [("BEHIND", "behind"), ("DIRTY", "conflicts"), ("DRAFT", "DRAFT")])
def test_neither_is_allowed_for_a_pr_behind_in_conflict_or_unknown_to_us(state: str, said: str) -> None:
    step = choose(facts(state, allowed=True), reads_left=0)
    assert step.kind == "none"
    assert said in step.line


def test_the_method_is_the_first_the_repository_allows() -> None:
    assert allowed_methods(False, True, True) == ("SQUASH", "REBASE")
    assert choose(facts("CLEAN", methods=("REBASE",)), reads_left=0).method == "REBASE"
    assert choose(facts("CLEAN", methods=()), reads_left=0).kind == "none"
    draft = MergeFacts(state="CLEAN", auto_merge_allowed=True, methods=ALL, armed=False, draft=True)
    assert choose(draft, reads_left=0).kind == "none"


def test_the_outcome_in_one_line() -> None:
    assert MergeOutcome(status="merged", pull=7, method="SQUASH").said() == "merged PR #7 (squash)"
    assert "auto-merge for PR #7" in MergeOutcome(status="auto-merge", pull=7, method="MERGE").said()
    assert MergeOutcome(status="not-merged", pull=7, line="why").said() == "PR #7 not merged: why"
