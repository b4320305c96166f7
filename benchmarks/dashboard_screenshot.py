"""A screenshot of the seed's dashboard issue as GitHub shows it: `docs/dashboard.png`.

The body is `perfbot status --format markdown` on the seed (an hour and a half after its lease
readback, as the README's tour runs it), rendered by cmark-gfm with GitHub's options and
extensions (`bot.commands.reading.to_html`), in a page styled like an issue's body at GitHub's
content width (880 px) under the issue's title and as much page header as GitHub puts above it
(160 px), `#N` linked as GitHub links issue references, then photographed by headless Chromium at one
laptop screen's height: whatever shows is what a reader sees without scrolling.

Needs Chromium (`apt-get install -y chromium`); CI does not run this, the PNG is committed.
Run: python -m benchmarks.dashboard_screenshot [--out docs/dashboard.png] [--height 900]
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.paths import REPOSITORY
from bot.commands.reading import to_html
from bot.config import load_settings

NOW = "2026-08-27T18:00:00Z"
WIDTH = 880  # GitHub's issue body column at its default layout
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
# A few of GitHub's own Markdown styles (Primer's light theme): fonts, code spans, lists, headings.
STYLE = f"""
body {{ margin: 0; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }}
header {{ height: 160px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0; }}
main {{ width: {WIDTH}px; margin: 24px auto; }}
h1 {{ font-size: 32px; font-weight: 400; margin: 0 0 16px; }}
.box {{ border: 1px solid #d1d9e0; border-radius: 6px; padding: 16px; }}
.box h3 {{ font-size: 1.25em; margin: 24px 0 16px; font-weight: 600; }}
.box p, .box ul, .box details {{ margin: 0 0 16px; }}
.box ul {{ padding-left: 2em; }}
.box code {{ font: 85% ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  background: rgba(129, 139, 152, 0.12); border-radius: 6px; padding: .2em .4em; }}
.box sub {{ color: #59636e; }}
.box a {{ color: #0969da; text-decoration: none; }}
"""
# GitHub links `#N` to issue N in an issue's body (outside code); cmark-gfm alone does not.
REFERENCE = re.compile(r"(?<![\w&/])#(\d+)\b")
CODE = re.compile(r"(<code>.*?</code>)", re.S)


def body() -> str:
    """The seed's dashboard, as `perfbot status --format markdown` prints it."""
    command = [sys.executable, "-m", "bot", "status", "--format", "markdown"]
    command += ["--offline", "examples/offline-state.json", "--now", NOW]
    return subprocess.run(command, cwd=REPOSITORY, check=True, capture_output=True, text=True).stdout


def linked(rendered: str) -> str:
    """The HTML with each `#N` outside code a link, as GitHub shows issue references."""
    parts = CODE.split(rendered)
    return "".join(part if n % 2 else REFERENCE.sub(r"<a href='#'>#\1</a>", part) for n, part in enumerate(parts))


def page(markdown: str, title: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>"
        f"<header></header><main><h1>{html.escape(title)}</h1>"
        f"<div class='box'>{linked(to_html(markdown))}</div></main></body></html>"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPOSITORY / "docs" / "dashboard.png")
    parser.add_argument("--height", type=int, default=900, help="the screen's height in px (default 900)")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on PATH: apt-get install -y chromium", file=sys.stderr)
        return 1
    title = load_settings(REPOSITORY / "config" / "perfbot.yaml").config.dashboard.title
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch) / "dashboard.html"
        where.write_text(page(body(), title), encoding="utf-8")
        profile = Path(scratch) / "profile"
        window = f"--window-size={WIDTH + 48},{args.height}"
        shot = [chromium, *FLAGS, f"--user-data-dir={profile}", window, f"--screenshot={args.out.resolve()}"]
        subprocess.run([*shot, where.as_uri()], check=True, capture_output=True, timeout=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
