"""A new snapshot file with comments (`store_save.commented_text`): the store's own layout, every comment where it
was asked for, and nothing a comment holds can become YAML."""

from __future__ import annotations

from bot.snapshot.model import Snapshot
from bot.snapshot.store import parse_model
from bot.snapshot.store_save import commented_text, dump_new
from tests.unit.snapshot.values import valid


def test_without_comments_it_is_the_stores_own_layout() -> None:
    snapshot = valid()
    assert commented_text(snapshot, [], {}) == dump_new(snapshot)


def test_comments_sit_at_the_top_and_above_their_keys_and_the_text_reads_back() -> None:
    snapshot = valid()
    text = commented_text(snapshot, ["first", "second"], {"schema": ["who"], "levers": ["from the graph", "kept"]})
    assert parse_model(text, "s.yaml", Snapshot).model == snapshot
    lines = text.splitlines()
    assert lines[:5] == ["# first", "# second", "", "# who", "schema: fak-native-performance-current/2"]
    at = lines.index("levers:")
    assert lines[at - 3 : at] == ["", "# from the graph", "# kept"]
    assert sum(line.startswith("#") for line in lines) == 5


def test_a_key_comment_without_a_header_starts_the_file() -> None:
    text = commented_text(valid(), [], {"schema": ["who"], "as_of": ["when"], "not-a-key": ["lost"]})
    assert text.splitlines()[:4] == ["# who", "schema: fak-native-performance-current/2", "", "# when"]
    assert "lost" not in text


def test_a_line_break_in_a_comment_starts_another_comment_line() -> None:
    snapshot = valid()
    forged = "name\nschema: forged\r\nas_of: 1999-01-01\x85levers: []\u2028x"
    text = commented_text(snapshot, [forged], {"constraints": [forged]})
    assert parse_model(text, "s.yaml", Snapshot).model == snapshot
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert comments[:5] == ["# name", "# schema: forged", "# as_of: 1999-01-01", "# levers: []", "# x"]
    assert comments[5:] == comments[:5]
