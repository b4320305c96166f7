"""Leases: the live leases read back, and the readback file `perfbot publish-leases` commits.

**Reading.** Live leases: read a dos lane journal (JSONL), a `dos lease-lane live` array or the
readback `perfbot publish-leases` publishes (that array with its readback time), fold, judge
staleness.

The journal fold follows dos-kernel: ACQUIRE/RECONCILE add or replace a lease keyed on
(loop_ts, lane), RELEASE/SCAVENGE remove it, HEARTBEAT/ADOPT update it, CHECKPOINT resets the
set; other ops are forensic. A torn last line is ignored; a corrupt middle line (bad JSON, or
JSON past the reader's bounds, or not an object) is reported and skipped. Unknown fields are
ignored, since newer dos versions add fields; every record the fold produces is validated, so an
entry that would make a lease malformed is an error naming its line.

**Publishing.** The published lease readback: where it lives (`BRANCH:PATH`), the file `perfbot
publish-leases` commits there, and whether a new readback is worth a commit.

dos keeps its leases on the fleet host, where a job on a GitHub runner cannot see them, so the
host publishes its readback to a branch of the repository and a run reads it from there. A
commit is made when the leases differ from the published ones, never for the time alone; the
one exception is a refresh once the published readback is `readback_refresh_minutes` old, so a
fleet whose leases did not change does not look stale (`readback_max_age_minutes`) to a run.

Also open pull requests as leases, for teams without dos (`leases.sources`; its section below).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from bot.config import BotConfig, PullRequestLeases
from bot.errors import InputError, Problem, validation_problems
from bot.github.branch_file import BranchFile, branch_file
from bot.github.observed import PULL_FILES_LISTED, Observed, PullRequest, is_bot
from bot.issue_refs import ForeignIssue, IssueKey, IssueRef, parse_issue
from bot.json_input import JsonProblem, loads, parse_value
from bot.timestamps import parse_timestamp, utc_stamp

LeaseFormat = Literal["journal", "live-array", "published", "pull-requests"]
_ADD, _REMOVE = frozenset({"ACQUIRE", "RECONCILE"}), frozenset({"RELEASE", "SCAVENGE"})
# Fields dos rebuilds a lease from when an ACQUIRE entry carries no nested `lease` record.
_FLAT_FIELDS = (
    "lane",
    "lane_kind",
    "tree",
    "loop_ts",
    "host_id",
    "pid",
    "acquired_at",
    "heartbeat_at",
    "ttl_minutes",
    "holder",
    "run_id",
    "proc_starttime",
)
# Warnings shown for skipped lines; the rest are counted.
MAX_WARNINGS = 20
# Bounds far beyond anything dos writes: they keep every lease printable and its arithmetic finite.
Name = Annotated[StrictStr, Field(max_length=500)]
Stamp = Annotated[StrictStr, Field(max_length=100)]
Glob = Annotated[StrictStr, Field(max_length=1000)]


class Lease(BaseModel):
    """One live lease record; tolerant of fields newer dos versions add."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)

    lane: Name
    loop_ts: Name
    holder: Name = ""
    # 3,000: the most paths GitHub lists of one pull request, which a PR's lease carries.
    tree: tuple[Glob, ...] = Field(max_length=3000)
    acquired_at: Stamp | None = None
    heartbeat_at: Stamp | None = None
    # timedelta holds about 1.4e12 minutes; a bound well inside it keeps staleness finite.
    ttl_minutes: int | None = Field(default=None, ge=0, le=10**9)
    host_id: Name | None = None
    mode: Name | None = None
    # Set on the leases an open pull request holds (`leases.sources: [pull-requests]`), never by dos.
    pull: int | None = None
    closes: tuple[IssueRef, ...] | None = None
    pull_state: Literal["open", "merged", "closed"] | None = None
    draft: bool | None = None

    @field_validator("acquired_at", "heartbeat_at")
    @classmethod
    def _a_time(cls, text: str | None) -> str | None:
        """A time that cannot be read would make the lease never stale: refused, as dos writes ISO-8601."""
        if text is not None and parse_timestamp(text) is None:
            raise ValueError(f"{text[:40]!r} is not an ISO-8601 time")
        return text

    @property
    def key(self) -> tuple[str, str]:
        return (self.loop_ts, self.lane)

    def issue(self, pattern: str) -> IssueKey | None:
        """The issue this lease is held for, by the holder-tag convention (e.g. `issue-9420-…`,
        or, with a pattern whose group takes it, `owner/repo#N` for another repository's); a pull
        request's, the first issue it closes."""
        if self.pull is not None:
            return self.closes[0] if self.closes else None
        match = re.search(pattern, self.holder)
        written = match.group(1) if match and match.groups() else None
        if written and written.isdigit():
            return int(written) if len(written) <= 18 else None
        return _reference(written) if written else None

    def issues(self, pattern: str) -> tuple[IssueKey, ...]:
        """Every issue the lease is held for: a pull request's are the issues it closes."""
        if self.pull is not None:
            return self.closes or ()
        found = self.issue(pattern)
        return () if found is None else (found,)

    def last_seen(self) -> dt.datetime | None:
        stamps = [s for s in (_stamp(self.heartbeat_at), _stamp(self.acquired_at)) if s is not None]
        return max(stamps) if stamps else None

    def is_stale(self, now: dt.datetime, default_ttl: int, grace: int) -> bool:
        seen = self.last_seen()
        if seen is None:
            return False
        ttl = self.ttl_minutes if self.ttl_minutes is not None else default_ttl
        return now - seen > dt.timedelta(minutes=ttl + grace)

    def describe(self) -> str:
        """One bounded line: long holders and trees are cut, so no lease can flood a comment. A pull
        request's names the PR and its author (its paths are many, and shown where they meet)."""
        if self.pull is not None:
            return self.describe_pull()
        tree = ", ".join(_cut(glob, 120) for glob in self.tree[:5])
        more = f" and {len(self.tree) - 5} more" if len(self.tree) > 5 else ""
        return f"{_cut(self.lane, 80)} lease of {_cut(self.holder, 120) or 'an unnamed holder'} on {tree}{more}"

    def describe_pull(self) -> str:
        draft = " (draft)" if self.draft else ""
        ended = {"merged": ", merged", "closed": ", closed unmerged"}.get(self.pull_state or "", "")
        return f"PR #{self.pull}{draft} by {_cut(self.holder, 120) or 'an unknown author'}{ended}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LeaseReadback(NamedTuple):
    """The live set, the leases released in the journal, and what was skipped while reading."""

    file: str
    format: LeaseFormat
    live: tuple[Lease, ...]
    released: tuple[Lease, ...] = ()
    warnings: tuple[str, ...] = ()
    # When the leases were read back on the fleet host; only a published readback carries it.
    readback_at: dt.datetime | None = None

    def stale(self, now: dt.datetime, default_ttl: int, grace: int) -> tuple[Lease, ...]:
        return tuple(lease for lease in self.live if lease.is_stale(now, default_ttl, grace))


def _stamp(text: str | None) -> dt.datetime | None:
    return parse_timestamp(text) if text else None


class PublishedReadback(BaseModel):
    """The file `perfbot publish-leases` writes: the live set and when it was read back."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    readback_at: AwareDatetime
    source: Literal["journal", "live-array"]
    leases: list[Any]


def detect_format(text: str) -> LeaseFormat:
    """An array is dos's live set; one JSON object with `leases` (and no journal `op`) is a
    published readback; anything else is read as a journal, line by line."""
    start = text.lstrip()[:1]
    if start == "[":
        return "live-array"
    if start == "{":
        try:
            whole = loads(text)
        except JsonProblem:
            return "journal"  # several lines of JSONL, or a torn file: the journal reader says which
        if isinstance(whole, dict) and "leases" in whole and "op" not in whole:
            return "published"
    return "journal"


def parse_leases(text: str, file: str) -> LeaseReadback:
    """Read any lease format; garbage and empty trees are errors naming file and line. A byte order
    mark at the start (a Windows editor's, or PowerShell's redirection) is not part of the JSON."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return LeaseReadback(file, "journal", (), warnings=(f"{file}: the lease file is empty: no live leases",))
    found = detect_format(text)
    if found == "live-array":
        return _parse_array(text, file)
    if found == "published":
        return _parse_published(text, file)
    return _parse_journal(text, file)


def _parse_published(text: str, file: str) -> LeaseReadback:
    data = parse_value(text, file, "not a published readback", syntax_label="not a published readback")
    try:
        published = PublishedReadback.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file, lambda loc: (1, 1), "published readback: ")[:1]) from exc
    lines = _element_lines(text, len(published.leases), depth=3)
    leases = tuple(_lease(item, file, lines[i], f"lease {i + 1}") for i, item in enumerate(published.leases))
    return LeaseReadback(file, "published", leases, readback_at=published.readback_at)


def _parse_array(text: str, file: str) -> LeaseReadback:
    data = parse_value(text, file, "not a lease array", syntax_label="not a lease array")
    if not isinstance(data, list):
        raise InputError([Problem(file, 1, 1, "expected a JSON array of leases")])
    lines = _element_lines(text, len(data))
    leases = tuple(_lease(item, file, lines[i], f"lease {i + 1}") for i, item in enumerate(data))
    return LeaseReadback(file, "live-array", leases)


_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}\n]', re.DOTALL)


def _element_lines(text: str, count: int, depth: int = 2) -> list[int]:
    """Best-effort line of each lease object, `depth` brackets deep (for messages); brackets in strings
    are skipped."""
    lines, level, line = [], 0, 1
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token[0] == '"':
            line += token.count("\n")
        elif token in "[{":
            level += 1
            if level == depth and token == "{":
                lines.append(line)
        else:
            level -= 1
    return (lines + [1] * count)[:count]


def _parse_journal(text: str, file: str) -> LeaseReadback:
    entries: list[tuple[int, dict[str, Any]]] = []
    skipped: list[str] = []
    # Only `\n` ends a journal line: JSON strings may hold U+2028 and the like, which `splitlines` splits on.
    numbered = [(n, raw) for n, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    for position, (number, raw) in enumerate(numbered):
        try:
            entry = loads(raw)
        except JsonProblem:
            torn = position == len(numbered) - 1 and entries
            skipped.append(f"{file}:{number}: {'torn last line ignored' if torn else 'corrupt journal line skipped'}")
            continue
        if not isinstance(entry, dict):
            skipped.append(f"{file}:{number}: corrupt journal line skipped")
            continue
        entries.append((number, entry))
    if numbered and not any("op" in entry for _, entry in entries):
        message = "not a dos lane journal, a lease array or a published readback"
        raise InputError([Problem(file, numbered[0][0], 1, message)])
    live, released = _fold(entries, file)
    warnings = skipped[:MAX_WARNINGS]
    if len(skipped) > MAX_WARNINGS:
        warnings.append(f"{file}: … and {len(skipped) - MAX_WARNINGS} more lines skipped")
    return LeaseReadback(file, "journal", tuple(live.values()), tuple(released), tuple(warnings))


def _fold(entries: list[tuple[int, dict[str, Any]]], file: str) -> tuple[dict[tuple[str, str], Lease], list[Lease]]:
    live: dict[tuple[str, str], Lease] = {}
    released: list[Lease] = []
    for number, entry in entries:
        op = entry.get("op")
        if not isinstance(op, str):
            continue  # an op dos does not write, like the forensic ones
        if op == "CHECKPOINT":
            snapshot = entry.get("leases") or []
            if not isinstance(snapshot, list):
                raise InputError([Problem(file, number, 1, "CHECKPOINT entry: leases must be a list of leases")])
            leases = [_lease(item, file, number, "checkpoint lease") for item in snapshot]
            live = {lease.key: lease for lease in leases}
            continue
        key = (str(entry.get("loop_ts") or ""), str(entry.get("lane") or ""))
        if key == ("", ""):
            continue
        if op in _ADD:
            record = entry.get("lease")
            if not isinstance(record, dict):
                record = {k: entry[k] for k in _FLAT_FIELDS if k in entry}
            lease = _lease(record, file, number, f"{op} entry")
            live[lease.key] = lease
        elif op in _REMOVE and key in live:
            released.append(live.pop(key))
        elif op in ("HEARTBEAT", "ADOPT") and key in live:
            update = {k: entry[k] for k in ("holder", "host_id") if op == "ADOPT" and entry.get(k) is not None}
            update["heartbeat_at"] = entry.get("heartbeat_at") or entry.get("ts")
            live[key] = _lease({**live[key].model_dump(), **update}, file, number, f"{op} entry")
    return live, released


def _lease(record: Any, file: str, line: int, what: str) -> Lease:
    if not isinstance(record, dict):
        raise InputError([Problem(file, line, 1, f"{what} is not a JSON object")])
    try:
        lease = Lease.model_validate(record)
    except ValidationError as exc:
        problems = validation_problems(exc, file, lambda loc: (line, 1), f"{what}: ")
        raise InputError(problems[:1]) from exc
    if not lease.tree or any(not glob.strip() for glob in lease.tree):
        raise InputError([Problem(file, line, 1, f"{what} ({lease.lane}) has an empty path list")])
    return lease


DEFAULT_TARGET = "perfbot/leases:leases.json"
Reason = Literal["first", "changed", "refresh", "replaced"]


def target(text: str | None) -> BranchFile:
    """Where `publish-leases` writes: `text` (the config's `leases` or `--to`) when it names a branch
    file, else the default `perfbot/leases:leases.json`."""
    found = branch_file(text) if text else None
    if found is not None:
        return found
    default = branch_file(DEFAULT_TARGET)
    assert default is not None
    return default


def published_text(readback: LeaseReadback, at: dt.datetime) -> str:
    """The published file: the live leases (the fields perfbot reads) and when they were read back."""
    record = {
        "readback_at": utc_stamp(at),
        "source": "journal" if readback.format == "journal" else "live-array",
        "leases": [lease.model_dump(mode="json", exclude_none=True) for lease in readback.live],
    }
    return json.dumps(record, indent=2) + "\n"


def _same(one: tuple[Lease, ...], other: tuple[Lease, ...]) -> bool:
    """The same set of leases, in any order (a heartbeat is a change: it keeps a lease from going stale)."""
    return sorted(x.model_dump_json() for x in one) == sorted(x.model_dump_json() for x in other)


class Decision(NamedTuple):
    """What to publish: `reason` None means the published readback already says it all."""

    text: str
    reason: Reason | None
    previous_at: dt.datetime | None = None


def decide(
    current: str | None, readback: LeaseReadback, now: dt.datetime, refresh_minutes: int, where: str
) -> Decision:
    """Compare the leases, not the time: a rerun with the same leases writes nothing until the
    published readback is `refresh_minutes` old."""
    text = published_text(readback, now)
    if current is None:
        return Decision(text, "first")
    try:
        before = parse_leases(current, where)
    except InputError:
        return Decision(text, "replaced")
    if before.readback_at is None:
        return Decision(text, "replaced")
    if not _same(before.live, readback.live):
        return Decision(text, "changed", before.readback_at)
    if now - before.readback_at >= dt.timedelta(minutes=refresh_minutes):
        return Decision(text, "refresh", before.readback_at)
    return Decision(text, None, before.readback_at)


# ------------------------------------------------------------------------------------------------
# Open pull requests as leases, for teams without dos (`leases.sources: [pull-requests]`).
#
# An open pull request is a claim on the paths it changes, held by its author, live while it is
# open, with its last push as heartbeat; the issues it closes (GitHub's closing references) are the
# issues it is held for, so a packet whose issue an open PR closes is running. A merged or closed
# PR is a released lease, named for `released_days`.
#
# Some pull requests claim nothing: perfbot's own regeneration PR (its files are perfbot's), a PR
# from the branch the lease readback is published to, a bot's (Dependabot, Renovate, an App's;
# unless `bots`), a draft when `drafts` is off, and whatever a PR changes of perfbot's own files
# (the snapshot, the page, the lease file, the config): editing them is bookkeeping, not work on
# a packet's paths. A PR that changes more files than GitHub lists claims `**`, and the plan says so.

# The readback's name when no lease file is read: every lease comes from a pull request.
PULL_REQUESTS = "open pull requests"
EVERYWHERE = "**"
LONGEST_GLOB = 1000  # a lease's bound; a longer path is cut, which widens its claim (fail closed)


def with_pull_leases(
    readback: LeaseReadback,
    observed: Observed,
    rules: PullRequestLeases,
    config: BotConfig,
    now: dt.datetime,
    own_files: Iterable[str] = (),
) -> LeaseReadback:
    """The readback with the open pull requests' leases added, and the recently closed ones as released."""
    own = {config.snapshot, config.page, *own_files}
    if config.lease_file:
        own.add(config.lease_file)
    live: list[Lease] = []
    released: list[Lease] = []
    warnings: list[str] = []
    for pull in sorted(observed.pulls, key=lambda p: p.number):
        if not counts(pull, observed, rules, config):
            continue
        tree, warning = claimed(pull, own)
        if not tree:
            continue
        if warning:
            warnings.append(warning)
        lease = lease_of(pull, tree, rules)
        if pull.state == "open":
            live.append(lease)
        elif pull.closed_at is None or now - pull.closed_at <= dt.timedelta(days=rules.released_days):
            released.append(lease)
    return readback._replace(
        live=(*readback.live, *live),
        released=(*readback.released, *released),
        warnings=(*readback.warnings, *warnings[:20]),
    )


def counts(pull: PullRequest, observed: Observed, rules: PullRequestLeases, config: BotConfig) -> bool:
    """Whether a pull request is a claim on the paths it changes (see the module's docstring)."""
    own_branch = not observed.from_fork(pull)
    if own_branch and pull.head in (config.pull_request.branch, target(config.lease_file).branch):
        return False
    if not rules.bots and is_bot(pull.user, pull.user_type, observed.bot_login):
        return False
    return rules.drafts or not pull.draft


def claimed(pull: PullRequest, own: set[str]) -> tuple[tuple[str, ...], str]:
    """The paths a pull request claims, and a warning when GitHub lists fewer than it changes."""
    listed = len(pull.paths)
    total = pull.changed_files if pull.changed_files is not None else listed
    if total > PULL_FILES_LISTED and total > listed:
        warning = (
            f"PR #{pull.number} changes {total:,} files, more than GitHub lists ({PULL_FILES_LISTED:,}): "
            f"it is taken to claim every path (`{EVERYWHERE}`)"
        )
        return (EVERYWHERE,), warning
    paths = dict.fromkeys(path[:LONGEST_GLOB] for path in pull.paths if path.strip() and path not in own)
    return tuple(paths), ""


def _reference(written: str) -> ForeignIssue | None:
    """Another repository's issue a holder tag names (`owner/repo#N`, its URL), else None."""
    try:
        found = parse_issue(written)
    except ValueError:
        return None
    return found if isinstance(found, ForeignIssue) else None


def lease_of(pull: PullRequest, tree: tuple[str, ...], rules: PullRequestLeases) -> Lease:
    state = "open" if pull.state == "open" else pull.state
    return Lease(
        lane=f"PR #{pull.number}",
        loop_ts=f"pull-{pull.number}",
        holder=pull.user[:500],
        tree=tree,
        heartbeat_at=utc_stamp(pull.pushed_at) if pull.pushed_at else None,
        ttl_minutes=rules.ttl_days * 24 * 60,
        pull=pull.number,
        closes=tuple(dict.fromkeys(pull.closes)),
        pull_state=state,
        draft=pull.draft,
    )
