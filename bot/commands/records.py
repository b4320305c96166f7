"""What the bot's own comments record about commands, in their hidden markers.

- A reply to a command comment carries `command-reply <comment id>` and one `decision <record>`
  per command line: the line's verdict and, when accepted, its text, author and time, so a later
  run can replay it without the comment (which may be edited or deleted since).
- When a command comment is answered quietly (one 🚀, no reply: `commands.replies: errors`), the
  records of its accepted changes go in the header of the regeneration PR's body instead, which
  carries them from run to run until they merge (see `pipeline`).
- The same records go, as git trailers (`Perfbot-Decision: <record>`, `RECORD_TRAILER`), in the message of the commit
  perfbot makes on its branch. A commit's message cannot be edited: it keeps them when a person
  rewrites the PR's body or closes the PR (see `pipeline`).
- A lapsed notice carries `lapsed <comment id>:<line>`. A command *lapses* when it was accepted
  but no longer applies to the default branch's snapshot (its packet renamed, say): it is left
  out of the update and reported once, and is settled from then on.

A record's JSON names its format (`f`). Format 1 had no `f`; format 2 only adds it. Real
repositories carry format 1 records, so both decode.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Literal, NamedTuple, get_args

from bot.github import pull_body
from bot.github.actions import RECORD_TRAILER
from bot.github.markers import marker, markers_in
from bot.github.observed import Comment
from bot.issue_refs import issue_json

# A command line across runs: (comment id, line number in the comment).
Key = tuple[int, int]
# What a reply records on a line.
Verdict = Literal["accepted", "refused"]
# What this run reports on a line (the plan JSON's `decision`).
Decision = Literal["accepted", "refused", "answered", "merged", "dropped", "replayed", "lapsed"]

REPLY_TOPIC = "command-reply"
DECISION_TOPIC = "decision"
# The digest of the comment's text a reply decided on: an edit since is a text not decided yet.
TEXT_TOPIC = "decided-text"
LAPSED_TOPIC = "lapsed"
FORMAT = 2
_READABLE_FORMATS = (1, 2)
_VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
# A record's JSON: `json.dumps(..., ensure_ascii=False, separators=(",", ":"))`, its encoder made once.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class Record(NamedTuple):
    """A decision as the bot's reply recorded it."""

    comment: Comment
    line: int
    verdict: Verdict
    text: str

    def key(self) -> Key:
        return (self.comment.id, self.line)

    def marker(self) -> str:
        """The record as one marker line of a header."""
        return marker(DECISION_TOPIC, self.encode())

    def encode(self) -> str:
        """Accepted records keep the command's text for replay; refused ones need only the verdict."""
        c = self.comment
        text = self.text if self.verdict == "accepted" else ""
        data = {
            "f": FORMAT,
            "c": c.id,
            "i": issue_json(c.issue),
            "a": c.user,
            "at": c.created_at.isoformat(),
            "l": self.line,
        }
        return _COMPACT.encode({**data, "v": self.verdict, "t": text})

    @classmethod
    def decode(cls, key: str) -> Record | None:
        """The record, or None when it is not one this bot can read (malformed, or a later format)."""
        try:
            data = json.loads(key)
            if data.get("f", 1) not in _READABLE_FORMATS:
                return None
            comment = Comment(id=data["c"], issue=data["i"], user=data["a"], created_at=data["at"], body=data["t"])
            verdict = next((v for v in _VERDICTS if v == data["v"]), None)
            if verdict is None or not isinstance(data["l"], int):
                return None
            return cls(comment, data["l"], verdict, data["t"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def text_digest(body: str) -> str:
    """What a reply records of the text it decided on: enough to tell an edited text from it."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def first_replies(replies: list[Comment]) -> dict[int, Comment]:
    """The bot's first reply to each command comment, by that comment's id: the one that counts."""
    found: dict[int, Comment] = {}
    for reply in sorted(replies, key=lambda c: c.id):
        header = markers_in(reply.body)
        replied = [int(key) for topic, key in header if topic == REPLY_TOPIC and key.isascii() and key.isdigit()]
        if len(replied) == 1 and replied[0] not in found:
            found[replied[0]] = reply
    return found


def recorded_decisions(replies: list[Comment]) -> dict[int, list[Record]]:
    """Decision records by comment id, from the bot's own comments; its first reply to a comment counts."""
    records: dict[int, list[Record]] = {}
    for cid, reply in first_replies(replies).items():
        found = [Record.decode(key) for topic, key in markers_in(reply.body) if topic == DECISION_TOPIC]
        records[cid] = sorted((r for r in found if r is not None and r.comment.id == cid), key=lambda r: r.line)
    return records


def decided_text(reply: Comment, comment_id: int) -> str:
    """The digest of the text of comment `comment_id` that `reply` decided on ("" for a reply
    written before it was recorded). Its marker names the comment: every marker is unique to it."""
    keys = (key.partition(":") for topic, key in markers_in(reply.body) if topic == TEXT_TOPIC)
    return next((digest for cid, _, digest in keys if cid == str(comment_id)), "")


def records_in_pull(body: str) -> dict[int, list[Record]]:
    """Decision records by comment id, from the header of perfbot's part of the regeneration PR's
    body (never from people's text above or below it, which perfbot writes back as it is)."""
    return _accepted_in(pull_body.parts(body).ours)


def records_above_pull(body: str) -> dict[int, list[Record]]:
    """Records in the header of people's text above perfbot's part of the PR's body: never counted
    (perfbot writes that text back as people left it), only named."""
    return _accepted_in(pull_body.parts(body).above)


def records_in_commit(message: str) -> dict[int, list[Record]]:
    """Decision records by comment id, from the trailers of a commit's message."""
    prefix = f"{RECORD_TRAILER}: "
    lines = sorted(line[len(prefix) :] for line in message.splitlines() if line.startswith(prefix))
    return _accepted(Record.decode(line) for line in lines)


def _accepted_in(text: str) -> dict[int, list[Record]]:
    """The accepted decision records of the markers in `text`, by comment id."""
    return _accepted(Record.decode(key) for topic, key in sorted(markers_in(text)) if topic == DECISION_TOPIC)


def _accepted(found: Iterable[Record | None]) -> dict[int, list[Record]]:
    records: dict[int, dict[int, Record]] = {}
    for record in found:
        if record is not None and record.verdict == "accepted":
            records.setdefault(record.comment.id, {}).setdefault(record.line, record)
    return {cid: [lines[line] for line in sorted(lines)] for cid, lines in sorted(records.items())}


def lapsed_key(key: Key) -> str:
    """The key of a lapsed notice's marker."""
    return f"{key[0]}:{key[1]}"


def lapsed_said(replies: list[Comment]) -> frozenset[str]:
    """Keys of the lapsed notices among the bot's own comments."""
    return frozenset(key for reply in replies for topic, key in markers_in(reply.body) if topic == LAPSED_TOPIC)
