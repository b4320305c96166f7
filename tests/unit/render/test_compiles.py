"""Templates are compiled at most once per process, and compiling them while deciding touches no file."""

from __future__ import annotations

import builtins
import io
import os
from collections import Counter

import jinja2
import pytest

from bot import render
from bot.config import Settings
from bot.github.offline import OfflineGitHub
from bot.reconcile import gather
from bot.reconcile.decide import decide
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from tests.support.backends import NOW
from tests.support.paths import ROOT


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Template names as the environments compile them, in a process with no environment yet."""
    monkeypatch.setattr(render, "_ENVIRONMENTS", {})
    counted: Counter[str] = Counter()
    compile_source = jinja2.Environment.compile

    def counting(env: jinja2.Environment, source: str, name: str | None = None, *args: object) -> object:
        counted[str(name)] += 1
        return compile_source(env, source, name, *args)  # type: ignore[call-overload]

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return counted


def pages(settings: Settings, seed: Snapshot, renderers: int = 2) -> list[str]:
    made = [Renderer.from_directory(settings.templates_path) for _ in range(renderers)]
    return [r.page(seed, settings.config.page_text) for r in made for _ in range(2)]


def test_a_process_compiles_each_template_once(compiles: Counter[str], settings: Settings, seed: Snapshot) -> None:
    shown = pages(settings, seed)
    assert len(set(shown)) == 1
    assert compiles["page.md.j2"] == 1
    assert max(compiles.values()) == 1


def test_deciding_reads_and_writes_no_file_even_with_nothing_compiled_yet(
    compiles: Counter[str], monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """The templates are read when the renderer is made (gathering) and compiled into memory."""
    observed = OfflineGitHub.open(ROOT / "examples" / "offline-state.json", NOW).observe()
    inputs = gather.inputs(settings, observed, NOW)
    opened: list[object] = []

    def no_file(*args: object, **kwargs: object) -> object:
        opened.append(args[0] if args else kwargs)
        raise AssertionError("deciding opened a file")

    with monkeypatch.context() as files:
        for module, name in [(builtins, "open"), (io, "open"), (os, "open"), (os, "replace"), (os, "rename")]:
            files.setattr(module, name, no_file)
        plan = decide(inputs)
    assert opened == []
    assert compiles["page.md.j2"] == 1  # compiled while deciding, into memory
    assert decide(gather.inputs(settings, observed, NOW)) == plan
    assert compiles["page.md.j2"] == 1  # the second run of the process compiled nothing again
