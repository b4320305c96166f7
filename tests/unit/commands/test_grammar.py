"""Each verb's grammar on its own: the typed arguments it builds, or the argument error it raises."""

from __future__ import annotations

import datetime as dt
from typing import TypeVar

import pytest

from bot.commands import grammar
from bot.commands.grammar import (
    Args,
    ArgumentError,
    Blocking,
    Command,
    Completion,
    Drop,
    Evidence,
    ExitMet,
    NoArgs,
    Review,
    StateChange,
    Targeted,
)
from bot.commands.reading import parse
from bot.commands.registry import Verb, spec
from bot.issue_refs import ForeignIssue, IssueKey

S = TypeVar("S", bound=Args)


def build(verb: Verb, args: str) -> Args:
    return spec(verb).grammar.build(args)


def read(verb: Verb, args: str, shape: type[S]) -> S:
    built = build(verb, args)
    assert isinstance(built, shape)
    return built


def refused(verb: Verb, args: str) -> str:
    with pytest.raises(ArgumentError) as error:
        build(verb, args)
    return str(error.value)


def test_a_command_keeps_its_verb_line_and_text() -> None:
    (command,) = parse("hello\n/perf claim m1", "/perf", 1000, 100).commands
    assert command == Command("claim", 2, "/perf claim m1", Targeted("m1"))
    assert command.target == "m1"
    assert Command("help", 1, "t").target == ""


def test_parsed_lists_the_verb_and_only_the_arguments_given() -> None:
    assert Command("help", 1, "t").parsed() == {"verb": "help"}
    review = Command("review", 1, "t", Review("c", dt.date(2026, 9, 1), "n"))
    assert review.parsed() == {"verb": "review", "target": "c", "by": "2026-09-01", "note": "n"}
    assert Command("review", 1, "t", Review("c")).parsed() == {"verb": "review", "target": "c"}
    complete = Command("complete", 1, "t", Completion("m", "r", 5)).parsed()
    assert list(complete.items()) == [("verb", "complete"), ("target", "m"), ("result", "r"), ("receipt", 5)]
    evidence = Command("evidence", 1, "t", Evidence("c", "k", "s", "r")).parsed()
    assert list(evidence) == ["verb", "target", "evidence_class", "summary", "ref"]
    assert Command("drop", 1, "t", Drop((4,), True)).parsed() == {"verb": "drop", "drop_ids": (4,), "drop_all": True}


def test_an_effect_takes_the_arguments_in_its_shape() -> None:
    command = Command("state", 1, "t", StateChange("m", "ready"))
    assert command.of(StateChange) == StateChange("m", "ready")
    assert command.of(Targeted) == StateChange("m", "ready")
    with pytest.raises(TypeError, match=r"^`state` was read as StateChange, not Blocking$"):
        command.of(Blocking)


def test_usage_joins_the_forms() -> None:
    assert spec("drop").grammar.usage == "drop all | drop <comment-id> [<comment-id> ...]"
    assert spec("claim").grammar.usage == "claim <packet>"
    assert spec("help").grammar.forms == ("help",)


@pytest.mark.parametrize("ident", ["m1", "mac.m1-streamed_q4k/x", "9"])
def test_an_id_starts_with_a_letter_or_digit(ident: str) -> None:
    assert build("unblock", ident) == Targeted(ident)


def test_an_id_runs_to_the_next_space_whatever_its_characters() -> None:
    assert read("block", "pﬁx waiting", Blocking) == Blocking("pﬁx", "waiting")
    assert read("block", "m1‐x waiting", Blocking) == Blocking("m1‐x", "waiting")  # U+2010, not `-`
    assert read("claim", "ｍ１", Targeted) == Targeted("ｍ１")
    assert read("claim", "мa", Targeted) == Targeted("мa")
    assert refused("claim", "m1 x") == "unexpected text after the packet id: `x`"
    assert refused("evidence", "c1 іssue summary (ref)") == "expected an evidence class such as `issue` or `accepted`"


@pytest.mark.parametrize(("args", "message"), [("", "expected a packet id"), ("-m1", "expected a packet id")])
def test_a_missing_id(args: str, message: str) -> None:
    assert refused("unclaim", args) == message


def test_text_after_a_single_id_is_quoted_back() -> None:
    assert refused("claim", "m1 please `now`") == "unexpected text after the packet id: `` please `now` ``"
    assert refused("exit", "") == "expected a constraint id"


@pytest.mark.parametrize(
    ("args", "result", "receipt"),
    [
        ("m1 result: fast", "fast", None),
        ("m1 RESULT:fast", "fast", None),
        ('m1 result: "quoted: text"', "quoted: text", None),
        ('m1 result: " padded "', "padded", None),
        ('m1 result: "fast', '"fast', None),  # an unclosed quote is kept as written
        ('m1 result: "', '"', None),  # a lone quote is text
        ("m1 result: x receipt: #9482", "x", 9482),
        ("m1 result: x  Receipt:#1  ", "x", 1),
        ("m1 result: receipt: #12 is in", "receipt: #12 is in", None),
        ("m1 result: x receipt: acme/bench#3", "x", ForeignIssue.of("acme/bench", 3)),
        ("m1 result: x receipt: https://github.com/acme/bench/issues/3", "x", ForeignIssue.of("acme/bench", 3)),
    ],
)
def test_complete(args: str, result: str, receipt: IssueKey | None) -> None:
    command = read("complete", args, Completion)
    assert (command.target, command.result, command.receipt) == ("m1", result, receipt)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("m1", "expected `result: <text>`"),
        ("m1 because: x", "expected `result: <text>`"),
        ("m1 result:", "result is empty"),
        ('m1 result: ""', "result is empty"),
        ('m1 result: "  "', "result is empty"),
        ("m1 result: x receipt: #0", "receipt must be an issue reference like #123 or owner/repo#123, not `#0`"),
        ("m1 result: x receipt: 12", "receipt must be an issue reference like #123 or owner/repo#123, not `12`"),
        (
            "m1 result: x receipt: #12345678901",
            "receipt must be an issue reference like #123 or owner/repo#123, not `#12345678901`",
        ),
    ],
)
def test_complete_refused(args: str, message: str) -> None:
    assert refused("complete", args) == message


def test_a_long_receipt_is_cut_in_the_message() -> None:
    message = refused("complete", "m1 result: x receipt: " + "y" * 60)
    assert message == "receipt must be an issue reference like #123 or owner/repo#123, not `" + "y" * 39 + "…`"


@pytest.mark.parametrize(
    ("args", "state", "reason"),
    [
        ("m5 capacity-hold", "capacity-hold", ""),
        ("m5 waiting-evidence reason: no node", "waiting-evidence", "no node"),
        ('m5 ready REASON: "lifted"', "ready", "lifted"),
    ],
)
def test_state(args: str, state: str, reason: str) -> None:
    command = read("state", args, StateChange)
    assert (command.target, command.state, command.reason) == ("m5", state, reason)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("m5", "expected a state"),
        (
            "m5 paused",
            "unknown state `paused`; states: running, ready, waiting-dependency, waiting-coordination, "
            "waiting-evidence, capacity-hold, complete",
        ),
        ("m5 complete", "use `complete <packet> result: <text>` to complete a packet"),
        ("m5 ready because", "expected `reason: <text>` after the state"),
        ("m5 ready reason:  ", "reason is empty"),
    ],
)
def test_state_refused(args: str, message: str) -> None:
    assert refused("state", args) == message


def test_an_unknown_state_is_cut_in_the_message() -> None:
    assert refused("state", "m5 " + "s" * 50).startswith("unknown state `" + "s" * 39 + "…`; states: ")


def test_block() -> None:
    assert build("block", 'm1 "exclusive window"') == Blocking("m1", "exclusive window")
    assert refused("block", "m1") == "condition is empty"


@pytest.mark.parametrize(
    ("args", "by", "note"),
    [
        ("c", None, ""),
        ("c by 2026-09-10", dt.date(2026, 9, 10), ""),
        ("c BY 2026-09-10 note: re-measured", dt.date(2026, 9, 10), "re-measured"),
        ("c note: by 2026-09-10 was wrong", None, "by 2026-09-10 was wrong"),
        ("c NOTE:plain", None, "plain"),
    ],
)
def test_review(args: str, by: dt.date | None, note: str) -> None:
    command = read("review", args, Review)
    assert (command.target, command.by, command.note) == ("c", by, note)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("c tomorrow", "unexpected text `tomorrow`"),
        ("c by tomorrow", "`tomorrow` is not a date (YYYY-MM-DD)"),
        ("c by 2026-02-30", "`2026-02-30` is not a date (YYYY-MM-DD)"),
        ("c by 2026-9-1", "`2026-9-1` is not a date (YYYY-MM-DD)"),
        ("c by 20260901", "`20260901` is not a date (YYYY-MM-DD)"),
        ("c by 2026-09-10 extra", "unexpected text `by 2026-09-10 extra`"),
        ("c note:", "note is empty"),
        ("c bynote: x", "unexpected text `bynote: x`"),
    ],
)
def test_review_refused(args: str, message: str) -> None:
    assert refused("review", args) == message


def test_a_long_unexpected_review_text_is_cut_in_the_message() -> None:
    assert refused("review", "c " + "z" * 80) == "unexpected text `" + "z" * 59 + "…`"
    assert refused("review", "c by " + "9" * 50) == "`" + "9" * 39 + "…` is not a date (YYYY-MM-DD)"


@pytest.mark.parametrize(
    ("args", "cls", "summary", "ref"),
    [
        ("c accepted Five runs (5/5) exact (docs/x.json)", "accepted", "Five runs (5/5) exact", "docs/x.json"),
        ("c issue summary (see (nested) ref)", "issue", "summary", "see (nested) ref"),
        ('c issue "quoted" ( spaced )', "issue", "quoted", "spaced"),
    ],
)
def test_evidence(args: str, cls: str, summary: str, ref: str) -> None:
    command = read("evidence", args, Evidence)
    assert (command.target, command.evidence_class, command.summary, command.ref) == ("c", cls, summary, ref)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("c", "expected an evidence class such as `issue` or `accepted`"),
        ("c -x summary (ref)", "expected an evidence class such as `issue` or `accepted`"),
        ("c issue no reference", "expected the reference in parentheses at the end: `(<ref>)`"),
        ("c issue bad)", "unbalanced parentheses around the reference"),
        ("c issue (ref)", "summary is empty"),
        ("c issue summary ()", "reference is empty"),
    ],
)
def test_evidence_refused(args: str, message: str) -> None:
    assert refused("evidence", args) == message


def test_exit() -> None:
    command = read("exit", "laptop MET: #9600", ExitMet)
    assert (command.target, command.ref) == ("laptop", "#9600")
    assert refused("exit", "laptop") == "expected `met: <ref>`"
    assert refused("exit", "laptop met: ") == "reference is empty"


def test_help_ignores_what_follows() -> None:
    assert build("help", "me please") == NoArgs()


@pytest.mark.parametrize(
    ("args", "ids", "every"),
    [("all", (), True), ("ALL", (), True), ("101, 102 103", (101, 102, 103), False), ("7", (7,), False)],
)
def test_drop(args: str, ids: tuple[int, ...], every: bool) -> None:
    command = read("drop", args, Drop)
    assert (command.drop_ids, command.drop_all) == (ids, every)


@pytest.mark.parametrize("args", ["", "some", "101 x", "1" * 19, "all 101"])
def test_drop_refused(args: str) -> None:
    assert refused("drop", args) == "expected `all` or comment ids"


def test_only_id_builds_a_grammar_for_one_id() -> None:
    unblock = grammar.only_id("unblock", "packet")
    assert unblock.forms == ("unblock <packet>",)
    assert unblock.build("m1") == Targeted("m1")
    with pytest.raises(ArgumentError, match=r"^unexpected text after the packet id: `" + "z" * 59 + "…`$"):
        unblock.build("m1 " + "z" * 70)
    with pytest.raises(ArgumentError, match=r"^expected a packet id$"):
        unblock.build("")


def test_verb_only_builds_a_grammar_that_ignores_its_arguments() -> None:
    help_ = grammar.verb_only("help")
    assert help_.forms == ("help",)
    assert help_.build("x") == NoArgs()


def test_syntax_pairs_forms_with_their_reader() -> None:
    declared = grammar.syntax("a <x>", "a all")(grammar.verb_only("help").build)
    assert declared.forms == ("a <x>", "a all")
    assert declared.build("") == NoArgs()


@pytest.mark.parametrize(
    ("verb", "args", "built"),
    [
        ("complete", "m1 result: r", Completion(target="m1", result="r")),
        ("state", "m1 ready", StateChange(target="m1", state="ready")),
        ("block", "m1 c", Blocking(target="m1", condition="c")),
        ("review", "c1", Review(target="c1")),
        (
            "evidence",
            "c1 k s (r)",
            Evidence(target="c1", evidence_class="k", summary="s", ref="r"),
        ),
        ("exit", "c1 met: r", ExitMet(target="c1", ref="r")),
        ("drop", "all", Drop(drop_all=True)),
        ("drop", "5", Drop(drop_ids=(5,))),
    ],
)
def test_each_reader_builds_all_its_arguments(verb: Verb, args: str, built: Args) -> None:
    assert build(verb, args) == built


@pytest.mark.parametrize(
    ("verb", "what"),
    [
        ("complete", "packet"),
        ("state", "packet"),
        ("block", "packet"),
        ("review", "constraint"),
        ("evidence", "constraint"),
    ],
)
def test_each_reader_names_the_id_it_expects(verb: Verb, what: str) -> None:
    assert refused(verb, "") == f"expected a {what} id"
