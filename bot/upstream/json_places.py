"""Where each value of a JSON text is: its key path mapped to a line and column, so a problem found
in the data read from it can name its place in the file, as the snapshot store does for YAML.

The text has been read already (`bot.json_input`), so it is valid JSON and the scan can be a
simple one: strings are skipped whole, and brackets, colons and commas say where the path goes.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence

Path = tuple[str | int, ...]

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]|[^\s\[\]{},:"]+', re.DOTALL)


class _Frame:
    """One open object or array: its path, and the member or item being read."""

    def __init__(self, path: Path, is_object: bool) -> None:
        self.path, self.is_object = path, is_object
        self.index = 0
        self.key = ""  # JSON names a member's key before its value
        self.wants_key = is_object

    def child(self) -> Path:
        return (*self.path, self.key if self.is_object else self.index)


class Places:
    """Every key path of a JSON text with the 1-based line and column where it starts: a member at
    its key, an array item at its value, the whole text at 1:1."""

    def __init__(self, text: str) -> None:
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self._at: dict[Path, int] = {(): 0}
        stack: list[_Frame] = []
        for match in _TOKENS.finditer(text):
            self._token(stack, match.group(), match.start())

    def _token(self, stack: list[_Frame], token: str, offset: int) -> None:
        top = stack[-1] if stack else None
        if token in ("]", "}"):
            stack.pop()
        elif token == ",":
            if top is not None:
                top.index += 1
                top.wants_key = top.is_object
        elif top is not None and top.wants_key:
            top.key, top.wants_key = _key(token), False
            self._at.setdefault(top.child(), offset)
        else:  # a value, or the colon before one (which names nothing)
            path = top.child() if top is not None else ()
            if top is not None and not top.is_object:
                self._at.setdefault(path, offset)
            if token in ("[", "{"):
                stack.append(_Frame(path, token == "{"))

    def locate(self, loc: Sequence[str | int]) -> tuple[int, int]:
        """Line and column of `loc`, or of the nearest enclosing value the text has (a missing key
        is reported where its object is)."""
        path = tuple(loc)
        while path not in self._at:
            path = path[:-1]
        offset = self._at[path]
        line = bisect.bisect_right(self._lines, offset)
        return line, offset - self._lines[line - 1] + 1


def _key(token: str) -> str:
    try:
        return str(json.loads(token))
    except ValueError:
        return token
