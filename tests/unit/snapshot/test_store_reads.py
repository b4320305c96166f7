"""A snapshot text read again gives the model its first read gave, without reading it again, and
each reader gets its own `Loaded` (its own layout lists, its own file name, its own lazy tree); a
snapshot written again into the same text is the text its first edit made."""

from __future__ import annotations

import pytest

from bot.config import BotConfig
from bot.errors import InputError
from bot.snapshot import store, store_save
from bot.snapshot.model import Snapshot
from tests.support.paths import ROOT


def test_a_text_read_again_gives_the_same_model_and_each_reader_its_own_loaded(seed_text: str) -> None:
    first = store.parse_model(seed_text, "a.yaml", Snapshot)
    again = store.parse_model(seed_text, "b.yaml", Snapshot)
    assert again.model is first.model
    assert (again.file, again.text) == ("b.yaml", seed_text)
    assert first.seen is not None
    assert again.seen is not None
    assert again.seen == first.seen
    held = [items for *_, items in again.seen if items]
    assert held
    assert not {id(items) for *_, items in first.seen} & {id(items) for items in held}
    held[0].clear()  # one reader's lists are its own: the next reader sees what loading saw
    assert store.parse_model(seed_text, "c.yaml", Snapshot).seen == first.seen


def test_a_text_with_a_problem_is_refused_every_time_naming_the_file_given(seed_text: str) -> None:
    broken = seed_text.replace("as_of: 2026-08-27", "as_of: someday", 1)
    assert broken != seed_text
    for file in ("one.yaml", "two.yaml"):
        with pytest.raises(InputError) as caught:
            store.parse_model(broken, file, Snapshot)
        assert all(p.file == file for p in caught.value.problems)


def test_only_the_last_few_texts_are_kept(seed_text: str) -> None:
    first = store.parse_model(seed_text, "s.yaml", Snapshot).model
    for n in range(store._snapshots_read.size):
        store.parse_model(f"{seed_text}# {n}\n", "s.yaml", Snapshot)
    later = store.parse_model(seed_text, "s.yaml", Snapshot).model
    assert later == first
    assert later is not first


def test_other_models_are_read_afresh_each_time() -> None:
    text = (ROOT / "config" / "perfbot.yaml").read_text(encoding="utf-8")
    assert store.parse_model(text, "c.yaml", BotConfig).model is not store.parse_model(text, "c.yaml", BotConfig).model


def ready(snapshot: Snapshot, packet_id: str) -> Snapshot:
    packets = tuple(p.model_copy(update={"state": "ready"}) if p.id == packet_id else p for p in snapshot.work_packets)
    return snapshot.model_copy(update={"work_packets": packets})


def test_a_snapshot_written_again_into_the_same_text_is_the_text_its_first_edit_made(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "s.yaml", Snapshot)
    waiting = [p.id for p in loaded.model.work_packets if p.state != "ready"]
    one, other = (ready(loaded.model, packet_id) for packet_id in waiting[:2])
    first = store_save.save_text(loaded, one)
    assert store_save.save_text(store.parse_model(seed_text, "t.yaml", Snapshot), one) is first
    assert store_save.save_text(loaded, ready(loaded.model, waiting[0])) is first
    second = store_save.save_text(loaded, other)
    assert second != first
    assert store.parse_model(second, "s.yaml", Snapshot).model == other
    # Another text the same snapshot is written into is edited for itself.
    noted = store.parse_model(seed_text + "# a note\n", "s.yaml", Snapshot)
    assert store_save.save_text(noted, one) == first + "# a note\n"


def test_only_the_last_few_edits_are_kept(seed_text: str) -> None:
    loaded = store.parse_model(seed_text, "s.yaml", Snapshot)
    waiting = [p.id for p in loaded.model.work_packets if p.state != "ready"]
    assert len(waiting) > store_save._edits_made.size
    first = store_save.save_text(loaded, ready(loaded.model, waiting[0]))
    for packet_id in waiting[1 : store_save._edits_made.size + 1]:
        store_save.save_text(loaded, ready(loaded.model, packet_id))
    again = store_save.save_text(loaded, ready(loaded.model, waiting[0]))
    assert again == first
    assert again is not first
