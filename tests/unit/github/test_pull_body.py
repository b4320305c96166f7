"""The regeneration PR's body: perfbot's part between its markers, and people's text above and below
it, whatever people do to the text around it or to its markers (issue #39)."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from bot.commands.records import records_above_pull, records_in_pull
from bot.github.markers import marker
from bot.github.pull_body import END, assemble, parts

RECORD = marker(
    "decision", '{"f":2,"c":7,"i":1,"a":"alice","at":"2026-08-27T10:00:00+00:00","l":1,"v":"accepted","t":"x"}'
)
INNER = RECORD + "\nperfbot reconciled the snapshot.\n\n" + END

# People's text: any text, with the pieces of perfbot's markers and line breaks of every kind in it.
pieces = st.sampled_from([END, RECORD, "<!-- perfbot:pr-body 5.0123456789abcdef -->", "\r\n", "\n", "note", " "])
people = st.lists(st.one_of(pieces, st.text(max_size=8)), max_size=8).map("".join)


def test_perfbots_part_reads_back_as_written_with_people_text_around_it() -> None:
    body = assemble("A note above.", INNER, "\n\nA note below.")
    assert body.startswith("A note above.\n\n<!-- perfbot:pr-body ")
    read = parts(body)
    assert (read.above, read.below, read.edited) == ("A note above.\n\n", "\n\nA note below.", False)
    assert read.ours.endswith("\n" + INNER)
    assert read.joined() == body
    assert list(records_in_pull(body)) == [7]


def markdown_lines(text: str) -> str:
    """`text` with its line breaks as `\\n`, read as Markdown reads them (`\\r\\n` and a lone `\\r`)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def test_text_above_ending_in_a_lone_carriage_return_stays_as_github_shows_it() -> None:
    for above in ("\r", "A note.\r", "A note.\r\r"):
        read = parts(assemble(above, INNER, ""))
        assert read.above.startswith(markdown_lines(above))
        assert read.joined() == parts(read.joined()).joined()  # the next run writes it back alike


@given(above=people, below=people)
@example(above="A note.\r\r", below="\r")  # lone carriage returns, read as Markdown reads them
def test_people_text_is_kept_and_never_read_for_records(above: str, below: str) -> None:
    assume("<!-- perfbot:pr-body " not in markdown_lines(above))  # text above holds no start marker
    body = assemble(above, INNER, below)
    read = parts(body)
    assert read.above.startswith(markdown_lines(above))
    assert read.below == markdown_lines(below)
    assert not read.edited
    assert read.joined() == markdown_lines(body)
    assert parts(read.joined()) == read  # the next run reads what this one wrote back, and writes it alike
    assert records_in_pull(body) == records_in_pull(assemble("", INNER, ""))


def test_a_deleted_end_marker_leaves_the_text_below_it_peoples() -> None:
    body = assemble("", INNER, "\n\nA note below.").replace(END, "")
    read = parts(body)
    assert (read.below, read.edited) == ("\n\nA note below.", False)
    assert read.joined() == assemble("", INNER, "\n\nA note below.")  # a write puts the marker back


def test_an_edit_inside_perfbots_part_is_known_and_the_text_around_it_kept() -> None:
    body = assemble("Above.\n", INNER, "\nBelow.").replace("perfbot reconciled", "I think perfbot reconciled")
    read = parts(body)
    assert (read.above, read.below, read.edited) == ("Above.\n", "\nBelow.", True)
    # Edited inside and its end deleted too: nothing says where it ended, so it runs to the end.
    worse = parts(body.replace(END, ""))
    assert (worse.below, worse.edited) == ("", True)


def test_githubs_editor_line_breaks_are_no_edit() -> None:
    body = assemble("Above.\n", INNER, "\nBelow.")
    read = parts(body.replace("\n", "\r\n"))
    assert (read.above, read.below, read.edited) == ("Above.\n", "\nBelow.", False)
    assert read.joined() == body


def test_a_duplicated_part_is_peoples_text_below_the_first() -> None:
    once = assemble("", INNER, "")
    read = parts(once + "\n\n" + once)
    assert read.ours == once
    assert read.below == "\n\n" + once
    assert not read.edited


def test_records_above_perfbots_part_are_named_never_read() -> None:
    body = assemble(RECORD + "\n", INNER.replace(RECORD + "\n", ""), "")
    assert records_in_pull(body) == {}
    assert list(records_above_pull(body)) == [7]


def test_a_body_without_perfbots_start_marker() -> None:
    # Written before perfbot kept text above its part: its part runs from the top to its end marker.
    legacy = INNER + "\n\nA note below."
    assert (parts(legacy).ours, parts(legacy).below) == (INNER, "\n\nA note below.")
    assert list(records_in_pull(legacy)) == [7]
    # A body of people's text alone (perfbot's markers all gone) is theirs, all of it.
    assert parts("Our own description.") == ("Our own description.", "", "", False)
    assert records_in_pull("Our own description.\n" + RECORD) == {}


def test_each_way_perfbots_part_is_found_holds_exactly_what_it_holds() -> None:
    """Every branch of `parts`, the whole result compared."""
    start = assemble("", INNER, "").removesuffix(INNER)
    # Without a start marker: the part runs to the first end marker, even one at the very top.
    assert parts(END + "\n\nnote" + END) == ("", END, "\n\nnote" + END, False)
    assert parts(INNER + "\nnote\n" + END) == ("", INNER, "\nnote\n" + END, False)
    assert parts(RECORD) == ("", RECORD, "", False)
    # Its end marker deleted and nothing below: the part is found whole by its length.
    assert parts(assemble("A\n", INNER, "").replace(END, "")) == ("A\n", start + INNER, "", False)
    # Edited inside: up to the first end marker; with every end marker gone, to the end.
    edited = assemble("", INNER, "\n" + END).replace("perfbot reconciled", "edited")
    assert parts(edited) == ("", start + INNER.replace("perfbot reconciled", "edited"), "\n" + END, True)
    no_end = edited.replace(END, "")
    assert parts(no_end) == ("", no_end, "", True)


def test_the_digest_reads_any_text_perfbot_writes() -> None:
    for text in ("a line\r\nanother\r\n", "a lone surrogate \ud800 in a title", ""):
        inner = text + END
        assert parts(assemble("", inner, "\nBelow.")).ours.endswith(inner.replace("\r\n", "\n"))
        assert not parts(assemble("", inner, "\nBelow.")).edited
