"""Rendering: jinja2 templates from `templates/` into the page, PR bodies and comments."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from bot.config import PageText
from bot.snapshot import Snapshot, WorkPacket


def ticks(ids: Iterable[str]) -> str:
    """`a`, `b`: upstream renders an empty list as two backticks, so this does too."""
    return "`" + "`, `".join(ids) + "`"


def issue_chain(packet: WorkPacket) -> str:
    return "/".join(f"#{n}" for n in (packet.issue, *packet.related_issues))


def issue_list(numbers: Iterable[int]) -> str:
    return ", ".join(f"#{n}" for n in numbers) or "—"


def dependency_cell(packet: WorkPacket) -> str:
    """Depends, Satisfied, Blocked now (ids), Blocked now (condition), joined by `<br>`."""
    parts = []
    if packet.hard_dependency_ids:
        parts.append("Depends: " + ticks(packet.hard_dependency_ids))
    if packet.satisfied_dependency_ids:
        parts.append("Satisfied: " + ticks(packet.satisfied_dependency_ids))
    if packet.blocked_by_ids:
        parts.append("Blocked now: " + ticks(packet.blocked_by_ids))
    if packet.blocked_by_condition:
        parts.append("Blocked now: " + packet.blocked_by_condition)
    return "<br>".join(parts) or "—"


def environment(templates: Path) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(ticks=ticks, issue_chain=issue_chain, issue_list=issue_list, dependency_cell=dependency_cell)
    return env


class Renderer:
    """Renders named templates; one jinja environment per templates directory."""

    def __init__(self, templates: Path) -> None:
        self._env = environment(templates)

    def render(self, name: str, **context: Any) -> str:
        return self._env.get_template(name).render(**context)

    def page(self, snapshot: Snapshot, text: PageText) -> str:
        return self.render("page.md.j2", s=snapshot, text=text)
