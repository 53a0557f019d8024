"""Readers: a document's bytes -> the Markdown text its chunks are slices of, plus a source map.

One module per format (``html``, ``pdf``, ``docx``, ``epub``, ``notebook``, ``rst``,
``text``), each with ``read(data: bytes, name: str, options: ReadOptions) -> Extracted``.
A reader writes the document's structure as Markdown the splitter understands (ATX
headings ``#``, lists, pipe tables, fenced code), so the splitter stays one algorithm over
one structure and every chunk is a verbatim slice of ``Extracted.text``. The source map
takes offsets of that text back to the source: the page of a PDF, the element id
(anchor) of an HTML heading.

Readers are pure functions of the bytes (no I/O), the same on CPython and in Pyodide.
Bad input raises :class:`ragchunk.errors.RagchunkError` with ``field="file"``, a stable
``code`` and a message that names the file, what is wrong and the fix.

``read_document(data, name, options)`` (in ``formats``, importable from here) picks
the reader (by signature, then extension, then content: ``formats.reader_for``) and calls
it; the PDF reader is imported only when a PDF comes. Shared pieces: ``base`` (:class:`ReadOptions`, :class:`Extracted`), ``writer`` (the
Markdown every reader writes: blocks, list and quote prefixes, escaping, fences, pipe
tables, heading offsets for the anchors), ``_math`` (equations as linear text, OMML and
MathML alike) and ``safety`` (ZIP archives within size, count and ratio limits, inflated in
pieces; XML through expat with entity declarations refused).
"""

from .base import MARKDOWN_KINDS, Extracted, ReadOptions, boilerplate_note
from .formats import read_document, readable_formats, reader_for

__all__ = ["MARKDOWN_KINDS", "Extracted", "ReadOptions", "boilerplate_note", "read_document", "readable_formats",
           "reader_for"]
