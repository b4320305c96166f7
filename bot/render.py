"""Rendering: jinja2 templates from `templates/` into the page, PR bodies and comments."""

from __future__ import annotations

import copy
import functools
import json
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import (
    BaseLoader,
    Environment,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
    pass_context,
)
from jinja2.bccache import Bucket, BytecodeCache
from jinja2.runtime import Context

from bot.config import SHIPPED_TEMPLATES, PageText
from bot.errors import BotError, input_error
from bot.evidence import packet_graph
from bot.files import read_text
from bot.issue_refs import IssueKey, issue_text
from bot.recent import Recent
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
def shipped_templates() -> dict[str, str]:
    """The templates installed with perfbot, read once per process: they do not change while it runs."""
    return read_templates(SHIPPED_TEMPLATES, "perfbot's own templates are missing: reinstall perfbot")


# The name under which a narrowed renderer (`Renderer.narrowed`) tells the text filters its width.
_WIDTH = "_perfbot_width"


def _narrowing(text_filter: Callable[..., str]) -> Callable[..., str]:
    """`text_filter`, cutting a text from outside to the render's width first, when it has one."""

    @pass_context
    def narrowed(context: Context, value: object, *args: Any) -> str:
        width = context.get(_WIDTH)
        if isinstance(width, int) and isinstance(value, str):
            value = _cut(value, width)
        return text_filter(value, *args)

    return narrowed


@pass_context
def indented_lines(context: Context, text: str, indent: int) -> str:
    """Each line of a text of several lines (its blank ends dropped) as `line` writes it, after
    `indent` spaces, and a blank line as an empty one; each line ends with a line break. One call
    for the whole text: a `why` answer printed line by line in a template loop cost the plan of a
    run with 500 answers about a third of its printing."""
    width = context.get(_WIDTH)
    cut = width if isinstance(width, int) else None
    pad = " " * indent
    return "".join(pad + line(_cut(part, cut)) + "\n" if part.strip() else "\n" for part in text.strip().splitlines())


def _cut(value: str, width: int | None) -> str:
    """`value` cut to `width` characters, its last one `…` (unchanged when it fits or no width is set)."""
    if width is not None and len(value) > width:
        return value[: max(1, width - 1)] + "…"
    return value


# The filters templates use, by the name a template calls them by.
FILTERS: dict[str, Callable[..., str]] = {
    "ticks": ticks,
    "issue": issue,
    "issue_in": issue_in,
    "issue_chain": issue_chain,
    "issue_list": issue_list,
    "dependency_cell": dependency_cell,
    "neutral": _narrowing(neutral),
    "line": _narrowing(line),
    "indented_lines": indented_lines,
    "code": _narrowing(code_span),
    "cell": _narrowing(table_code),
    "reason_cell": _narrowing(reason_cell),
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
# The last pages rendered (`Renderer.page`), by the environment, the width, the snapshot and the
# page's words.
_PAGES: Recent[tuple[Environment, int | None, Snapshot, PageText], str] = Recent(8)

# The shipped templates compiled ahead (`python -m bot.compiled_templates` writes the file).
COMPILED = Path(__file__).with_name("compiled_templates.json")


def environment(loader: BaseLoader, code: BytecodeCache | None = None) -> Environment:
    """An environment with perfbot's options and filters (and the compiled code it may take)."""
    env = Environment(loader=loader, bytecode_cache=code, **OPTIONS)
    env.filters.update(FILTERS)
    return env


def compiled_stamp(options: dict[str, Any], filters: dict[str, Callable[..., str]]) -> str:
    """What jinja2's generated code depends on besides the source: its version, the options, and
    each filter's name and what jinja2 passes it first (a filter jinja2 cannot find is compiled
    into code that raises; one marked `pass_context` is compiled into a call that passes the context)."""
    shown = sorted((name, getattr(value, "__name__", repr(value))) for name, value in options.items())
    passed = sorted((name, str(getattr(value, "jinja_pass_arg", None))) for name, value in filters.items())
    return f"jinja2 {jinja2.__version__} {shown} filters {passed}"


@functools.cache
def shipped_code() -> ShippedCode:
    """The shipped compiled templates, read once per process with the templates (while gathering)."""
    try:
        text = read_text(COMPILED)
    except BotError:
        return ShippedCode({})
    return ShippedCode.parse(text, compiled_stamp(OPTIONS, FILTERS))


class ShippedCode(BytecodeCache):
    """jinja2's hook for compiled code, fed from `compiled_templates.json` in memory: a template
    whose source has the checksum of the entry of its name gets that entry's code (Python's
    compile of the Python jinja2 generated from that very source, with these options), so jinja2's
    parse and code generation are skipped and the output is the same; any other template (a
    repository's own, a file left stale, another jinja2) is compiled by jinja2 from its source.
    Nothing is read or written here: deciding does no I/O."""

    def __init__(self, entries: dict[str, tuple[str, str]]) -> None:
        self.entries = entries  # name -> (checksum of the source, jinja2's Python for it)

    @classmethod
    def parse(cls, text: str, stamp: str) -> ShippedCode:
        """The file's entries; none when it was made for another jinja2, other options or filters,
        or is not the file's shape: every template is then compiled from its source."""
        try:
            found = json.loads(text)
            if not isinstance(found, list) or not found or found[0] != stamp:
                return cls({})
            return cls({str(name): (str(checksum), str(python)) for name, checksum, python in found[1:]})
        except (ValueError, TypeError):
            return cls({})

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return name

    def load_bytecode(self, bucket: Bucket) -> None:
        entry = self.entries.get(bucket.key)
        if entry is not None and entry[0] == bucket.checksum:
            # As jinja2 compiles: under the template's name (`_Loader`), with no `__future__` flag
            # of this module's (`dont_inherit`; annotations would be compiled otherwise).
            bucket.code = compile(entry[1], bucket.key, "exec", dont_inherit=True)

    def dump_bytecode(self, bucket: Bucket) -> None:
        """The shipped code is never replaced at run time."""


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
            _ENVIRONMENTS[key] = environment(_Loader(templates), shipped_code())
        self._env = _ENVIRONMENTS[key]
        self._width: int | None = None

    def narrowed(self, width: int) -> Renderer:
        """This renderer with every text from outside that a template writes through a text filter
        (`neutral`, `line`, `code`, `cell`, `reason_cell`) cut to `width` characters: how a list
        under a size limit shortens an oversized item instead of leaving it, and all after it, out."""
        other = copy.copy(self)
        other._width = width
        return other

    @classmethod
    def from_directory(cls, directory: Path) -> Renderer:
        """The shipped templates, each replaced by the one of the same name in `directory`, if any."""
        templates = dict(shipped_templates())
        origins = {name: f"bot/templates/{name}" for name in templates}  # as perfbot ships it
        if directory.resolve() != SHIPPED_TEMPLATES.resolve():
            custom = read_templates(directory)
            templates.update(custom)
            origins.update({name: (directory / name).as_posix() for name in custom})
        return cls(templates, origins)

    def render(self, name: str, **context: Any) -> str:
        """The template rendered; a template that does not compile or render is an input error
        naming its file and line (a repository's own templates are input like the snapshot)."""
        if self._width is not None:
            context[_WIDTH] = self._width
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
        """The page, in the layout of the snapshot's schema (upstream's /1 has no execution section).

        A page is a pure function of the templates, the snapshot and the page's words, and a run
        renders the same page more than once (the PR's files, and `status` deciding what the run
        decided): the last few pages are kept by all three (`_PAGES`)."""
        key = (self._env, self._width, snapshot, text)
        page = _PAGES.get(key)
        if page is None:
            graph = self.graph(packet_graph.build(snapshot), "mermaid") if text.dependency_graph else ""
            layout = "page-schema-1.md.j2" if snapshot.schema_ == SCHEMA_ONE else "page.md.j2"
            page = self.render(layout, s=snapshot, text=text, graph=graph)
            _PAGES.keep(key, page)
        return page

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
