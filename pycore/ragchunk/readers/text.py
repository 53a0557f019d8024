"""Plain text and Markdown: the decoded file as it is (``kind`` ``"markdown"`` or ``"text"``).

>>> result = read("# Notes\\n\\ncafé".encode(), "notes.md", ReadOptions())
>>> result.text, result.kind
('# Notes\\n\\ncafé', 'markdown')
>>> read(b"caf\\xe9", "a.txt", ReadOptions()).notes[0]["code"]
'not_utf8'

Bytes are decoded by :func:`ragchunk.readers.textio.decode_document` (UTF-8, or UTF-16 with a BOM
or recognisably without one; invalid bytes replaced and noted); a leading BOM is dropped.
``.md``, ``.markdown``, ``.mdown``, ``.mkd``, ``.mkdn`` and ``.mdx`` files are Markdown,
everything else is text (the splitter reads both alike; the kind says what the file was).

Raises :class:`ragchunk.errors.NotTextError` for a binary file and
:class:`ragchunk.errors.RagchunkError` for one above the size limit.
"""

from __future__ import annotations

from ..text.markdown import front_matter
from .base import Extracted, ReadOptions
from .safety import text_too_large
from .textio import decode_document

__all__ = ["MARKDOWN_EXTENSIONS", "of_text", "read"]

MARKDOWN_EXTENSIONS = frozenset((".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx"))


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read a text or Markdown file (see the module docstring)."""
    decoded = decode_document(data, name)
    if len(decoded.text) > options.max_chars:
        raise text_too_large(name, options.max_chars)
    dot = name.rfind(".")
    kind = "markdown" if dot >= 0 and name[dot:].lower() in MARKDOWN_EXTENSIONS else "text"
    return of_text(decoded.text.removeprefix("\ufeff"), kind, tuple(decoded.note_details))


def of_text(text: str, kind: str = "markdown", notes: tuple = ()) -> Extracted:
    """A text as a document: its title is its front matter's (``""`` without one).

    >>> of_text("---\\ntitle: Notes\\n---\\nBody").title
    'Notes'
    """
    found = front_matter(text)
    return Extracted(text, kind, title=found.title if found else "", notes=notes)
