"""Throwaway repositories for whole-process timings: the seed, N times the seed, and N comments.

Each world is a directory with `config/`, `templates/` and `docs/` (the page rendered from its
snapshot, so only the world's own inputs differ) and a `state.json` standing in for GitHub.
Snapshots are scaled with `benchmarks.synthetic`; leases and issues are copied the same way
(copy n's holder names copy n's issue, and writes its own region of paths).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.paths import REPOSITORY
from benchmarks.synthetic import place, scaled
from bot.config import load_settings
from bot.reconcile import gather
from bot.render import Renderer
from bot.snapshot import store_save

NOW = "2026-08-27T17:00:00Z"
ISSUE_STRIDE = 100_000  # as `synthetic.scaled` numbers copy n's issues
COMMAND_EVERY = 10  # one comment in ten is a command


def repository(root: Path, factor: int) -> Path:
    """A repository whose snapshot, page, leases and issues are `factor` times the seed's; its state file."""
    for name in ("config", "templates", "docs"):
        shutil.copytree(REPOSITORY / name, root / name)
    settings = load_settings(root / "config" / "perfbot.yaml")
    big = scaled(gather.snapshot(settings).model, factor)
    if factor > 1:
        (root / settings.config.snapshot).write_text(store_save.dump_new(big), encoding="utf-8")
        page = Renderer.from_directory(settings.templates_path).page(big, settings.config.page_text)
        (root / settings.config.page).write_text(page, encoding="utf-8")
    leases_path = root / "config" / "leases.json"
    leases = json.loads(leases_path.read_text(encoding="utf-8"))
    leases_path.write_text(json.dumps([_lease_copy(lease, n) for n in range(factor) for lease in leases]))
    state = json.loads((REPOSITORY / "examples" / "offline-state.json").read_text(encoding="utf-8"))
    tracked = gather.tracked_issues(big)
    copies = [_issue_copy(issue, n) for n in range(1, factor) for issue in state["issues"]]
    state["issues"] += [issue for issue in copies if issue["number"] in tracked]
    path = root / "state.json"
    path.write_text(json.dumps(state, indent=2), encoding="utf-8")
    return path


def merge_pull(root: Path, state_path: Path) -> bool:
    """Merge the bot's open PR, if any: its files land in the repository. True if there was one."""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    pulls = [p for p in state.get("pulls", []) if p.get("state", "open") == "open" and p.get("files")]
    for pull in pulls:
        for name, text in pull["files"].items():
            (root / name).write_text(text, encoding="utf-8")
        pull["state"] = "merged"
    state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")
    return bool(pulls)


def release_leases(root: Path) -> None:
    """No live lease any more: packets that waited on coordination become ready."""
    (root / "config" / "leases.json").write_text("[]\n", encoding="utf-8")


def add_comments(state_path: Path, count: int) -> None:
    """`count` comments spread over the tracked issues, one in ten a command by its own writer."""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    numbers = [issue["number"] for issue in state["issues"]]
    first = max((int(c["id"]) for c in state["comments"]), default=0) + 1
    commands = _commands()
    for n in range(count):
        is_command = n % COMMAND_EVERY == 0
        author = f"writer{n}" if is_command else f"reader{n % 97}"
        body = commands[(n // COMMAND_EVERY) % len(commands)] if is_command else f"a remark, number {n}, no command"
        state["comments"].append(
            {
                "id": first + n,
                "issue": numbers[n % len(numbers)],
                "user": author,
                "created_at": f"2026-08-27T{9 + n * 6 // count:02d}:{n % 60:02d}:00Z",
                "body": body,
            }
        )
        if is_command:
            state["permissions"][author] = "write"
    state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")


# Comments as long as GitHub allows (and perfbot reads: `commands.max_comment_chars`): a
# `/perf help` line, one line repeated, and a `/perf help` line again, so the reading goes through
# the whole comment to tell whether GitHub shows the last. Ordinary text first (prose, lines of
# two letters, of one letter, and with CRLF line ends), then each construct a reader of Markdown
# may spend most on: unclosed brackets, comments, emphasis, strikethrough, code spans, fences,
# quotes nested and line by line, list items, headings, inline HTML, footnotes, table pipes, tags
# left open, raw HTML blocks, autolinks.
LONG_COMMENT = 65_536
LONG_LINES = {
    "prose": "The quick brown fox jumps over the lazy dog, and a remark follows it.\n",
    "short lines": "ok\n",
    "one-letter lines": "a\n",
    "CRLF lines": "ok\r\n",
    "[ lines": "[\n",
    "<!-- lines": "<!--\n",
    "* lines": "*a\n",
    "~ lines": "~a\n",
    "` lines": "`\n",
    "``` fences": "```\n",
    "> nesting": "> ",
    "> lines": "> a\n",
    "- items": "- a\n",
    "# headings": "# a\n",
    "<span> lines": "x <span>\n",
    "footnote lines": "[^1]: a\n",
    "| lines": "|\n",
    "<a lines": "<a\n",
    "<div> lines": "<div>\n",
    "www. autolinks": "www.a\n",
    "paragraphs": "a\n\n",
    "loose items": "- a\n\n",
    "quoted paragraphs": "> a\n\n",
    "emphasis runs": "*a" * 35 + "\n",
    "links in links": "<a>" * 20 + "\n",
    "stray end tags": "</b>" * 15 + "\n",
    "raw paragraphs": "x <p>\n",
}
LAST = "\n/perf help\n"


def long_comment(line: str) -> str:
    """A `/perf help` line, then `line` repeated, then a `/perf help` line: `LONG_COMMENT` characters in all."""
    head = "/perf help\n"
    body = line * ((LONG_COMMENT - len(head) - len(LAST)) // len(line) + 1)
    return head + body[: LONG_COMMENT - len(head) - len(LAST)] + LAST


def add_long_comments(state_path: Path, count: int, line: str) -> None:
    """`count` long comments of `line`s spread over the tracked issues, each by its own writer."""
    body = long_comment(line)
    _add_comments(state_path, count, "long", lambda _: body)


def _add_comments(state_path: Path, count: int, writer: str, body: Callable[[int], str]) -> None:
    """`count` comments, the n-th `body(n)` by `<writer><n>`, spread over the tracked issues and the day."""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    numbers = [issue["number"] for issue in state["issues"]]
    first = max((int(c["id"]) for c in state["comments"]), default=0) + 1
    for n in range(count):
        state["comments"].append(
            {
                "id": first + n,
                "issue": numbers[n % len(numbers)],
                "user": f"{writer}{n}",
                "created_at": f"2026-08-27T{9 + n * 6 // max(count, 1):02d}:{n % 60:02d}:00Z",
                "body": body(n),
            }
        )
    state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")


# A comment that holds no command GitHub shows: the prefix only inside a code fence. Long, it is
# filled with log lines to `LONG_COMMENT` characters; short, it is the fence alone.
FENCED_PREFIX = "Pasted from the runbook:\n\n```\n/perf claim profile.real-cuda\n```\n"


def commandless_comment(long: bool) -> str:
    if not long:
        return FENCED_PREFIX
    filler = "a line of a pasted log\n" * (LONG_COMMENT // 23 + 1)
    return (FENCED_PREFIX + filler)[:LONG_COMMENT]


def add_commandless_comments(state_path: Path, count: int, *, long: bool) -> None:
    """`count` comments without a command (`commandless_comment`) spread over the tracked issues."""
    body = commandless_comment(long)
    _add_comments(state_path, count, "paster", lambda n: f"{body[:-8]}#{n:06}\n" if long else body)


def _commands() -> list[str]:
    """Commands on the seed's packets and constraints: two that change the snapshot, two answers."""
    return [
        "/perf review metal-resident-decode by 2026-09-04",
        "/perf why mac.m5-exact-p32t64-receipt",
        "/perf block mac.m7-prefix-reuse waiting for the prefix-cache design review",
        "/perf why cuda.q8_1-numerical-gate",
    ]


def _lease_copy(lease: dict[str, Any], n: int) -> dict[str, Any]:
    if n == 0:
        return lease
    number = int(str(lease["holder"]).split("-")[1])  # the seed's holders are `issue-<number>-<slug>`
    return {**lease, "holder": f"issue-{number + ISSUE_STRIDE * n}-copy", "tree": [place(g, n) for g in lease["tree"]]}


def _issue_copy(issue: dict[str, Any], n: int) -> dict[str, Any]:
    return {**issue, "number": issue["number"] + ISSUE_STRIDE * n}
