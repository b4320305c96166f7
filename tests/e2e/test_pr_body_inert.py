"""The regeneration PR's body keeps outside text inert (issue #25, item 6): lease holders, globs and
the paths they meet, rendered through cmark-gfm as GitHub does, make no emphasis, link, heading or
HTML outside code."""

from __future__ import annotations

import datetime as dt
import re

import cmarkgfm
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import Settings
from bot.evidence.leases import Lease, LeaseReadback
from bot.github.offline import parse_state
from bot.reconcile import gather
from bot.reconcile.decide import decide
from tests.paths import ROOT
from tests.property_budget import examples

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
    return settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])
