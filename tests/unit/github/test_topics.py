"""The topic registry: one entry per word of `Topic`, each with a template that exists and a meaning."""

from __future__ import annotations

from typing import get_args

from bot.github.actions import LIVING_TOPICS, TOPICS, Topic
from tests.support.paths import ROOT


def test_the_registry_has_an_entry_per_topic_in_the_literals_order() -> None:
    assert tuple(TOPICS) == get_args(Topic)


def test_each_topic_has_its_own_template_and_a_meaning() -> None:
    templates = [spec.template for spec in TOPICS.values()]
    assert len(set(templates)) == len(templates)
    for topic, spec in TOPICS.items():
        assert (ROOT / "templates" / spec.template).is_file(), topic
        assert spec.meaning.strip() == spec.meaning != "", topic


def test_the_records_among_the_topics_are_living_comments_and_say_so() -> None:
    """A record (what is so now) is one comment edited in place; every other topic is an event,
    said once per the fact its marker keys (an episode, a date, a comment, a removal)."""
    assert set(LIVING_TOPICS) == {"native-links"}
    for topic in LIVING_TOPICS:
        assert "edited in place" in TOPICS[topic].meaning
    assert not any("edited in place" in TOPICS[t].meaning for t in set(TOPICS) - LIVING_TOPICS)
