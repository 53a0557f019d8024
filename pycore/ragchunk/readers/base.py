"""What every reader shares: its options (:class:`ReadOptions`), its result (:class:`Extracted`) and the note on dropped boilerplate."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from ..settings import MAX_DOCUMENT_CHARS


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How to read: ``keep_boilerplate`` keeps HTML navigation (nav, header, footer, aside,
    tables of contents) and the tables of contents of PDF, DOCX and EPUB files, which are
    dropped by default. ``max_chars`` bounds the characters a reader extracts from one
    document, checked while it reads (``text_too_large``, see :func:`.safety.text_too_large`)."""

    keep_boilerplate: bool = False
    max_chars: int = MAX_DOCUMENT_CHARS


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a reader made of one document.

    ``text`` is the Markdown the chunks are slices of. ``kind`` names the format
    (``"markdown"``, ``"text"``, ``"html"``, ``"pdf"``, ``"docx"``, ``"epub"``,
    ``"ipynb"``, ``"rst"``). ``title`` is the document's own title ("" when it has none).
    ``pages`` holds ``(offset, page)`` pairs, ascending: page ``page`` (1-based) begins at
    code-point ``offset`` of ``text`` (PDF only; empty otherwise). ``anchors`` holds
    ``(offset, anchor)`` pairs, ascending: the heading that starts at ``offset`` has the
    element id ``anchor`` in the source (HTML and EPUB ids, DOCX bookmarks, reStructuredText
    targets). ``notes`` are things a person
    should know about the reading, as ``{"code", "params", "message"}`` dicts.
    """

    text: str
    kind: str
    title: str = ""
    pages: tuple[tuple[int, int], ...] = ()
    anchors: tuple[tuple[int, str], ...] = ()
    notes: tuple[dict[str, Any], ...] = field(default=())

    def page_at(self, offset: int) -> int | None:
        """The page that holds code-point ``offset`` of ``text`` (None without pages).

        >>> Extracted("a\\n\\nb", "pdf", pages=((0, 1), (3, 2))).page_at(3)
        2
        """
        index = bisect_right(self.pages, (offset, float("inf"))) - 1
        return self.pages[index][1] if index >= 0 else None

    def anchor_at(self, offset: int) -> str:
        """The anchor of the nearest heading at or before ``offset`` ("" when none).

        >>> Extracted("# A\\n\\nx", "html", anchors=((0, "a"),)).anchor_at(5)
        'a'
        """
        index = bisect_right(self.anchors, (offset, "\U0010ffff")) - 1
        return self.anchors[index][1] if index >= 0 else ""


# The formats whose text is Markdown a person wrote (a notebook's Markdown cells too): their
# headings may hold links, images and HTML (see ragchunk.text.markdown.parse_blocks). The other
# readers write their headings' text as the source shows it.
MARKDOWN_KINDS = frozenset(("markdown", "text", "ipynb"))


def boilerplate_note(name: str, count: int) -> dict[str, Any]:
    """The ``boilerplate_dropped`` note: ``count`` navigation, header, footer or
    table-of-contents elements of ``name`` were left out.

    >>> print(boilerplate_note("a.pdf", 1)["message"])
    a.pdf: 1 navigation, header, footer or table-of-contents element was left out (--keep-boilerplate on the command line, keep_boilerplate in Python, keeps them)
    """
    message = (f"{name or 'the file'}: {count:,} navigation, header, footer or table-of-contents "
               f"element{'s were' if count != 1 else ' was'} left out"
               " (--keep-boilerplate on the command line, keep_boilerplate in Python, keeps them)")
    return {"code": "boilerplate_dropped", "params": {"name": name, "count": count}, "message": message}
