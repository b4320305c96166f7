"""Templates are compiled at most once per process, and not at all by a later process while they are
unchanged (the bytecode cache); a cache that is unsafe, damaged or stale never changes the output."""

from __future__ import annotations

import builtins
import io
import os
import tempfile
from collections import Counter
from pathlib import Path

import jinja2
import pytest

from bot import render, template_cache
from bot.config import Settings
from bot.github.offline import OfflineGitHub
from bot.reconcile import gather
from bot.reconcile.plan import decide
from bot.render import Renderer
from bot.snapshot.model import Snapshot
from tests.backends import NOW
from tests.paths import ROOT


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Counter[str]:
    """Template names as the environments compile them, in a process with no environment yet and an
    empty cache of its own."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(render, "_ENVIRONMENTS", {})
    monkeypatch.setattr(template_cache, "_CACHES", {})
    counted: Counter[str] = Counter()
    compile_source = jinja2.Environment.compile

    def counting(env: jinja2.Environment, source: str, name: str | None = None, *args: object) -> object:
        counted[str(name)] += 1
        return compile_source(env, source, name, *args)  # type: ignore[call-overload]

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return counted


def new_process() -> None:
    """As a new process starts: no environment and no cache in memory, only the files on disk."""
    render._ENVIRONMENTS.clear()
    template_cache._CACHES.clear()


@pytest.fixture(scope="module")
def seed(settings: Settings) -> Snapshot:
    return gather.snapshot(settings).model


def pages(settings: Settings, seed: Snapshot, renderers: int = 2) -> list[str]:
    made = [Renderer.from_directory(settings.templates_path) for _ in range(renderers)]
    return [r.page(seed, settings.config.page_text) for r in made for _ in range(2)]


def test_a_process_compiles_each_template_once(compiles: Counter[str], settings: Settings, seed: Snapshot) -> None:
    shown = pages(settings, seed)
    assert len(set(shown)) == 1
    assert compiles["page.md.j2"] == 1
    assert max(compiles.values()) == 1


def test_a_later_process_compiles_nothing_unchanged(compiles: Counter[str], settings: Settings, seed: Snapshot) -> None:
    first = pages(settings, seed)
    assert compiles["page.md.j2"] == 1
    render.flush()  # as the process ends
    new_process()
    compiles.clear()
    assert pages(settings, seed) == first
    assert compiles == Counter()


def test_a_changed_template_is_compiled_again(compiles: Counter[str], settings: Settings, seed: Snapshot) -> None:
    templates = render.read_templates(settings.templates_path)
    before = Renderer(templates).page(seed, settings.config.page_text)
    render.flush()
    new_process()
    changed = {**templates, "page.md.j2": "{{ s.constraints | length }} constraints\n"}
    assert Renderer(changed).page(seed, settings.config.page_text) == f"{len(seed.constraints)} constraints\n"
    assert compiles["page.md.j2"] == 2
    render.flush()
    new_process()
    assert Renderer(templates).page(seed, settings.config.page_text) == before
    assert compiles["page.md.j2"] == 3  # one cache entry per name: the changed source replaced it


def test_a_damaged_cache_file_is_compiled_over(compiles: Counter[str], settings: Settings, seed: Snapshot) -> None:
    first = pages(settings, seed, renderers=1)
    render.flush()
    cache = next(Path(tempfile.gettempdir()).glob("perfbot-templates-*"))
    for entry in cache.iterdir():
        entry.write_bytes(entry.read_bytes()[:40])  # right header, truncated code
    new_process()
    compiles.clear()
    assert pages(settings, seed, renderers=1) == first
    assert compiles["page.md.j2"] == 1


@pytest.mark.parametrize("mode", [0o755, 0o777, 0o770])
def test_a_directory_others_may_enter_or_write_is_no_cache(tmp_path: Path, mode: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    assert template_cache.private_directory(tmp_path, "shared") is None
    assert template_cache.private_directory(tmp_path, "mine") == tmp_path / "mine"


def test_a_link_is_no_cache(tmp_path: Path) -> None:
    real = template_cache.private_directory(tmp_path, "real")
    assert real is not None
    (tmp_path / "link").symlink_to(real)
    assert template_cache.private_directory(tmp_path, "link") is None


def test_without_a_cache_templates_render_the_same(
    compiles: Counter[str], monkeypatch: pytest.MonkeyPatch, settings: Settings, seed: Snapshot
) -> None:
    cached = pages(settings, seed, renderers=1)
    new_process()
    monkeypatch.setattr(template_cache, "private_directory", lambda parent, name: None)
    assert pages(settings, seed, renderers=1) == cached


def test_the_fingerprint_follows_the_options() -> None:
    options = dict(render.OPTIONS)
    assert template_cache.fingerprint(options) == template_cache.fingerprint(dict(reversed(options.items())))
    assert template_cache.fingerprint(options) != template_cache.fingerprint({**options, "trim_blocks": False})


def test_deciding_reads_and_writes_no_file_even_with_nothing_compiled_yet(
    compiles: Counter[str], monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """The cache is read when the renderer is made (gathering) and written by `flush` (the run's end)."""
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
    cache = next(Path(tempfile.gettempdir()).glob("perfbot-templates-*"))
    assert list(cache.iterdir()) == []
    render.flush()
    assert len(list(cache.glob("*.cache"))) == len(compiles)
    new_process()
    compiles.clear()
    assert decide(gather.inputs(settings, observed, NOW)) == plan
    assert compiles == Counter()  # the next run read them all back


def test_another_set_of_templates_in_the_process_reuses_what_the_first_compiled(
    compiles: Counter[str], settings: Settings, seed: Snapshot
) -> None:
    """A run on custom templates that fails renders its failure with the shipped ones: a second
    environment, which loads the templates the first compiled rather than compiling them again."""
    templates = render.read_templates(settings.templates_path)
    first = Renderer(templates).page(seed, settings.config.page_text)
    assert Renderer({**templates, "extra.j2": "x"}).page(seed, settings.config.page_text) == first
    assert compiles["page.md.j2"] == 1
