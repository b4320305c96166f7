"""Issue references: `#N` here, `owner/repo#N` or an issue URL elsewhere; what each form means,
what is refused, and how references sort, print and serialise."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from bot.issue_refs import (
    ForeignIssue,
    IssueKey,
    IssueRef,
    first_issue,
    issue_json,
    issue_text,
    localised,
    parse_issue,
    ref_seen_from,
    seen_from,
    sorted_issues,
)


class Holder(BaseModel):
    issue: IssueRef


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        (9420, 9420),
        ("9420", 9420),
        ("#9420", 9420),
        ("acme/kernel#12", ForeignIssue.of("acme/kernel", 12)),
        ("Acme/Kernel#12", ForeignIssue.of("acme/kernel", 12)),
        ("https://github.com/acme/kernel/issues/12", ForeignIssue.of("acme/kernel", 12)),
        ("https://github.com/acme/kernel.py/issues/12/", ForeignIssue.of("acme/kernel.py", 12)),
        ("my-org/a_b.c-d#1", ForeignIssue.of("my-org/a_b.c-d", 1)),
    ],
)
def test_each_written_form_names_its_issue(written: object, meant: object) -> None:
    assert parse_issue(written) == meant
    assert Holder.model_validate({"issue": written}).issue == meant


@pytest.mark.parametrize(
    "written",
    [
        True,
        1.0,
        "kernel#12",
        "acme/kernel#0",
        "acme/kernel#",
        "acme/kernel",
        "-acme/kernel#1",
        "acme--x/kernel#1",
        "acme/..#1",
        "https://github.com/acme/kernel/pull/12",
        "https://example.com/acme/kernel/issues/12",
        "acme/kernel#12 ",
        "acme/kernel#99999999999",
        [12],
    ],
)
def test_anything_else_is_refused_with_the_forms_it_may_take(written: object) -> None:
    with pytest.raises(ValidationError, match=r"is not an issue.*owner/repo#N"):
        Holder.model_validate({"issue": written})


def test_repositories_match_ignoring_case_and_print_as_written() -> None:
    upper, lower = ForeignIssue.of("Acme/Kernel", 12), ForeignIssue.of("acme/kernel", 12)
    assert upper == lower
    assert hash(upper) == hash(lower)
    assert issue_text(upper) == "Acme/Kernel#12"
    assert issue_text(12) == "#12"
    assert Holder.model_validate({"issue": "Acme/Kernel#12"}).model_dump() == {"issue": "Acme/Kernel#12"}
    assert Holder(issue=12).model_dump_json() == '{"issue":12}'
    assert issue_json(upper) == "Acme/Kernel#12"
    assert issue_json(12) == 12


def test_the_bots_own_issues_sort_first_by_number_then_each_repository() -> None:
    keys: list[IssueKey] = [ForeignIssue.of("b/x", 2), 30, ForeignIssue.of("a/y", 9), 4, ForeignIssue.of("b/x", 1)]
    assert [issue_text(k) for k in sorted_issues(keys)] == ["#4", "#30", "a/y#9", "b/x#1", "b/x#2"]


def test_a_reference_to_the_bots_own_repository_is_its_number() -> None:
    assert localised(ForeignIssue.of("Acme/Perf", 5), "acme/perf") == 5
    assert localised(ForeignIssue.of("acme/other", 5), "acme/perf") == ForeignIssue.of("acme/other", 5)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("issue #8324", 8324),
        ("leaves #9495/#9497 and #9498", 9495),
        ("kernel owner; acme/kernel#12 then #5", ForeignIssue.of("acme/kernel", 12)),
        ("see https://github.com/acme/kernel/issues/3 and #4", ForeignIssue.of("acme/kernel", 3)),
        ("no reference here", None),
    ],
)
def test_the_first_issue_of_free_text_is_the_leftmost_reference(text: str, first: object) -> None:
    assert first_issue(text) == first


@given(
    st.integers(min_value=1, max_value=2**31 - 1),
    st.from_regex(r"[a-z][a-z0-9]{0,8}/[a-z][a-z0-9._-]{0,8}", fullmatch=True),
)
def test_every_printed_reference_reads_back_as_itself(number: int, repository: str) -> None:
    key = ForeignIssue.of(repository, number)
    assert parse_issue(issue_text(key)) == key
    assert parse_issue(issue_text(number)) == number
    assert parse_issue(issue_json(key)) == key


@pytest.mark.parametrize(
    ("written", "where", "meant"),
    [
        (3, ForeignIssue.of("acme/kernel", 12), ForeignIssue.of("acme/kernel", 3)),
        (3, 9420, 3),
        (ForeignIssue.of("acme/bench", 3), ForeignIssue.of("acme/kernel", 12), ForeignIssue.of("acme/bench", 3)),
        (ForeignIssue.of("acme/bench", 3), 9420, ForeignIssue.of("acme/bench", 3)),
    ],
)
def test_a_number_written_on_another_repositorys_issue_is_that_repositorys(
    written: IssueKey, where: IssueKey, meant: IssueKey
) -> None:
    assert seen_from(written, where) == meant


@pytest.mark.parametrize(
    ("written", "where", "kept"),
    [
        ("#4", ForeignIssue.of("acme/kernel", 12), "acme/kernel#4"),
        ("#4", 9420, "#4"),
        ("acme/bench#5", ForeignIssue.of("acme/kernel", 12), "acme/bench#5"),
        ("see #4", ForeignIssue.of("acme/kernel", 12), "see #4"),
        ("4", ForeignIssue.of("acme/kernel", 12), "4"),
    ],
)
def test_a_free_text_reference_alone_is_the_issue_github_links_where_it_was_written(
    written: str, where: IssueKey, kept: str
) -> None:
    assert ref_seen_from(written, where) == kept
