"""The offline state file's text, exactly as `json.dumps(raw, indent=2) + "\\n"` writes it, re-encoding
only the records that changed since the last save.

The offline adapter writes the whole file after every write (each write is durable on its own,
as on GitHub), and `json.dumps` with an indent runs in pure Python: re-encoding 10,000 comments
for each of a run's 50 writes took seconds. The records of the top-level lists are encoded once,
kept with a copy of what they held, and encoded again only when they no longer equal that copy
(comparing is done in C), so each save costs the new records plus a comparison. The members of a
top-level object are records in the same way.

Remembering costs: a record encoded alone, indented and deep-copied takes three times what one
`json.dumps` of the whole state takes. So the first save of an encoder is that one call and
remembers nothing: a journalled run saves once (its fold), and pays only that. Records are
remembered from the second save on, by the adapters that save after every write.
"""

from __future__ import annotations

import copy
import json
from typing import Any


def _indented(text: str, indent: str) -> str:
    """A nested value's text: encoded alone, each line after the first moved right by `indent`
    (an encoded string never holds a raw line break, so every line break is the encoder's)."""
    return text.replace("\n", "\n" + indent)


def _alike(copy_: Any, value: Any) -> bool:
    """Equal values that JSON also writes alike: `==` takes `0` for `False`, `1` for `1.0`, `0.0` for
    `-0.0` and two objects with their keys in another order as the same, which JSON does not (only
    called once `==` said equal, so this only tells those apart)."""
    if type(copy_) is not type(value):
        return False
    if isinstance(value, dict):
        return list(copy_) == list(value) and all(_alike(copy_[key], item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(map(_alike, copy_, value))
    return type(value) is not float or copy_.hex() == value.hex()  # 0.0 == -0.0, which JSON writes apart


class StateEncoder:
    """Encodes one state dict again and again, remembering the text of each list record."""

    def __init__(self) -> None:
        # id(record) -> (the record, a deep copy of it when encoded, its text at depth 2)
        self._records: dict[int, tuple[Any, Any, str]] = {}
        self._saved_once = False

    def text(self, raw: dict[str, Any]) -> str:
        # The first save, an empty state, or keys JSON converts to text: as `json.dumps` writes it.
        if not self._saved_once or not raw or not all(type(key) is str for key in raw):
            self._saved_once = True
            return json.dumps(raw, indent=2) + "\n"
        members = [f"  {json.dumps(key)}: {self._value(value)}" for key, value in raw.items()]
        return "{\n" + ",\n".join(members) + "\n}\n"

    def _value(self, value: Any) -> str:
        if isinstance(value, list | tuple) and value:
            return "[\n" + ",\n".join("    " + self._record(item) for item in value) + "\n  ]"
        if isinstance(value, dict) and value and all(type(key) is str for key in value):
            # A top-level object (the branch files, the GitHub double's git store): its members are
            # records too, so a change to one re-encodes that one only.
            members = (f"    {json.dumps(key)}: {self._record(item)}" for key, item in value.items())
            return "{\n" + ",\n".join(members) + "\n  }"
        return _indented(json.dumps(value, indent=2), "  ")

    def _record(self, item: Any) -> str:
        if not isinstance(item, dict | list | tuple):
            return json.dumps(item)  # a scalar: quicker to encode than to remember
        known = self._records.get(id(item))
        if known is not None and known[0] is item and known[1] == item and _alike(known[1], item):
            return known[2]
        text = _indented(json.dumps(item, indent=2), "    ")
        self._records[id(item)] = (item, copy.deepcopy(item), text)
        return text
