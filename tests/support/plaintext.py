"""Reads Markdown the way GitHub does (cmark-gfm) and reduces it to the seed's plain-text form."""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre"}


class _Reducer(HTMLParser):
    """A block per paragraph or heading; a table row per line with tab-joined cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.rows: list[list[str]] = []
        self.current: list[str] | None = None
        self.cell: list[str] | None = None
        self.row: list[str] | None = None
        self.tables: list[list[list[str]]] = []
        self.after_break = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCKS and self.cell is None:
            self.current = []
        elif tag == "table":
            self.rows = []
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "br":
            self._text(" " if self.cell is not None else "\n")
            self.after_break = True
            return
        self.after_break = False

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCKS and self.cell is None and self.current is not None:
            self.blocks.append("".join(self.current).strip("\n"))
            self.current = None
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.tables.append(self.rows)
            self.blocks.append("\n".join("\t".join(r) for r in self.rows))

    def handle_data(self, data: str) -> None:
        # cmark writes "<br />\n" for a hard break; that newline is the break itself.
        if self.after_break:
            data = data.removeprefix("\n")
        self.after_break = False
        self._text(data.replace("\n", " "))

    def _text(self, text: str) -> None:
        if self.cell is not None:
            self.cell.append(text)
        elif self.current is not None:
            self.current.append(text)


def strip_front_matter(markdown: str) -> str:
    if markdown.startswith("---\n"):
        end = markdown.index("\n---\n", 4)
        return markdown[end + 5 :]
    return markdown


def to_html(markdown: str) -> str:
    options = Options.CMARK_OPT_UNSAFE
    return str(cmarkgfm.github_flavored_markdown_to_html(strip_front_matter(markdown), options=options))


def reduce(markdown: str) -> tuple[str, list[list[list[str]]]]:
    """The plain-text reading (blocks separated by a blank line) and every table's rows."""
    reducer = _Reducer()
    reducer.feed(to_html(markdown))
    reducer.close()
    return "\n\n".join(reducer.blocks), reducer.tables
