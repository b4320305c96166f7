"""Templates are compiled once per install (`render.compiled_templates`), with the same output."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment

from bot import render
from bot.config import SHIPPED_TEMPLATES
from bot.render import FILTERS, OPTIONS, _InstallCache, _Loader


def over(folder: Path, templates: dict[str, str] | None = None) -> Environment:
    shipped = render.read_templates(SHIPPED_TEMPLATES)
    env = Environment(loader=_Loader(templates or shipped), bytecode_cache=_InstallCache(str(folder)), **OPTIONS)
    env.filters.update(FILTERS)
    return env


TEMPLATE = {"t.j2": "{{ who | line }}:{% for n in numbers %} {{ n }}{% endfor %}\n"}


def test_a_second_process_loads_what_the_first_compiled_and_renders_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = over(tmp_path, TEMPLATE).get_template("t.j2")
    assert len(list(tmp_path.iterdir())) == 1
    compiled: list[str] = []
    original = Environment.compile

    def counting(self: Environment, source: str, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        compiled.append(name or "")
        return original(self, source, name, *args, **kwargs)

    monkeypatch.setattr(Environment, "compile", counting)
    second = over(tmp_path, TEMPLATE).get_template("t.j2")
    assert compiled == []
    assert second.render(who="# x", numbers=[1, 2]) == first.render(who="# x", numbers=[1, 2]) == "# x: 1 2"
    over(tmp_path / "other", TEMPLATE).get_template("t.j2")
    assert compiled == ["t.j2"]


def test_a_changed_template_is_compiled_again_and_an_unwritable_cache_only_costs_the_compile(tmp_path: Path) -> None:
    cache = _InstallCache(str(tmp_path))
    env = Environment(loader=_Loader({"t.j2": "a {{ x }}"}), bytecode_cache=cache, **OPTIONS)
    assert env.get_template("t.j2").render(x=1) == "a 1"
    changed = Environment(loader=_Loader({"t.j2": "b {{ x }}"}), bytecode_cache=cache, **OPTIONS)
    assert changed.get_template("t.j2").render(x=1) == "b 1"
    gone = _InstallCache(str(tmp_path / "missing"))
    env = Environment(loader=_Loader({"t.j2": "c {{ x }}"}), bytecode_cache=gone, **OPTIONS)
    assert env.get_template("t.j2").render(x=2) == "c 2"


def test_the_install_cache_sits_in_the_environment_perfbot_runs_in() -> None:
    cache = render.compiled_templates()
    assert isinstance(cache, _InstallCache)
    assert Path(cache.directory).is_relative_to(Path(sys.prefix))
