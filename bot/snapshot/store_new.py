"""Round-trip YAML storage, a new file: a snapshot that has no file yet, in the store's own layout
(as `store_save.dump_new` writes it), with comments a person reads at the top of the file and
before top-level keys. `perfbot import` says there where each part came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruamel.yaml.comments import CommentedMap

from bot.snapshot.model import Snapshot
from bot.snapshot.store import dump_tree
from bot.snapshot.store_patch import patch_map
from bot.snapshot.store_style import Style


def commented_text(snapshot: Snapshot, header: Sequence[str], before: Mapping[str, Sequence[str]]) -> str:
    """The snapshot's text, `header` as the file's first comment lines and `before[key]` as the
    comment lines above each top-level key the file writes (after a blank line, unless nothing
    comes before it). A line break inside a line starts another comment line, never a key."""
    tree = CommentedMap()
    patch_map(tree, *snapshot.to_data(), Style())
    if header:
        tree.yaml_set_start_comment("\n".join(_lines(header)))
    for position, key in enumerate(tree):
        lines = _lines(before.get(key, ()))
        if lines:
            spaced = ["", *lines] if position or header else lines
            tree.yaml_set_comment_before_after_key(key, before="\n".join(spaced))
    return dump_tree(tree)


def _lines(lines: Sequence[str]) -> list[str]:
    return [part for line in lines for part in (line.splitlines() or [""])]
