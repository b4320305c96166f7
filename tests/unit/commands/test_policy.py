"""Policy: who may use each verb, and which pending commands an accepted `drop` removes."""

from __future__ import annotations

import pytest

from bot.commands.reading import parse
from bot.commands.replay import authorise, dropped
from bot.github.observed import Permission
from bot.issue_refs import IssueKey
from bot.snapshot.model import Snapshot
from tests.unit.commands.values import CUDA, M1, comment, fresh, recalled

PERMISSIONS: dict[str, Permission] = {"alice": "write", "root": "admin", "bob": "maintain", "carol": "triage"}
ASSIGNED: dict[IssueKey, tuple[str, ...]] = {9497: ("carol",)}


def verdict(line: str, user: str, seed: Snapshot) -> str | None:
    (command,) = parse(line, "/perf", 1000, 1000).commands
    return authorise(command, comment(1, user, line), PERMISSIONS.get(user, "none"), seed, ASSIGNED)


@pytest.mark.parametrize(
    ("line", "user", "why_not"),
    [
        ("/perf help", "mallory", None),
        (f"/perf complete {M1} result: x", "alice", None),
        (f"/perf complete {M1} result: x", "carol", "`complete` needs write permission; carol has triage"),
        (f"/perf block {CUDA} x", "carol", None),  # her packet
        (f"/perf claim {CUDA}", "carol", None),
        (f"/perf claim {M1}", "carol", "carol has triage permission and is not assigned to the packet's issue"),
        (f"/perf unblock {CUDA}", "carol", "`unblock` needs write permission; carol has triage"),
        ("/perf drop all", "bob", None),
        ("/perf drop all", "root", None),
        ("/perf drop all", "alice", "`drop` needs maintain permission; alice has write"),
        ("/perf drop all", "mallory", "`drop` needs maintain permission; mallory has none"),
    ],
)
def test_who_may_use_what(line: str, user: str, why_not: str | None, seed: Snapshot) -> None:
    assert verdict(line, user, seed) == why_not


def test_a_drop_removes_earlier_pending_commands_not_later_or_merged_ones(seed: Snapshot) -> None:
    queue = (
        fresh(101, "alice", f"/perf block {CUDA} a\n/perf help"),
        fresh(102, "alice", f"/perf block {M1} b"),
        fresh(103, "root", "/perf drop all"),
        fresh(104, "alice", f"/perf block {M1} c"),
    )
    assert dropped(queue, PERMISSIONS, seed, ASSIGNED, ledger={(102, 1)}) == {(101, 1): 103}


def test_a_drop_names_comments_and_the_first_drop_wins(seed: Snapshot) -> None:
    queue = (
        fresh(101, "alice", f"/perf block {CUDA} a"),
        fresh(102, "alice", f"/perf block {M1} b"),
        fresh(103, "bob", "/perf drop 102 999"),
        fresh(104, "root", "/perf drop all"),
    )
    assert dropped(queue, PERMISSIONS, seed, ASSIGNED, ledger=set()) == {(102, 1): 103, (101, 1): 104}


def test_only_an_accepted_drop_counts(seed: Snapshot) -> None:
    queue = (
        recalled(101, "alice", f"/perf block {CUDA} a"),
        recalled(102, "root", "/perf drop all", verdict="refused"),
        fresh(103, "alice", "/perf drop all"),
    )
    assert dropped(queue, PERMISSIONS, seed, ASSIGNED, ledger=set()) == {}
    accepted = (*queue, recalled(104, "root", "/perf drop 101"))
    assert dropped(accepted, PERMISSIONS, seed, ASSIGNED, ledger=set()) == {(101, 1): 104}


def test_an_assignees_own_block_is_pending_and_a_drop_in_the_same_comment_spares_it(seed: Snapshot) -> None:
    queue = (
        fresh(101, "carol", f"/perf block {CUDA} a"),  # triage, but her packet: accepted
        fresh(102, "root", f"/perf block {M1} b\n/perf drop all"),
    )
    assert dropped(queue, PERMISSIONS, seed, ASSIGNED, ledger=set()) == {(101, 1): 102}
