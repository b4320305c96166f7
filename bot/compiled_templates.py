"""perfbot's own templates shipped compiled: the command that generates `bot/compiled_templates.json`.

Compiling a template is jinja2's parse and code generation, then Python's compile of the code it
generates; the first two were about half of a seed run's CPU. They depend only on the template's
source, jinja2's version and perfbot's environment options, so the file (beside `bot/render.py`,
in the wheel and in the action's checkout) holds jinja2's generated Python for every shipped
template, with the checksum of the source it came from; `bot/render.py` reads it with the
templates and uses it where it applies (see `render.ShippedCode`).

Regenerate after changing a template, from the repository's root: `python -m bot.compiled_templates`;
`--check` fails with a diff when the committed file is stale (CI runs it).
"""

from __future__ import annotations

import json
import sys

import jinja2
from jinja2.bccache import BytecodeCache

from bot.generated import Generated
from bot.render import COMPILED, FILTERS, OPTIONS, compiled_stamp, environment, shipped_templates

NAME = "bot/compiled_templates.json"


def generate(templates: dict[str, str]) -> str:
    """The file's text: the stamp, then one line per template (so changes to two templates merge)."""
    compiler = environment(jinja2.DictLoader({}))
    checksum = BytecodeCache().get_source_checksum
    entries = [
        json.dumps([name, checksum(source), compiler.compile(source, name, name, raw=True)])
        for name, source in sorted(templates.items())
    ]
    return "[\n" + ",\n".join([json.dumps(compiled_stamp(OPTIONS, FILTERS)), *entries]) + "\n]\n"


def _name(line: str) -> str:
    """The template a line of the file is for (the first line, the stamp, is jinja2's and the options')."""
    try:
        found = json.loads(line.rstrip(","))
    except ValueError:
        return "the file's shape"
    return str(found[0]) if isinstance(found, list) and found else "the jinja2 version or options"


def main(argv: list[str]) -> int:
    """Write the file, or with `--check` say whether it is fresh (exit 1 naming the stale templates)."""
    fresh = Generated(NAME, COMPILED, generate(shipped_templates()))
    if "--check" not in argv:
        fresh.write()
        sys.stdout.write(f"wrote {NAME}\n")
        return 0
    if fresh.committed() != fresh.text:
        stale = sorted(set(fresh.committed().splitlines()) ^ set(fresh.text.splitlines()))
        names = sorted({_name(line) for line in stale})
        sys.stderr.write(f"{NAME} is stale ({', '.join(names)}): run python -m bot.compiled_templates\n")
        return 1
    sys.stdout.write(f"{NAME} is up to date\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
