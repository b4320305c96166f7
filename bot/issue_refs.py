"""Issue references: `#N` (or `N`) in the bot's own repository, `owner/repo#N` or GitHub's issue URL elsewhere.

An issue of the bot's own repository is its number, an `int`, as it always was: the seed and every
single-repository snapshot, state file and plan read and print exactly as before. An issue of another
repository is a `ForeignIssue`, written `owner/repo#N`. GitHub's names are case-insensitive
(`Acme/Kernel` is `acme/kernel`), so two references are the same issue when their repositories match
ignoring case; each keeps the spelling it was written in for display.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator, PlainSerializer, PlainValidator, WithJsonSchema

from bot.untrusted import echo

# GitHub's rules: an owner is 1-39 letters, digits and single inner hyphens; a repository name is
# letters, digits, `.`, `_` and `-` (at most 100), and never `.` or `..` alone.
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
_NAME = r"(?!\.\.?(?:[#/]|$))[A-Za-z0-9._-]{1,100}"
REPOSITORY = re.compile(f"({_OWNER})/({_NAME})")
_NUMBER = r"[1-9][0-9]{0,9}"
_SHORT = re.compile(f"#?({_NUMBER})")
_QUALIFIED = re.compile(f"({_OWNER}/{_NAME})#({_NUMBER})")
_URL = re.compile(f"https://(?:www\\.)?github\\.com/({_OWNER}/{_NAME})/issues/({_NUMBER})/?")
# What the schema tells an editor: a positive integer, or one of the written forms.
PATTERN = f"^(#?{_NUMBER}|{_OWNER}/[A-Za-z0-9._-]{{1,100}}#{_NUMBER}|https://(www\\.)?github\\.com/{_OWNER}/[A-Za-z0-9._-]{{1,100}}/issues/{_NUMBER}/?)$"
FORMS = "an issue number (`N` or `#N`, this repository), `owner/repo#N`, or `https://github.com/owner/repo/issues/N`"
MAX_NUMBER = 2**31 - 1  # GitHub's issue numbers are GraphQL `Int`s


@dataclass(frozen=True, order=True)
class ForeignIssue:
    """An issue of another repository than the bot's own: `owner/repo#N`."""

    key: str = field(repr=False)  # the repository, case folded: what equality and order compare
    number: int
    repository: str = field(compare=False)  # as written, for display

    @classmethod
    def of(cls, repository: str, number: int) -> ForeignIssue:
        return cls(repository.casefold(), number, repository)

    def __str__(self) -> str:
        return f"{self.repository}#{self.number}"


def owner_and_name(repository: str) -> tuple[str, str]:
    """`owner/name` as its two parts (a `ForeignIssue`'s repository always has both)."""
    owner, _, name = repository.partition("/")
    return owner, name


IssueKey = int | ForeignIssue


def parse_issue(value: object) -> IssueKey:
    """A reference as written in a file: a positive int, `#N`, `owner/repo#N` or an issue URL."""
    if isinstance(value, ForeignIssue):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # its range is checked with the record's other invariants, as it always was
    if isinstance(value, str):
        short = _SHORT.fullmatch(value)
        if short:
            return _number(short.group(1))
        for form in (_QUALIFIED, _URL):
            match = form.fullmatch(value)
            if match:
                return ForeignIssue.of(match.group(1), _number(match.group(2)))
    raise ValueError(f"{echo(value)} is not an issue: write {FORMS}")


# A reference inside free text (an owner field): an issue URL, `owner/repo#N` not inside a longer
# path, or `#N`; the leftmost wins.
_IN_TEXT = re.compile(
    f"https://(?:www\\.)?github\\.com/({_OWNER}/{_NAME})/issues/({_NUMBER})\\b"
    f"|(?<![\\w./-])({_OWNER}/{_NAME})#({_NUMBER})\\b"
    r"|#(\d+)"
)


def first_issue(text: str) -> IssueKey | None:
    """The first issue reference in free text, or None."""
    match = _IN_TEXT.search(text)
    if match is None:
        return None
    url_repository, url_number, repository, number, own = match.groups()
    if own is not None:
        return int(own)
    return ForeignIssue.of(url_repository or repository, int(url_number or number))


def _number(text: str) -> int:
    number = int(text)
    if number > MAX_NUMBER:
        raise ValueError(f"issue {number} is not an issue number GitHub gives")
    return number


def issue_text(issue: IssueKey) -> str:
    """`#N` for the bot's own repository, `owner/repo#N` for another (both link on GitHub)."""
    return f"#{issue}" if isinstance(issue, int) else str(issue)


def issue_order(issue: IssueKey) -> tuple[str, int]:
    """Sort key: the bot's own repository's issues first, by number, then each other repository's."""
    return ("", issue) if isinstance(issue, int) else (issue.key, issue.number)


def sorted_issues(issues: Iterable[IssueKey]) -> list[IssueKey]:
    return sorted(issues, key=issue_order)


def number_of(issue: IssueKey) -> int:
    return issue if isinstance(issue, int) else issue.number


def repository_of(issue: IssueKey) -> str | None:
    """The other repository an issue is in (`owner/name`), or None for the bot's own."""
    return None if isinstance(issue, int) else issue.repository


def in_repository(repository: str | None, number: int) -> IssueKey:
    """The key of issue `number` of `repository` (None: the bot's own)."""
    return number if repository is None else ForeignIssue.of(repository, number)


def localised(issue: IssueKey, own: str) -> IssueKey:
    """`issue`, as the bot's own number when it names the bot's own repository as `owner/repo#N`."""
    if isinstance(issue, ForeignIssue) and issue.key == own.casefold():
        return issue.number
    return issue


def seen_from(issue: IssueKey, where: IssueKey) -> IssueKey:
    """`issue` as written on issue `where`: `#N` on another repository's issue is that repository's
    issue N, as GitHub links it there."""
    if isinstance(issue, int) and isinstance(where, ForeignIssue):
        return ForeignIssue.of(where.repository, issue)
    return issue


_OWN_REFERENCE = re.compile(f"#{_NUMBER}")


def ref_seen_from(text: str, where: IssueKey) -> str:
    """A free-text reference (an evidence `ref`) as written on issue `where`: `#N` alone on another
    repository's issue is `owner/repo#N`, the issue GitHub links it to there; other text is kept."""
    if isinstance(where, ForeignIssue) and _OWN_REFERENCE.fullmatch(text):
        return f"{where.repository}{text}"
    return text


def _serialised(issue: IssueKey) -> int | str:
    return issue if isinstance(issue, int) else str(issue)


# The field type of every issue reference in perfbot's files (the snapshot, the state file, the
# plan): read from any written form, written back as an int (this repository) or `owner/repo#N`.
IssueRef = Annotated[
    IssueKey,
    PlainValidator(parse_issue),
    PlainSerializer(_serialised, return_type=int | str),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": PATTERN},
            ],
            "description": f"The issue: {FORMS}.",
        }
    ),
]


def not_a_number(issue: IssueKey) -> bool:
    """Whether a reference to this repository names no issue GitHub could give (0 or less)."""
    return isinstance(issue, int) and issue <= 0


def _positive(issue: IssueKey) -> IssueKey:
    if isinstance(issue, int) and issue <= 0:
        raise ValueError(f"issue {issue} is not an issue number (1 or more)")
    return issue


# The same, for what GitHub (or a state file standing in for it) says: a number is always > 0.
GitHubIssueRef = Annotated[IssueRef, AfterValidator(_positive)]


def issue_json(issue: IssueKey) -> Any:
    """The JSON value of a reference (an int, or `owner/repo#N`)."""
    return _serialised(issue)
