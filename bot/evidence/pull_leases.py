"""Open pull requests as leases, for teams without dos (`leases.sources: [pull-requests]`).

An open pull request is a claim on the paths it changes, held by its author, live while it is
open, with its last push as heartbeat; the issues it closes (GitHub's closing references) are the
issues it is held for, so a packet whose issue an open PR closes is running. A merged or closed
PR is a released lease, named for `released_days`.

Some pull requests claim nothing: perfbot's own regeneration PR (its files are perfbot's), a PR
from the branch the lease readback is published to, a bot's (Dependabot, Renovate, an App's;
unless `bots`), a draft when `drafts` is off, and whatever a PR changes of perfbot's own files
(the snapshot, the page, the lease file, the config): editing them is bookkeeping, not work on
a packet's paths. A PR that changes more files than GitHub lists claims `**`, and the plan says so.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from bot.config import BotConfig, PullRequestLeases
from bot.evidence.leases import Lease, LeaseReadback, target
from bot.github.observed import PULL_FILES_LISTED, Observed, PullRequest, is_bot
from bot.timestamps import utc_stamp

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
