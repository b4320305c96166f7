"""The executor performs an action through the writer's method named by the action's `kind`."""

from __future__ import annotations

import inspect
from typing import get_args

from bot.github.actions import Action
from bot.github.port import GitHubWriter


def test_every_kind_of_action_names_a_write_of_the_port_that_takes_it() -> None:
    kinds = {cls.model_fields["kind"].default: cls for cls in get_args(get_args(Action)[0])}
    writes = {name: method for name, method in vars(GitHubWriter).items() if not name.startswith("_")}
    assert set(kinds) == set(writes)
    for kind, cls in kinds.items():
        assert inspect.signature(writes[kind]).parameters["action"].annotation == cls.__name__
