"""Gather: read every input a run decides on, validated, before anything is decided.

When GitHub reports the default branch's tip, the run decides on the tip's files wherever they
differ from the local checkout (a push landed after the checkout, or perfbot runs on another
branch), and the plan says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from bot.commands.pipeline import authors_to_check
from bot.config import Settings
from bot.errors import BotError, input_error
from bot.evidence.leases import PULL_REQUESTS, LeaseReadback, parse_leases, with_pull_leases
from bot.files import read_text
from bot.github.actions import TipReport
from bot.github.branch_file import BranchFile, branch_file
from bot.github.observed import Observed
from bot.github.port import Author, ReadScope
from bot.issue_refs import IssueKey, not_a_number
from bot.reconcile.inputs import Inputs, Told
from bot.render import Renderer
from bot.snapshot.checked import checked, checked_text, named_from
from bot.snapshot.model import WORK_STATES, Snapshot
from bot.snapshot.store import Loaded, load_snapshot, parse_model
from bot.snapshot.validation import review_issue


def snapshot(settings: Settings) -> Loaded[Snapshot]:
    """The local checkout's snapshot, loaded and checked against every invariant."""
    return checked(load_snapshot(settings.snapshot_path))


def leases(path: Path) -> LeaseReadback:
    return parse_leases(read_text(path), str(path))


def lease_source(settings: Settings, leases: Path | str | None) -> Path | BranchFile | None:
    """Where a run reads its leases: `--leases` (relative to here), else the config's lease file
    (relative to the repository root); either a path in the checkout or `BRANCH:PATH`. None when
    the config reads no lease file (open pull requests alone) and no `--leases` is given."""
    if isinstance(leases, Path):
        return leases
    text = settings.config.lease_file if leases is None else leases
    if text is None:
        return None
    try:
        found = branch_file(text)
    except ValueError as exc:
        raise input_error("--leases" if leases is not None else str(settings.file), str(exc)) from exc
    if found is not None:
        return found
    return settings.path(text) if leases is None else Path(leases)


def branch_readback(where: BranchFile, observed: Observed) -> LeaseReadback:
    """The readback on another branch, as the run read it with everything else."""
    text = observed.branch_files.get(where.branch, {}).get(where.path)
    if text is None:
        raise input_error(
            str(where),
            f"no such file on branch {where.branch} (nor in the offline state's `branch_files` or `git`); "
            "publish it with `perfbot publish-leases` on the host that runs dos, or pass --leases with a path",
        )
    return parse_leases(text, str(where))


def file_readback(source: Path | BranchFile | None, observed: Observed) -> LeaseReadback:
    """The lease file's readback; none at all (no live lease) when the config reads no file."""
    if source is None:
        return LeaseReadback(PULL_REQUESTS, "pull-requests", ())
    return branch_readback(source, observed) if isinstance(source, BranchFile) else leases(source)


def config_path(settings: Settings) -> str:
    """The config file's repository path (a PR that edits it claims no packet's paths by that)."""
    try:
        return settings.file.resolve().relative_to(settings.root.resolve()).as_posix()
    except ValueError:
        return settings.file.as_posix()


def committed_files(settings: Settings) -> dict[str, str]:
    """The default branch's snapshot and page, keyed by repository path (a missing page is "")."""
    page = settings.page_path
    return {
        settings.config.snapshot: read_text(settings.snapshot_path),
        settings.config.page: read_text(page) if page.exists() else "",
    }


def tracked_issues(model: Snapshot) -> frozenset[IssueKey]:
    """The issues a run decides on: packets' issues, programs' authority issues, constraints'
    review issues. A live run reads these (state, assignees, comments); related issues such as
    receipts are only cited, never read."""
    numbers = {p.issue for p in model.work_packets} | {p.authority_issue for p in model.programs}
    numbers |= {n for c in model.constraints if (n := review_issue(c.review_issue, c.authority_owner)) is not None}
    return frozenset(n for n in numbers if not not_a_number(n))


def read_scope(settings: Settings, local: Loaded[Snapshot], leases: Path | str | None = None) -> ReadScope:
    """What a live run reads, from the local checkout's config and snapshot; `leases` is `--leases`."""
    config = settings.config
    source = lease_source(settings, leases)
    floor = local.model.commands_settled_through

    def pending_authors(observed: Observed) -> frozenset[Author]:
        return authors_to_check(observed, floor, config)

    issues = tracked_issues(local.model)
    return ReadScope(
        issues=issues,
        files=(config.snapshot, config.page),
        tip_only=(config.lease_file,) if leases is None and isinstance(source, Path) and config.lease_file else (),
        branch_files=(source,) if isinstance(source, BranchFile) else (),
        branch=config.pull_request.branch,
        issues_in=lambda text: (
            issues if text == local.text else tracked_issues(parse_model(text, config.snapshot, Snapshot).model)
        ),
        pending_authors=pending_authors,
        bot_login=config.bot_login,
        commit_message=config.pull_request.title,
        label_prefix=config.labels.prefix if config.labels.enabled else "",
        label_names=tuple(config.labels.name(state) for state in WORK_STATES) if config.labels.enabled else (),
        links=config.links.blocked_by or config.links.sub_issues,
        pull_leases=config.pull_leases is not None,
        dashboard_label=config.dashboard.label if config.dashboard.enabled else "",
    )


def inputs(
    settings: Settings,
    observed: Observed,
    now: dt.datetime,
    leases_path: Path | str | None = None,
    local: Loaded[Snapshot] | None = None,
    max_writes: int | None = None,
) -> Inputs:
    """Everything a run decides on, read from the repository (or the tip GitHub reports) and the
    given observations. `leases_path` is `--leases`: a path, or `BRANCH:PATH` read with GitHub."""
    config = settings.config
    committed = committed_files(settings)
    loaded = local or snapshot(settings)
    source = lease_source(settings, leases_path)
    file = config.lease_file if leases_path is None and isinstance(source, Path) else None
    readback: LeaseReadback | None = None
    tip, report = observed.default_branch, None
    if tip is not None:
        local_files = {**committed}
        if file is not None and file in tip.files:
            local_files[file] = read_text(settings.path(file))
        differing = tuple(path for path, text in tip.files.items() if path in local_files and local_files[path] != text)
        if differing:
            report = TipReport(oid=tip.oid, files=differing)
            where = f" at {tip.oid[:12]}"
            if config.snapshot in differing:
                loaded = checked_text(tip.files[config.snapshot], config.snapshot + where)
            committed.update({p: tip.files[p] for p in differing if p in committed})
            if file is not None and file in differing:
                readback = parse_leases(tip.files[file], file + where)
    if readback is None:
        readback = file_readback(source, observed)
    pulls = config.pull_leases
    if pulls is not None:
        readback = with_pull_leases(readback, observed, pulls, config, now, own_files=(config_path(settings),))
    return Inputs(
        snapshot=named_from(loaded, observed.repository),
        snapshot_path=config.snapshot,
        page_path=config.page,
        committed=committed,
        readback=readback,
        observed=observed,
        config=config,
        renderer=Renderer.from_directory(settings.templates_path),
        now=now,
        decided_on=report,
        max_writes=max_writes,
        told=told(observed, config.pull_request.branch, config.snapshot),
    )


def told(observed: Observed, branch: str, path: str) -> Told | None:
    """The states perfbot's own open regeneration PR records: what the surfaces last named as the
    record to come. A PR carrying commits perfbot did not make, or a snapshot it cannot read, is
    not perfbot's word, and counts as none."""
    pull = observed.open_pull(branch)
    text = pull.files.get(path) if pull is not None and not pull.foreign_commits else None
    if pull is None or text is None:
        return None
    try:
        proposed = parse_model(text, f"{path} on {branch}", Snapshot).model
    except BotError:
        return None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    states = {p.id: (str(p.state), p.state_revision) for p in proposed.work_packets}
    return Told(states=states, key=f"{pull.number}:{digest}")
