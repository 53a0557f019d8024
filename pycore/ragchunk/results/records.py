"""The one record schema of a chunk: JSONL, the page's columns and (later) Arrow come from here.

A record is a chunk plus what it came from. :data:`FIELDS` lists the fields in the
order every serializer writes them; the optional ones appear only when they have a value
for the records at hand (a split of a bare text has no ``source``; only a PDF has pages).
The JSONL the CLI writes and the page downloads are the same bytes for the same input
and settings, because both call :func:`to_jsonl`.

Schema version :data:`SCHEMA_VERSION` (bumped when a field changes meaning; new optional
fields do not bump it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..readers import Extracted
from ..splitter import Chunk, Split

__all__ = ["FIELDS", "SCHEMA_VERSION", "Document", "Field", "chunk_record", "langchain_json", "page_columns", "records",
           "to_jsonl"]

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a chunk record: its name, JSON type, whether it is always there, and what it holds."""

    name: str
    type: str
    always: bool
    doc: str


FIELDS: tuple[Field, ...] = (
    Field("source", "string", False, "the document: its path relative to the folder given, with / separators"),
    Field("id", "integer", True, "the chunk's index in its document, from 0"),
    Field("text", "string", True, "the chunk: a verbatim slice of the document's text, text[start:end]"),
    Field("heading", "string", True, "the innermost heading the whole chunk is under: the last of heading_path"
          " (\"\" when none)"),
    Field("heading_path", "list<string>", True, "the titles of the headings the whole chunk is under, outermost"
          " first: the path its sections share"),
    Field("tokens", "integer", True, "the exact token count of text"),
    Field("start", "integer", True, "code-point offset of the chunk in the document's text"),
    Field("end", "integer", True, "code-point offset just after the chunk"),
    Field("content_start", "integer", True, "where the new content starts: text[start:content_start] is overlap"),
    Field("overlap_tokens", "integer", True, "the exact token count of the overlap carried from the previous chunk"),
    Field("tokenizer", "string", True, "what counted the tokens: a tokenizer name or chars/<ratio>"),
    Field("model", "string", False, "the embedding model the chunks were sized for"),
    Field("title", "string", False, "the document's title (front matter, <title>, PDF or EPUB metadata)"),
    Field("page_start", "integer", False, "the page the chunk starts on (1-based; PDF)"),
    Field("page_end", "integer", False, "the page the chunk ends on (1-based; PDF)"),
    Field("anchor", "string", False, "the element id of the nearest heading in the source (HTML, EPUB)"),
    Field("embed_text", "string", False, "the text to embed: context lines, then the chunk"),
    Field("embed_tokens", "integer", False, "the exact token count of embed_text"),
    Field("sections", "list<list<string>>", False, "the heading path of every section the chunk holds, in order,"
          " when it holds more than one (small sections packed together); heading_path is what they share"),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)


@dataclass(frozen=True, slots=True)
class Document:
    """A document of a corpus: where it came from and the text its chunks are slices of.

    ``source`` names it (a path relative to the folder it was found in, ``/``-separated;
    ``""`` for a pasted text); ``id`` is a stable identity made from the source and the
    text. ``title``, ``pages`` and ``anchors`` come from a reader (see
    :class:`ragchunk.readers.Extracted`).

    >>> Document("a.md", "Hello.").id
    '0ab19da63dbb4a3c'
    """

    source: str
    text: str
    title: str = ""
    kind: str = "markdown"
    pages: tuple[tuple[int, int], ...] = ()
    anchors: tuple[tuple[int, str], ...] = ()
    notes: tuple[dict[str, Any], ...] = field(default=())

    @property
    def id(self) -> str:
        digest = hashlib.sha256(self.source.encode("utf-8", "surrogatepass") + b"\0"
                                + self.text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()[:16]


def chunk_record(chunk: Chunk, tokenizer: str, document: Document | None = None, model: str = "") -> dict[str, Any]:
    """The record of one chunk, keys in :data:`FIELDS` order (optional ones only when set).

    >>> from ragchunk import split
    >>> chunk_record(split("Hello there.", size=8, overlap=0).chunks[0], "cl100k_base")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'id': 0, 'text': 'Hello there.', 'heading': '', 'heading_path': [], 'tokens': 3, 'start': 0,
     'end': 12, 'content_start': 0, 'overlap_tokens': 0, 'tokenizer': 'cl100k_base'}
    """
    record: dict[str, Any] = {}
    if document is not None and document.source:
        record["source"] = document.source
    record.update(
        id=chunk.id,
        text=chunk.text,
        heading=chunk.heading,
        heading_path=list(chunk.heading_path),
        tokens=chunk.tokens,
        start=chunk.start,
        end=chunk.end,
        content_start=chunk.content_start,
        overlap_tokens=chunk.overlap_tokens,
        tokenizer=tokenizer,
    )
    if model:
        record["model"] = model
    if chunk.embed_text:
        record["embed_text"] = chunk.embed_text
        record["embed_tokens"] = chunk.embed_tokens
    if document is not None:
        if document.title:
            record["title"] = document.title
        if document.pages:
            located = Extracted(document.text, document.kind, pages=document.pages)
            record["page_start"] = located.page_at(chunk.start)
            record["page_end"] = located.page_at(max(chunk.start, chunk.end - 1))
        if document.anchors:
            record["anchor"] = Extracted(document.text, document.kind, anchors=document.anchors).anchor_at(
                chunk.content_start)
    if len(chunk.sections) > 1:
        record["sections"] = [list(path) for path in chunk.sections]
    return record


def records(result: Split, document: Document | None = None) -> Iterator[dict[str, Any]]:
    """The records of every chunk of ``result`` (of ``document``, when given), in order."""
    name, model = result.tokenizer, result.model
    for chunk in result.chunks:
        yield chunk_record(chunk, name, document, model)


# json.dumps leaves these raw with ensure_ascii=False; they are line breaks to
# str.splitlines() and to some JSONL readers, so they are escaped to keep one line per chunk.
_LINE_BREAKS = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def jsonl_line(record: dict[str, Any]) -> str:
    """One record as a JSONL line (ending in ``\\n``)."""
    line = json.dumps(record, ensure_ascii=False)
    # translate() reads a non-ASCII string character by character: seek the three first, in C.
    if not line.isascii() and ("\u2028" in line or "\u2029" in line or "\u0085" in line):
        line = line.translate(_LINE_BREAKS)
    return line + "\n"


def to_jsonl(result: Split | Iterable[dict[str, Any]], document: Document | None = None) -> str:
    """Chunks as JSONL text: one line per chunk, each ending in ``\\n``.

    ``result`` is a :class:`Split` (with its ``document``, when given) or records already
    made. Non-ASCII text is written as is (UTF-8 when saved); U+0085, U+2028 and U+2029
    are escaped so every chunk stays on one line for any line splitter. No chunks give ``""``.

    >>> from ragchunk import CharEstimate, split
    >>> print(to_jsonl(split("# Привет\\n\\nМир.", size=50, overlap=0, tokenizer=CharEstimate(4))), end="")
    ... # doctest: +NORMALIZE_WHITESPACE
    {"id": 0, "text": "# Привет\\n\\nМир.", "heading": "Привет", "heading_path": ["Привет"], "tokens": 4,
     "start": 0, "end": 14, "content_start": 0, "overlap_tokens": 0, "tokenizer": "chars/4"}
    """
    rows = records(result, document) if isinstance(result, Split) else result
    return "".join(jsonl_line(record) for record in rows)


PAGE_COLUMNS: tuple[str, ...] = ("id", "start", "end", "content_start", "tokens", "overlap_tokens", "embedded_tokens",
                                 "path")


def page_columns(result: Split, text: str, first: int = 0, stop: int | None = None) -> dict[str, Any]:
    """Chunks ``first`` to ``stop`` as the page takes them: one list per number field, the
    distinct heading paths once, and every chunk's text in one string.

    ``texts[offsets[i]:offsets[i + 1]]`` is chunk ``first + i`` in UTF-16 units (how a
    JavaScript string slices), and ``overlap[i]`` how many of those units are the overlap;
    ``path[i]`` indexes ``paths``, and ``sections[i]`` lists the indexes of every section's path
    when the chunk holds more than one (``[]`` otherwise). Thousands of chunk objects in one reply cost the page's
    main thread a long task to receive; a few lists and one string are a few copies.

    >>> from ragchunk import split
    >>> text = "# A\\n\\nOne. Two. Three."
    >>> page = page_columns(split(text, by="sentences", size=6, overlap=2), text)
    >>> page["start"], page["paths"], page["texts"][page["offsets"][1]:page["offsets"][2]], page["overlap"]
    ([0, 5], [['A']], 'One. Two. Three.', [0, 4])
    """
    chunks = result.chunks[first:stop]
    columns: dict[str, Any] = {name: [] for name in PAGE_COLUMNS}
    paths: list[list[str]] = []
    path_index: dict[tuple[str, ...], int] = {}
    parts: list[str] = []
    offsets = [0]
    overlap_units = []
    held: list[list[int]] = []

    def index_of(key: tuple[str, ...]) -> int:
        if key not in path_index:
            path_index[key] = len(paths)
            paths.append(list(key))
        return path_index[key]

    for chunk in chunks:
        for name in PAGE_COLUMNS[:-1]:
            columns[name].append(getattr(chunk, name))
        columns["path"].append(index_of(chunk.heading_path))
        held.append([index_of(path) for path in chunk.sections] if len(chunk.sections) > 1 else [])
        carried = text[chunk.start : chunk.content_start]
        parts.append(chunk.text)
        overlap_units.append(_utf16_length(carried))
        offsets.append(offsets[-1] + _utf16_length(chunk.text))
    return {**columns, "first": first, "count": len(chunks), "paths": paths, "sections": held, "texts": "".join(parts),
            "offsets": offsets, "overlap": overlap_units}


def _utf16_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def langchain_json(rows: Iterable[dict[str, Any]]) -> str:
    """Records as LangChain documents: a JSON list of ``{"page_content", "metadata"}``.

    ``page_content`` is what to embed (``embed_text`` when the record has one, else ``text``);
    ``metadata`` holds every other field, with ``start_index`` (LangChain's name for the
    start offset) beside ``start``.

    >>> print(langchain_json([{"id": 0, "text": "Hi.", "start": 0, "end": 3}]))
    [{"page_content": "Hi.", "metadata": {"id": 0, "start": 0, "end": 3, "start_index": 0}}]
    """
    documents = []
    for row in rows:
        metadata = {key: value for key, value in row.items() if key not in ("text", "embed_text")}
        metadata["start_index"] = row.get("start")
        if "embed_text" in row:
            metadata["text"] = row["text"]
        documents.append({"page_content": row.get("embed_text", row["text"]), "metadata": metadata})
    return json.dumps(documents, ensure_ascii=False)
