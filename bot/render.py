"""Rendering: jinja2 templates from `templates/` into the page, PR bodies and comments."""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateError, TemplateNotFound, TemplateSyntaxError

from bot.config import SHIPPED_TEMPLATES, PageText
from bot.errors import BotError, input_error
from bot.evidence import packet_graph
from bot.files import read_text
from bot.issue_refs import IssueKey, issue_text
from bot.snapshot.model import SCHEMA_ONE, Snapshot, WorkPacket
from bot.timestamps import duration
from bot.untrusted import (
    code_span,
    dot_text,
    line_start_safe,
    mermaid_text,
    neutral,
    one_line,
    reason_cell,
    table_code,
)


def line(value: object) -> str:
    """Text from outside (the snapshot, a lease, a login) as one inert line for any output."""
    return line_start_safe(str(value))


def ticks(ids: Iterable[str]) -> str:
    """`a`, `b`: upstream renders an empty list as two backticks, so this does too."""
    return one_line("`" + "`, `".join(ids) + "`")


def issue(value: IssueKey | str) -> str:
    """An issue as GitHub links it in Markdown: `#N` here, `owner/repo#N` in another repository (a
    plan read back from JSON already holds the latter as text), as one inert line."""
    return line(value if isinstance(value, str) else issue_text(value))


def issue_in(value: IssueKey | str, repository: str) -> str:
    """An issue named with its repository wherever it is: `owner/repo#N`, as one inert line."""
    return line(f"{repository}#{value}") if isinstance(value, int) else issue(value)


def issue_chain(packet: WorkPacket) -> str:
    return "/".join(issue_text(n) for n in (packet.issue, *packet.related_issues))


def issue_list(numbers: Iterable[IssueKey]) -> str:
    return ", ".join(issue_text(n) for n in numbers) or "—"


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
        parts.append("Blocked now: " + one_line(packet.blocked_by_condition))
    return "<br>".join(parts) or "—"


def read_templates(
    directory: Path, missing: str = "no such templates directory (the config's `templates`)"
) -> dict[str, str]:
    """Every template under `directory`, read up front so rendering does no I/O."""
    if not directory.is_dir():
        raise input_error(str(directory), missing)
    return {path.relative_to(directory).as_posix(): read_text(path) for path in sorted(directory.rglob("*.j2"))}


@functools.cache
def _shipped_templates() -> dict[str, str]:
    """The templates installed with perfbot, read once per process: they do not change while it runs."""
    return read_templates(SHIPPED_TEMPLATES, "perfbot's own templates are missing: reinstall perfbot")


# The filters templates use, by the name a template calls them by.
FILTERS: dict[str, Callable[..., str]] = {
    "ticks": ticks,
    "issue": issue,
    "issue_in": issue_in,
    "issue_chain": issue_chain,
    "issue_list": issue_list,
    "dependency_cell": dependency_cell,
    "neutral": neutral,
    "line": line,
    "code": code_span,
    "cell": table_code,
    "reason_cell": reason_cell,
    "mermaid": mermaid_text,
    "dot": dot_text,
    "duration": duration,
}
OPTIONS: dict[str, Any] = {
    "undefined": StrictUndefined,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
    "autoescape": False,
}
# One environment per set of templates for the whole process: an environment compiles each template
# once and keeps it, so every renderer of a run (and of a test session) shares the compiled code.
_ENVIRONMENTS: dict[frozenset[tuple[str, str]], Environment] = {}


def environment(loader: BaseLoader) -> Environment:
    """An environment with perfbot's options and filters."""
    env = Environment(loader=loader, **OPTIONS)
    env.filters.update(FILTERS)
    return env


class _Loader(BaseLoader):
    """Templates from memory, each compiled under its own name as the file name (`DictLoader` gives
    none), so a traceback through a template names which one: `Renderer` maps it to its file."""

    def __init__(self, templates: dict[str, str]) -> None:
        self.templates = dict(templates)

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool]]:
        if template not in self.templates:
            raise TemplateNotFound(template)
        return self.templates[template], template, lambda: True


class Renderer:
    """Renders named templates from an in-memory set (see `read_templates`)."""

    def __init__(self, templates: dict[str, str], origins: dict[str, str] | None = None) -> None:
        # Where each template came from, as errors name it (by default, its name).
        self._origins = {name: (origins or {}).get(name, name) for name in templates}
        # Keyed by the sources alone: the same templates from another directory share the compiled code.
        key = frozenset(templates.items())
        if key not in _ENVIRONMENTS:
            _ENVIRONMENTS[key] = environment(_Loader(templates))
        self._env = _ENVIRONMENTS[key]

    @classmethod
    def from_directory(cls, directory: Path) -> Renderer:
        """The shipped templates, each replaced by the one of the same name in `directory`, if any."""
        templates = dict(_shipped_templates())
        origins = {name: f"bot/templates/{name}" for name in templates}  # as perfbot ships it
        if directory.resolve() != SHIPPED_TEMPLATES.resolve():
            custom = read_templates(directory)
            templates.update(custom)
            origins.update({name: (directory / name).as_posix() for name in custom})
        return cls(templates, origins)

    def render(self, name: str, **context: Any) -> str:
        """The template rendered; a template that does not compile or render is an input error
        naming its file and line (a repository's own templates are input like the snapshot)."""
        try:
            return self._env.get_template(name).render(**context)
        except TemplateSyntaxError as exc:
            raise input_error(self._origins.get(exc.name or name, name), exc.message or str(exc), exc.lineno) from None
        except TemplateError as exc:
            file, line = self._failed_at(exc, name)
            raise input_error(file, f"cannot render: {exc.message or type(exc).__name__}", line) from None
        except BotError:
            raise
        except Exception as exc:
            # What a template's own expressions raise: `1/0`, `list + 1`, a filter given another type.
            # Rendering reads only the values passed in, so the template is what to name.
            file, line = self._failed_at(exc, name)
            raise input_error(file, f"cannot render: {type(exc).__name__}: {exc}", line) from None

    def _failed_at(self, exc: BaseException, name: str) -> tuple[str, int]:
        """The template file and line an error was raised at: jinja2 puts the template's own
        lines into the traceback, under the file name the loader gave."""
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in self._origins]
        if not frames:
            return self._origins.get(name, name), 0
        return self._origins[frames[-1].filename], frames[-1].lineno or 0

    def page(self, snapshot: Snapshot, text: PageText) -> str:
        """The page, in the layout of the snapshot's schema (upstream's /1 has no execution section)."""
        graph = self.graph(packet_graph.build(snapshot), "mermaid") if text.dependency_graph else ""
        layout = "page-schema-1.md.j2" if snapshot.schema_ == SCHEMA_ONE else "page.md.j2"
        return self.render(layout, s=snapshot, text=text, graph=graph)

    def graph(self, graph: packet_graph.Graph, fmt: str) -> str:
        """The graph as mermaid or DOT text (`fmt` names the template under `graph/`)."""
        return self.render(f"graph/{fmt}.j2", graph=graph)

    def mermaid_block(self, graph: packet_graph.Graph | None) -> str:
        """A fenced mermaid block GitHub draws, a note when it is too large to draw, or "" for no graph."""
        if graph is None:
            return ""
        text = self.graph(graph, "mermaid") if len(graph.edges) <= packet_graph.MERMAID_MAX_EDGES else ""
        fits = 0 < len(text) <= packet_graph.MERMAID_MAX_TEXT
        return self.render("graph/block.md.j2", graph=graph, text=text if fits else "")
