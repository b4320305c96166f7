"""Round-trip YAML storage, saving side: a changed model written back into the tree it came from.

Only the leaves that changed are written back (`store_patch`), so comments, key order, quoting
and flow style survive and an unchanged save is byte-identical; changed records are emitted alone
and spliced between the untouched source lines (`store_emit`), and are found without parsing the
whole file the round-trip way when that is sure to give the same text (`store_splice`).
"""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap

from bot.snapshot.model import Snapshot
from bot.snapshot.store import Loaded, dump_tree
from bot.snapshot.store_emit import splice_tree
from bot.snapshot.store_patch import clone_tree, patch_map
from bot.snapshot.store_splice import fast_save_text


def save_text(loaded: Loaded[Snapshot], snapshot: Snapshot, *, splice: bool = True, fast: bool = True) -> str:
    """The file text for `snapshot`, written into a copy of the tree it was loaded from.

    Re-emitting a whole file through ruamel costs about 4 ms per packet, so by default only the
    changed top-level values and records are emitted and spliced between the untouched source
    lines; the result is the same text a full dump gives (a property the tests check). Building
    the whole file's round-trip tree costs more still, so `fast` first tries to round-trip only
    the changed sections and records (`store_splice`), which gives the same text again.
    """
    if loaded.text and snapshot == loaded.model:
        return loaded.text  # unchanged: the source bytes, without paying for a re-emit
    if splice and fast and loaded.text:
        text = fast_save_text(loaded.text, loaded.model, snapshot, loaded.seen)
        if text is not None:
            return text
    tree = clone_tree(loaded.tree)
    patch_map(tree, *snapshot.to_data())
    if splice and loaded.text:
        spliced = splice_tree(loaded.tree, loaded.text, tree)
        if spliced is not None:
            return spliced
    return dump_tree(tree)


def dump_new(snapshot: Snapshot) -> str:
    """Text of a snapshot that has no source file yet."""
    tree = CommentedMap()
    patch_map(tree, *snapshot.to_data())
    return dump_tree(tree)
