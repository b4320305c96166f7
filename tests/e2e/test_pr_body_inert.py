"""The regeneration PR's body keeps outside text inert (issue #25, item 6): lease holders, globs and
the paths they meet, rendered through cmark-gfm as GitHub does, make no emphasis, link, heading or
HTML outside code. So do packet ids, and the text commands bring into the diff (a result, a
blocking condition, an evidence item): the whole body, every section of it, is rendered."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import cmarkgfm
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, example, given, reject, settings
from hypothesis import strategies as st

from bot.config import Settings
from bot.errors import InputError
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.observed import Comment, Observed
from bot.github.offline import parse_state
from bot.reconcile import gather
from bot.reconcile.decide import decide
from bot.snapshot import store_save
from bot.snapshot.checked import checked_text
from bot.snapshot.model import Snapshot
from tests.support.paths import ROOT
from tests.support.property_budget import examples

NOW = dt.datetime(2026, 8, 27, 18, tzinfo=dt.UTC)
M1_PATH = "docs/_witnesses/**"
MARKS = st.sampled_from(
    [
        "*",
        "**",
        "_",
        "__",
        "~",
        "`",
        "``",
        "[",
        "](http://e.x)",
        "<b>",
        "<img src=x>",
        "# ",
        "@everyone",
        "|",
        "\\",
        "!",
    ]
)
HOSTILE = st.lists(st.one_of(MARKS, st.text("abcz/.-", min_size=1, max_size=4)), min_size=1, max_size=8).map("".join)
FORMATTING = re.compile(r"<(strong|em|a |del|h[1-6]|img|b>|table)")
# Every formatting element, whole: the template's own (its headings, its warning) are the only ones allowed.
ELEMENT = re.compile(r"<(h[1-6]|strong|em|del|a|b|table)\b[^>]*>.*?</\1>|<img[^>]*>", re.S)
M1, M2, M3 = "mac.m1-streamed-q4k-no-copy", "mac.m2-whole-sequence-prefill", "mac.m3-q8-gdn-handoff"


def outside_code(html: str) -> str:
    """The HTML with every code span and code block taken out."""
    return re.sub(r"<pre.*?</pre>|<code>.*?</code>", "", html, flags=re.S)


def test_pr_bodies_with_hostile_holders_and_globs_show_them_as_code(settings: Settings) -> None:
    state = (ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8")
    observed = parse_state(state, "state")[1]

    def formatting(holder: str, glob: str) -> tuple[str, list[str]]:
        """The PR body when a lease on M1's paths (M1 waits, and the PR says why) is held by
        `holder` and also covers `glob`, and the formatting its HTML shows outside code."""
        lease = Lease(lane="lane0", loop_ts="t", holder=f"issue-1-{holder}", tree=(f"src/**/{glob}/**", M1_PATH))
        inputs = gather.inputs(settings, observed, NOW)._replace(
            readback=LeaseReadback("leases.json", "live-array", (lease,))
        )
        body = decide(inputs).pull_request().body
        html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
        return body, FORMATTING.findall(outside_code(html))

    plain_body, plain = formatting("x", "x")
    assert "`lane0 lease of issue-1-x on src/**/x/**, docs/_witnesses/**`" in plain_body

    @settings_for(examples(25, 10))
    @given(holder=HOSTILE, glob=HOSTILE)
    def check(holder: str, glob: str) -> None:
        body, found = formatting(holder, glob)
        # Only the template's own headings: nothing the holder or the glob wrote formats.
        assert found == plain, body

    check()


def settings_for(count: int) -> settings:
    return settings(
        max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )


def renamed(value: Any, old: str, new: str) -> Any:
    """`value` (the snapshot's data) with every text that is exactly `old` written `new`."""
    if isinstance(value, dict):
        return {k: renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [renamed(v, old, new) for v in value]
    return new if value == old else value


def commands_with(text: str) -> tuple[Comment, ...]:
    """Commands whose free text (a result, a condition, an evidence summary and ref) is `text`."""
    at = dt.datetime(2026, 8, 27, 10, tzinfo=dt.UTC)
    bodies = [
        (8325, f"/perf complete {M2} result: {text}"),
        (9216, f"/perf block {M3} {text}"),
        (8324, f"/perf evidence metal-resident-decode accepted {text} ({text})"),
        (8324, "/perf review metal-resident-decode by 2026-09-04"),
    ]
    return tuple(
        Comment(id=900 + n, issue=issue, user="alice", created_at=at, body=body)
        for n, (issue, body) in enumerate(bodies)
    )


def test_whole_pr_bodies_with_hostile_ids_holders_globs_and_texts_show_them_as_code(settings: Settings) -> None:
    state = (ROOT / "examples" / "offline-state.json").read_text(encoding="utf-8")
    seen: Observed = parse_state(state, "state")[1]
    base = gather.inputs(settings, seen, NOW)

    def body_of(ident: str, holder: str, glob: str, text: str) -> str:
        """The PR body when M1's id is `ident`, a lease on its paths is held by `holder` and also
        covers `glob`, and commands bring `text` into a result, a condition and an evidence item."""
        data = renamed(base.snapshot.model.model_dump(by_alias=True), M1, ident)
        snapshot = Snapshot.model_validate(data)
        try:
            loaded = checked_text(store_save.save_text(base.snapshot, snapshot), "config/snapshot.yaml")
        except InputError:  # an id the snapshot refuses (markup that would break its table) never gets here
            reject()
        lease = Lease(lane="lane0", loop_ts="t", holder=f"issue-1-{holder}", tree=(f"src/**/{glob}/**", M1_PATH))
        observed = seen.model_copy(
            update={"comments": (*seen.comments, *commands_with(text)), "permissions": {"alice": "write"}}
        )
        inputs = base._replace(
            snapshot=loaded, observed=observed, readback=LeaseReadback("leases.json", "live-array", (lease,))
        )
        return decide(inputs).pull_request().body

    def elements(body: str) -> list[str]:
        html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
        return [m.group(0) for m in ELEMENT.finditer(outside_code(html))]

    plain_body = body_of("m1", "x", "x", "plain words")
    own = set(elements(plain_body))
    for section in ("Commands", "Changes", "Dependency graph", "Evidence"):
        assert f"<h2>{section}</h2>" in own
    assert "  - result: `plain words`" in plain_body
    assert "  - blocking condition none → `plain words`" in plain_body
    assert "  - evidence added: `accepted` `plain words` (`plain words`)" in plain_body
    assert "  - review by `2026-08-27` → `2026-09-04`" in plain_body
    assert "- packet `m1` (#8325)" in plain_body

    @settings_for(examples(25, 10))
    @given(ident=HOSTILE, holder=HOSTILE, glob=HOSTILE, text=HOSTILE)
    # Each kind of formatting at least once, whatever the generator draws.
    @example(ident="**m1**", holder="_a_", glob="~~z~~", text="**a** _b_")
    @example(ident="m1](http://e.x)", holder="[a](http://e.x)", glob="<img src=x>", text="[a](http://e.x) <b>x</b>")
    @example(ident="m1 | x", holder="@everyone", glob="`", text="# heading")
    def check(ident: str, holder: str, glob: str, text: str) -> None:
        body = body_of(ident.strip() or "m1", holder, glob, text)
        # Only the template's own headings: nothing from outside formats, links or writes HTML.
        assert set(elements(body)) <= own, body

    check()
