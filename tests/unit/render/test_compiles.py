"""Templates are compiled at most once per process, perfbot's own are shipped compiled
(`bot/compiled_templates.json`, used only for the very source it came from), and loading them
while deciding touches no file."""

from __future__ import annotations

import builtins
import io
import os
from collections import Counter
from pathlib import Path

import jinja2
import pytest

from bot import compiled_templates, render
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


def test_a_process_compiles_each_template_once(
    compiles: Counter[str], monkeypatch: pytest.MonkeyPatch, settings: Settings, seed: Snapshot
) -> None:
    monkeypatch.setattr(render, "shipped_code", lambda: render.ShippedCode({}))  # as without the file
    shown = pages(settings, seed)
    assert len(set(shown)) == 1
    assert compiles["page.md.j2"] == 1
    assert max(compiles.values()) == 1


def test_the_shipped_templates_are_not_compiled_from_source_and_show_the_same(
    compiles: Counter[str], monkeypatch: pytest.MonkeyPatch, settings: Settings, seed: Snapshot
) -> None:
    shipped = pages(settings, seed)
    assert compiles == Counter()
    monkeypatch.setattr(render, "_ENVIRONMENTS", {})
    monkeypatch.setattr(render, "shipped_code", lambda: render.ShippedCode({}))
    assert pages(settings, seed) == shipped
    assert compiles["page.md.j2"] == 1


def test_each_shipped_templates_code_is_what_jinja2_compiles_from_its_source() -> None:
    """Code objects compare by their bytecode, constants, names and line table: the same code."""
    templates = render.shipped_templates()
    code = render.shipped_code()
    assert set(code.entries) == set(templates)
    compiler = render.environment(jinja2.DictLoader({}))
    for name, source in templates.items():
        bucket = jinja2.bccache.Bucket(compiler, name, code.get_source_checksum(source))
        code.load_bytecode(bucket)
        assert bucket.code == compiler.compile(source, name, name), name


def test_a_template_of_another_source_is_compiled_from_it(compiles: Counter[str]) -> None:
    """A repository's own template of a shipped name (or a stale file) is never given the shipped code."""
    name = "plan.txt.j2"
    assert name in render.shipped_code().entries
    mine = Renderer({name: "mine: {{ 1 + 1 }}\n"})
    assert mine.render(name) == "mine: 2\n"
    assert compiles[name] == 1


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", '["jinja2 0.0 [] filters []", ["page.md.j2", "x", "y"]]', '["x", 1]', "{}"],
)
def test_a_file_for_another_jinja2_or_damaged_is_not_used(text: str) -> None:
    stamp = render.compiled_stamp(render.OPTIONS, render.FILTERS)
    assert render.ShippedCode.parse(text, stamp).entries == {}


def test_the_committed_file_is_what_the_command_generates(capsys: pytest.CaptureFixture[str]) -> None:
    assert compiled_templates.main(["--check"]) == 0, capsys.readouterr().err


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
    assert compiles == Counter()  # the shipped code, read while gathering, loaded into memory
    assert decide(gather.inputs(settings, observed, NOW)) == plan


def test_a_stale_file_fails_the_check_naming_the_templates_to_compile_again(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stale = tmp_path / "compiled_templates.json"
    text = render.COMPILED.read_text(encoding="utf-8")
    entry = next(line for line in text.splitlines() if line.startswith('["plan.txt.j2"'))
    stale.write_text(text.replace(entry, entry.replace("perfbot plan at", "perfbot plan on", 1)), encoding="utf-8")
    monkeypatch.setattr(compiled_templates, "COMPILED", stale)
    assert compiled_templates.main(["--check"]) == 1
    assert "is stale (plan.txt.j2): run python -m bot.compiled_templates" in capsys.readouterr().err


def test_the_stamp_changes_with_what_jinja2_passes_a_filter() -> None:
    """A filter marked `pass_context` is compiled into a call that passes the context: code
    compiled before it was marked must not be used after."""

    def plain(value: object) -> str:
        return str(value)

    assert render.compiled_stamp(render.OPTIONS, {"f": plain}) != render.compiled_stamp(
        render.OPTIONS, {"f": jinja2.pass_context(plain)}
    )


def test_a_page_rendered_again_is_the_page_its_first_render_made(settings: Settings, seed: Snapshot) -> None:
    text = settings.config.page_text
    first = Renderer.from_directory(settings.templates_path).page(seed, text)
    assert Renderer.from_directory(settings.templates_path).page(seed, text) is first
    other = seed.model_copy(update={"as_of": "2026-08-28"})
    assert "2026-08-28" in Renderer.from_directory(settings.templates_path).page(other, text)
    worded = text.model_copy(update={"title": "Another title"})
    assert "Another title" in Renderer.from_directory(settings.templates_path).page(seed, worded)


def test_a_page_of_other_templates_is_rendered_from_them(settings: Settings, seed: Snapshot, tmp_path: Path) -> None:
    text = settings.config.page_text
    shipped = Renderer.from_directory(settings.templates_path).page(seed, text)
    (tmp_path / "page.md.j2").write_text("our own page of {{ s.as_of }}\n", encoding="utf-8")
    assert Renderer.from_directory(tmp_path).page(seed, text) == f"our own page of {seed.as_of}\n"
    assert Renderer.from_directory(settings.templates_path).page(seed, text) == shipped
