"""GitHub's Markdown renderer for comments: cmark-gfm itself (through `cmarkgfm`), as GitHub runs it.

GitHub renders a comment with cmark-gfm's `table`, `strikethrough`, `autolink`, `tagfilter` and
`tasklist` extensions and its footnotes, passes raw HTML through (and sanitises it afterwards), and
shows each line break as a break (`<br />`). `to_html` renders a text that way, with each block's
source lines (`data-sourcepos`): that attribute is how a reader of the HTML tells the paragraphs
cmark-gfm wrote from raw HTML that looks like one; and its quotes end a quoted attribute value
that raw HTML left open, where they end it in cmark-gfm's rendering with source positions, the
page perfbot's reading is tested against (without them, such a value would end later, and a line
hidden there would be read).

cmarkgfm's own helper frees neither the tree it parses nor the HTML it renders: about 200 bytes
for each byte of a comment of short lines, so 150 such comments of 65,536 characters would hold
2 GB. Both are freed here with cmark-gfm's own functions (`cmark_node_free` and its allocator's
`free`), which the extension module exports on Linux and macOS; where it does not, they are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

EXTENSIONS = ("table", "strikethrough", "autolink", "tagfilter", "tasklist")


@cache
def _renderer() -> tuple[Any, Any, int, tuple[Any, ...]]:
    """cmarkgfm's C library and its FFI, GitHub's options, and the extensions, loaded on first use:
    most runs read no command, and those need no Markdown at all."""
    from cmarkgfm import _cmark, cmark

    options = cmark.Options
    flags = (
        options.CMARK_OPT_UNSAFE
        | options.CMARK_OPT_HARDBREAKS
        | options.CMARK_OPT_FOOTNOTES
        | options.CMARK_OPT_SOURCEPOS
    )
    cmark.core_extensions_ensure_registered()
    extensions = tuple(cmark.find_syntax_extension(name) for name in EXTENSIONS)
    return _cmark.lib, _cmark.ffi, flags, extensions


@cache
def _releaser() -> Callable[[int, int], None] | None:
    """Frees a parsed tree and a rendered text (their addresses), or None where cmark-gfm's
    functions for that are not exported: the memory is then kept until the process ends."""
    import ctypes

    from cmarkgfm import _cmark

    class Memory(ctypes.Structure):
        _fields_ = [
            ("calloc", ctypes.c_void_p),
            ("realloc", ctypes.c_void_p),
            ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        ]

    try:
        library = ctypes.CDLL(_cmark.__file__)
        node_free, allocator = library.cmark_node_free, library.cmark_get_default_mem_allocator
    except (OSError, AttributeError):
        return None
    node_free.argtypes, node_free.restype = [ctypes.c_void_p], None
    allocator.argtypes, allocator.restype = [], ctypes.POINTER(Memory)
    free = allocator().contents.free

    def release(root: int, text: int) -> None:
        node_free(root)
        free(text)

    return release


def to_html(text: str) -> str:
    """`text` rendered as GitHub renders a comment, before its sanitiser; `text` holds no surrogate."""
    lib, ffi, flags, extensions = _renderer()
    data = text.encode("utf-8")
    parser = lib.cmark_parser_new(flags)
    try:
        for extension in extensions:
            lib.cmark_parser_attach_syntax_extension(parser, extension)
        lib.cmark_parser_feed(parser, data, len(data))
        root = lib.cmark_parser_finish(parser)
        rendered = lib.cmark_render_html(root, flags, lib.cmark_parser_get_syntax_extensions(parser))
        html: str = ffi.string(rendered).decode("utf-8")
        release = _releaser()
        if release is not None:
            release(int(ffi.cast("uintptr_t", root)), int(ffi.cast("uintptr_t", rendered)))
        return html
    finally:
        lib.cmark_parser_free(parser)
