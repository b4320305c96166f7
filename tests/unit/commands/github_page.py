"""What GitHub shows of a comment as top-level paragraph lines, read independently of perfbot.

cmark-gfm renders the comment through cmarkgfm's own helper, with the options and extensions
GitHub uses for comments, and html5lib (a complete implementation of HTML's parsing, the
browser's) builds the page from that HTML. A line of top-level paragraph text is the text at the
start of a paragraph cmark-gfm wrote (it carries `data-sourcepos`) that is a child of the page's
body, or the text right after a `<br>` that is a child of such a paragraph.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import cmarkgfm.cmark as cmark
import html5lib
from cmarkgfm.cmark import Options

GITHUB = (
    Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_SOURCEPOS
)
EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]


def rendered(body: str) -> str:
    return str(cmark.markdown_to_html_with_extensions(body, options=GITHUB, extensions=EXTENSIONS))


def page(body: str) -> ET.Element:
    """The comment's part of the page, as a browser builds it from cmark-gfm's HTML in a `<div>`."""
    built: ET.Element = html5lib.parseFragment(rendered(body), container="div", namespaceHTMLElements=False)
    return built


def top_level_lines(body: str) -> list[str]:
    """The text of each line of top-level paragraph text, in page order."""
    lines: list[str] = []
    for paragraph in page(body):
        if paragraph.tag == "p" and "data-sourcepos" in paragraph.attrib:
            lines.append(paragraph.text or "")
            lines += [(child.tail or "").removeprefix("\n") for child in paragraph if child.tag == "br"]
    return lines


def shows(body: str, text: str) -> bool:
    """Whether some line of top-level paragraph text starts with `text`."""
    return any(line.startswith(text) for line in top_level_lines(body))
