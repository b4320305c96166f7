"""The action's inputs and outputs as the README's tables, generated from `action.yml`.

As actions/stale and create-pull-request document theirs: one table of inputs with their
defaults, one of outputs, each description the metadata's own. The README's tables stand between
`<!-- generated: action-inputs -->` and `<!-- end generated: action-inputs -->` (and the same for
`action-outputs`); regenerate them, from the repository's root, with

    python -m bot.action_metadata --readme < README.md > README.md.new && mv README.md.new README.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr

from bot.files import read_text
from bot.reference import regenerate
from bot.snapshot.store import parse_model

ACTION = Path("action.yml")


class ActionInput(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)
    description: StrictStr
    default: StrictStr = ""
    required: StrictBool = False


class ActionOutput(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)
    description: StrictStr
    value: StrictStr


class ActionMetadata(BaseModel):
    """The parts of `action.yml` the tables read (GitHub's metadata syntax; the rest is ignored)."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)
    inputs: dict[str, ActionInput] = {}
    outputs: dict[str, ActionOutput] = {}


def load(path: Path = ACTION) -> ActionMetadata:
    return parse_model(read_text(path), str(path), ActionMetadata).model


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _default(spec: ActionInput) -> str:
    if spec.required:
        return "required"
    return f"`{spec.default}`" if spec.default else "empty"


def tables(action: ActionMetadata) -> dict[str, str]:
    """The generated parts, by name: the inputs with their defaults, and the outputs."""
    inputs = [f"| `{name}` | {_default(spec)} | {_cell(spec.description)} |" for name, spec in action.inputs.items()]
    outputs = [f"| `{name}` | {_cell(spec.description)} |" for name, spec in action.outputs.items()]
    return {
        "action-inputs": "\n".join(["| input | default | what it sets |", "|---|---|---|", *inputs]) + "\n",
        "action-outputs": "\n".join(["| output | what it holds |", "|---|---|", *outputs]) + "\n",
    }


def with_tables(readme: str, action: ActionMetadata) -> str:
    """The README with both tables regenerated."""
    return regenerate(readme, tables(action), "README.md")


if __name__ == "__main__":
    if sys.argv[1:] != ["--readme"]:
        sys.exit("usage: python -m bot.action_metadata --readme < README.md > README.md.new")
    sys.stdout.write(with_tables(sys.stdin.read(), load()))
