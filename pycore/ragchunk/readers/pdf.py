"""PDF reader: a PDF's text layer -> Markdown with headings, paragraphs, lists and pages.

Needs ``pypdf`` (the ``pdf`` extra; pure Python, so the same wheel loads in Pyodide),
imported on the first call only. ``read`` walks the pages once: each page's content
stream becomes text runs in the direction most of its text runs (``_pdf_text``), runs
become lines, and the layout (``_pdf_layout``) drops running headers, footers and page
numbers, takes headings from the outline (or from font size and weight when there is
none), rebuilds paragraphs and lists and joins words hyphenated across lines.

Refused with :class:`ragchunk.errors.RagchunkError` (``field="file"``): a PDF without a
text layer (``pdf_no_text``), one whose only text runs at a slant, on no axis of the page, so
that none of it can be read as lines (``pdf_slanted_text``: it has a text layer, so OCR is not
the first fix), one that needs a password (``pdf_encrypted``), one encrypted
with AES where the ``cryptography`` package is missing, as in Pyodide
(``pdf_encrypted_aes``), one whose text needs a stream filter ragchunk cannot decode
(``pdf_filter_unsupported``: JBIG2Decode needs the jbig2dec program, never there in the
browser; BrotliDecode the brotli package), and a damaged or truncated file (``pdf_corrupt``).
A PDF whose empty user password opens it (permissions only) is read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from io import BytesIO
from typing import Any

from ..errors import RagchunkError
from ._pdf_layout import Line, OutlineEntry, layout, lines_of
from ._pdf_text import ContentBudget, FontCache, TooMuchContent, page_text
from .base import Extracted, ReadOptions, boilerplate_note
from .safety import text_too_large

__all__ = ["PYPDF_VERSION", "PYPDF_WHEEL_SHA256", "read"]

# The pypdf this reader is written and tested against (pyproject's ``pdf`` extra); it
# uses pypdf's font and content-stream classes, so another version may read differently.
PYPDF_VERSION = "7.1.1"
# sha256 of PyPI's pypdf-7.1.1-py3-none-any.whl (421,026 bytes), the wheel Pyodide loads.
PYPDF_WHEEL_SHA256 = "04c5680d4b4cfa04ab505b09393fc949860c34a4dad6565284d11a2f5c3ce8b1"
# At most this many progress calls before the final one.
_PROGRESS_CALLS = 100
_MAX_OUTLINE_ENTRIES = 100_000
# One stream may inflate to at most this (pypdf's own limit is 75 MB); past it the page is
# a flate bomb. The whole file may draw CONTENT_RATIO times its size of decoded content (at
# least CONTENT_FLOOR): text compresses 3-10 times, so only streams drawn again and again
# (or bombs) come near it.
MAX_STREAM_BYTES = 16 * 1024 * 1024
CONTENT_RATIO = 32
CONTENT_FLOOR = 16 * 1024 * 1024
_MAX_HEADING_LEVEL = 6


def _label(name: str) -> str:
    return name or "the file"


def corrupt(name: str) -> RagchunkError:
    """The error for a file pypdf cannot read as a PDF."""
    return RagchunkError(
        "file",
        f"{_label(name)} is damaged or truncated and cannot be read as a PDF: "
        "export it again or repair it (for example qpdf in.pdf repaired.pdf)",
        "pdf_corrupt",
        {"name": name},
    )


def encrypted(name: str) -> RagchunkError:
    """The error for a PDF that needs a password."""
    return RagchunkError(
        "file",
        f"{_label(name)} is encrypted with a password: decrypt it first "
        "(for example qpdf --decrypt --password=PASSWORD in.pdf out.pdf)",
        "pdf_encrypted",
        {"name": name},
    )


def encrypted_aes(name: str) -> RagchunkError:
    """The error for an AES-encrypted PDF where no AES implementation is installed."""
    return RagchunkError(
        "file",
        f"{_label(name)} is encrypted with AES, which needs the cryptography package this build lacks: "
        "save a decrypted copy first (for example qpdf --decrypt in.pdf out.pdf)",
        "pdf_encrypted_aes",
        {"name": name},
    )


def filter_unsupported(name: str, filters: str) -> RagchunkError:
    """The error for a PDF whose text is in streams compressed with a filter ragchunk cannot decode."""
    return RagchunkError(
        "file",
        f"{_label(name)} uses the {filters} filter, which ragchunk cannot decode: export it again from the program"
        " that made it, or save it as text",
        "pdf_filter_unsupported",
        {"name": name, "filter": filters},
    )


def _missing_filter(error: BaseException) -> str | None:
    """The stream filter a pypdf ``DependencyError`` could not apply ("JBIG2Decode"), or None
    when what is missing is AES for an encrypted file (the cryptography package).

    pypdf raises that one exception for both (and for brotli), so the frames say which: AES is
    missing inside ``pypdf._crypt_providers``, a filter inside ``pypdf.filters.decode_stream_data``,
    whose ``filter_name`` names it.
    """
    found = None
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        module = frame.f_globals.get("__name__", "")
        if module.startswith("pypdf._crypt_providers"):
            return None
        if module == "pypdf.filters" and frame.f_code.co_name == "decode_stream_data":
            found = frame.f_locals.get("filter_name", found)
        trace = trace.tb_next
    said = str(error).lower()
    if found is None and "cryptography" in said:
        return None
    if found is None:
        found = "JBIG2Decode" if "jbig2" in said else "BrotliDecode" if "brotli" in said else "unknown"
    return str(found).lstrip("/")


def _dependency(name: str, error: BaseException) -> RagchunkError:
    """The error for a ``DependencyError`` that stops the whole file: AES or a filter that is missing."""
    missing = _missing_filter(error)
    return encrypted_aes(name) if missing is None else filter_unsupported(name, missing)


def too_much_content(name: str, size: int, drawn: int, limit: int) -> RagchunkError:
    """``pdf_too_much_content``: the pages draw far more decoded content than the file's size
    explains (one stream drawn by every page, forms drawn again and again)."""
    return RagchunkError(
        "file",
        f"{_label(name)} draws more than {limit // 2**20:,} MiB of page content from {size:,} bytes (the same"
        " content drawn again and again, which no real document needs): check where it came from, or print it to"
        " a new PDF and read that",
        "pdf_too_much_content",
        {"name": name, "size": size, "limit_mib": limit // 2**20},
    )


def bomb(name: str) -> RagchunkError:
    """``pdf_bomb``: every page's content inflates past :data:`MAX_STREAM_BYTES` (a flate bomb)."""
    return RagchunkError(
        "file",
        f"{_label(name)} has page content that inflates past {MAX_STREAM_BYTES // 2**20} MiB per stream, far beyond"
        " any page of text (a decompression bomb): it is not a normal document; check where it came from",
        "pdf_bomb",
        {"name": name, "limit_mib": MAX_STREAM_BYTES // 2**20},
    )


def filter_unknown(name: str, filters: str) -> RagchunkError:
    """``pdf_filter_unknown``: the page content is compressed with a filter no PDF reader knows."""
    return RagchunkError(
        "file",
        f"{_label(name)} compresses its text with a filter that is not part of PDF ({filters}), so no reader can"
        " decode it: export the document again from the program that made it",
        "pdf_filter_unknown",
        {"name": name, "filter": filters},
    )


def page_loop(name: str) -> RagchunkError:
    """``pdf_page_loop``: its page tree loops (a page is its own ancestor), so its pages cannot be found."""
    return RagchunkError(
        "file",
        f"{_label(name)} has a page tree that loops back on itself, so its pages cannot be found: repair it (for"
        " example qpdf in.pdf repaired.pdf) and read the repaired file",
        "pdf_page_loop",
        {"name": name},
    )


def _parent_loop(page: Any) -> bool:
    """Whether following ``/Parent`` up from ``page`` comes back to a node already met."""
    seen: set[int] = set()
    node = page
    for _ in range(1_000):
        try:
            parent = node.get("/Parent")
        except Exception:
            return False
        if parent is None:
            return False
        key = getattr(parent, "idnum", None)
        if key is None:
            return False
        if key in seen:
            return True
        seen.add(key)
        try:
            node = parent.get_object()
        except Exception:
            return False
    return True


def no_text(name: str) -> RagchunkError:
    """The error for a PDF whose pages show no text (a scan)."""
    return RagchunkError(
        "file",
        f"{_label(name)} has no text layer: run OCR first (for example ocrmypdf)",
        "pdf_no_text",
        {"name": name},
    )


def slanted_text(name: str) -> RagchunkError:
    """The error for a PDF that has text, all of it slanted (rotated 30°, say: on no axis of the page).

    Such text is not a scan, so "run OCR" alone would be the wrong advice: ``ocrmypdf`` refuses
    a file that has text unless told to redo it.
    """
    return RagchunkError(
        "file",
        f"{_label(name)} has text, but all of it runs at a slant (neither across nor up or down the page),"
        " which ragchunk does not read: export it again with the text upright, or run OCR over it"
        " (for example ocrmypdf --force-ocr)",
        "pdf_slanted_text",
        {"name": name},
    )


def _why_unreadable(name: str, undecodable: list[int], filtered: str, bombed: list[int], crowded: list[int],
                    unknown: dict[str, None], size: int, budget: ContentBudget) -> RagchunkError:
    """The error for a PDF none of whose pages could be read, by what stopped them."""
    if undecodable:
        return filter_unsupported(name, filtered)
    if bombed:
        return bomb(name)
    if crowded:
        return too_much_content(name, size, budget.drawn, budget.page_limit)
    if unknown:
        return filter_unknown(name, ", ".join(unknown))
    return corrupt(name)


def _page_list(pages: list[int]) -> str:
    """1-based page numbers as ranges: ``[1, 2, 3, 7] -> "1-3, 7"``."""
    parts: list[str] = []
    start = previous = pages[0]
    for page in pages[1:] + [0]:
        if page != previous + 1:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = page
        previous = page
    return ", ".join(parts)


def _quiet(logger: str) -> None:
    """Keep pypdf's warnings ("EOF marker not found") off standard error when nobody set up logging.

    pypdf logs what it repairs; ragchunk says what matters as an error or a note. A
    NullHandler stops Python's last-resort handler printing them, and an application that
    configures logging still receives them.
    """
    log = logging.getLogger(logger)
    if not any(isinstance(handler, logging.NullHandler) for handler in log.handlers):
        log.addHandler(logging.NullHandler())


def _note(code: str, message: str, **params: Any) -> dict[str, Any]:
    return {"code": code, "params": params, "message": message}


def _open(data: bytes, name: str) -> Any:
    """A pypdf reader of ``data``, decrypted with the empty password when encrypted."""
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise RagchunkError("file", f"{_label(name)} must be given as bytes, not {type(data).__name__}")
    try:
        reader = PdfReader(BytesIO(bytes(data)), strict=False)
        locked = reader.is_encrypted
    except DependencyError as error:
        raise _dependency(name, error) from None
    except Exception as error:  # pypdf raises many kinds for broken files; none may escape
        raise corrupt(name) from error
    if locked:
        try:
            opened = reader.decrypt("")
        except DependencyError as error:
            raise _dependency(name, error) from None
        except Exception as error:
            raise encrypted(name) from error
        if opened == PasswordType.NOT_DECRYPTED:
            raise encrypted(name)
    return reader


def _outline(reader: Any, frames: dict[int, Any]) -> list[OutlineEntry]:
    """The bookmarks as entries (title, depth, page, top in the page's reading frame, which
    ``frames`` maps page indices to from user space); [] when the outline is missing or
    unreadable."""
    from pypdf.generic import Destination

    try:
        tree = reader.outline
    except Exception:
        return []
    entries: list[OutlineEntry] = []
    stack: list[tuple[list[Any], int, int]] = [(tree, 0, 1)]
    while stack and len(entries) < _MAX_OUTLINE_ENTRIES:
        items, index, level = stack.pop()
        if index >= len(items):
            continue
        stack.append((items, index + 1, level))
        item = items[index]
        if isinstance(item, list):
            # A list holds the children of the item before it.
            stack.append((item, 0, level + 1))
            continue
        if not isinstance(item, Destination):
            continue
        try:
            title = str(item.title or "")
            page = reader.get_destination_page_number(item)
        except Exception:
            continue
        if page is None or page < 0 or not title.strip():
            continue
        top = None
        try:
            raw_top = item.top
            if raw_top is not None and page in frames:
                left = item.left if item.left is not None else 0.0
                matrix = frames[page]
                top = float(left) * matrix[1] + float(raw_top) * matrix[3] + matrix[5]
        except (TypeError, ValueError, AttributeError):
            top = None
        entries.append(OutlineEntry(title, min(level, _MAX_HEADING_LEVEL), page, top))
    return entries


def _has_image(page: Any) -> bool:
    try:
        xobjects = page["/Resources"]["/XObject"]
        return any(xobjects[key].get("/Subtype") == "/Image" for key in xobjects)
    except Exception:
        return False


def read(
    data: bytes,
    name: str,
    options: ReadOptions,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> Extracted:
    """Read a PDF's text layer as Markdown; ``pages`` maps offsets to 1-based pages.

    ``progress``, when given, is called as ``progress(done_pages, total_pages)`` at most
    101 times, the last time with ``(total, total)``; an exception it raises stops the
    reading and propagates (a way to cancel).

    >>> from ragchunk.readers import ReadOptions
    >>> read(b"%PDF-1.7 not really", "x.pdf", ReadOptions())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: x.pdf is damaged or truncated and cannot be read as a PDF: ... repaired.pdf)

    Pages with no text between pages with text are noted (``pdf_pages_without_text``,
    with the pages that hold an image: likely scans), as are pages pypdf cannot parse
    (``pdf_pages_unreadable``) and rotated or vertical text, which is left out
    (``pdf_rotated_text``): each page is read in the direction most of its text runs,
    whatever its /Rotate, so what is left out is text turned against the rest of its page
    (a label up the margin) or slanted.

    Raises:
        RagchunkError: ``pdf_no_text``, ``pdf_slanted_text``, ``pdf_encrypted``, ``pdf_encrypted_aes``,
            ``pdf_filter_unsupported``, ``pdf_corrupt`` (``field="file"``, see the module) or ``pdf_needs_pypdf``
            (pypdf is not installed), or ``progress`` is not callable.
    """
    try:
        import pypdf
    except ImportError:
        raise RagchunkError(
            "file",
            f"reading {_label(name)} needs the pypdf package: install it (pip install 'ragchunk[pdf]')",
            "pdf_needs_pypdf",
            {"name": name},
        ) from None
    _quiet(pypdf.__name__)
    if progress is not None and not callable(progress):
        raise RagchunkError(
            "progress", f"progress ({type(progress).__name__}) must be callable as progress(done, total) or None"
        )
    limits = {"zlib_maximum_output_length": MAX_STREAM_BYTES, "lzw_maximum_output_length": MAX_STREAM_BYTES,
              "run_length_maximum_output_length": MAX_STREAM_BYTES,
              "array_based_stream_maximum_output_length": MAX_STREAM_BYTES}
    with pypdf.apply_configuration(**limits):
        return _read(pypdf, data, name, options, progress)


def _read(pypdf: Any, data: bytes, name: str, options: ReadOptions,
          progress: Callable[[int, int], None] | None) -> Extracted:
    from pypdf.errors import DependencyError, LimitReachedError

    reader = _open(data, name)
    try:
        total = len(reader.pages)
    except DependencyError as error:
        raise _dependency(name, error) from None
    except Exception as error:
        if "cyclic" in str(error):
            raise page_loop(name) from None
        raise corrupt(name) from error
    budget = ContentBudget(max(CONTENT_RATIO * len(data), CONTENT_FLOOR))
    chars = 0
    bombed: list[int] = []
    crowded: list[int] = []
    unknown: dict[str, None] = {}
    fonts = FontCache()
    pages: list[list[Line]] = []
    matrices: dict[int, Any] = {}
    unreadable: list[int] = []
    # Pages whose content needs a filter ragchunk cannot decode, and those filters in order met.
    undecodable: list[int] = []
    filters: dict[str, None] = {}
    scanned: list[int] = []
    skipped = 0
    step = max(1, -(-total // _PROGRESS_CALLS))
    heights: list[float | None] = []
    for index in range(total):
        height: float | None = None
        try:
            page = reader.pages[index]
            shown = page_text(reader, page, fonts, budget)
            matrices[index] = shown.matrix
            height = shown.height
            lines = lines_of(shown.runs, fonts.infos)
            skipped += shown.skipped_chars
            chars += sum(len(line.text) + 1 for line in lines)
            if chars > options.max_chars:
                raise text_too_large(name, options.max_chars)
            if not lines and _has_image(page):
                scanned.append(index + 1)
        except RagchunkError:
            raise
        except TooMuchContent as error:
            if error.scope == "file":
                raise too_much_content(name, len(data), error.drawn, error.limit) from None
            lines = []
            crowded.append(index + 1)
            unreadable.append(index + 1)
        except LimitReachedError:
            lines = []
            bombed.append(index + 1)
            unreadable.append(index + 1)
        except NotImplementedError as error:
            lines = []
            unreadable.append(index + 1)
            if "filter" in str(error).lower():
                unknown[str(error).rsplit(" ", 1)[-1]] = None
        except DependencyError as error:
            missing = _missing_filter(error)
            if missing is None:
                raise encrypted_aes(name) from None
            lines = []
            undecodable.append(index + 1)
            filters[missing] = None
        except Exception:
            lines = []
            unreadable.append(index + 1)
        pages.append(lines)
        heights.append(height)
        if progress is not None and ((index + 1) % step == 0 or index + 1 == total):
            progress(index + 1, total)
    filtered = ", ".join(filters)
    if total and len(unreadable) + len(undecodable) == total:
        raise _why_unreadable(name, undecodable, filtered, bombed, crowded, unknown, len(data), budget)
    try:
        outline = _outline(reader, matrices)
    except DependencyError as error:
        raise _dependency(name, error) from None
    result = layout(pages, fonts.infos, outline, lines_given=True, keep_contents=options.keep_boilerplate,
                    heights=heights)
    if not result.text.strip() or not result.pages_with_text:
        if undecodable:
            raise filter_unsupported(name, filtered)
        if unreadable:
            raise _why_unreadable(name, undecodable, filtered, bombed, crowded, unknown, len(data), budget)
        if fonts.failures:
            raise corrupt(name)
        if total and _parent_loop(reader.pages[0]):
            raise page_loop(name)
        # Each page is read in the direction most of its text runs, so text left out of a file
        # where no page has a line is text on no axis (slanted or sheared), not a missing layer.
        raise slanted_text(name) if skipped and not any(pages) else no_text(name)
    if progress is not None and total == 0:
        progress(0, 0)
    label = _label(name)
    notes: list[dict[str, Any]] = []
    # "of N pages" stays plural: a PDF whose every page is unreadable or a scan is refused
    # above, so these notes count fewer pages than the file has.
    if unreadable:
        listed, one = _page_list(unreadable), len(unreadable) == 1
        notes.append(_note(
            "pdf_pages_unreadable",
            f"{len(unreadable):,} of {total:,} pages of {label} could not be read and {'was' if one else 'were'} left"
            f" out ({'page' if one else 'pages'} {listed})",
            name=name, count=len(unreadable), total=total, pages=listed,
        ))
    if undecodable:
        listed, one = _page_list(undecodable), len(undecodable) == 1
        notes.append(_note(
            "pdf_pages_filter_unsupported",
            f"{len(undecodable):,} of {total:,} pages of {label} {'uses' if one else 'use'} the {filtered} filter,"
            f" which ragchunk cannot decode, and {'was' if one else 'were'} left out"
            f" ({'page' if one else 'pages'} {listed})",
            name=name, count=len(undecodable), total=total, pages=listed, filter=filtered,
        ))
    if scanned:
        listed, one = _page_list(scanned), len(scanned) == 1
        notes.append(_note(
            "pdf_pages_without_text",
            f"{len(scanned):,} of {total:,} pages of {label} {'is an image' if one else 'are images'} without text"
            f" ({'page' if one else 'pages'} {listed}): run OCR to read {'it' if one else 'them'} (for example"
            " ocrmypdf)",
            name=name, count=len(scanned), total=total, pages=listed,
        ))
    if pypdf.__version__ != PYPDF_VERSION:
        notes.append(_note(
            "pdf_pypdf_version",
            f"{label} was read with pypdf {pypdf.__version__}; ragchunk is tested with {PYPDF_VERSION}, "
            "so the text may differ",
            name=name, version=pypdf.__version__, tested=PYPDF_VERSION,
        ))
    if result.toc_lines:
        notes.append(boilerplate_note(name, result.toc_lines))
    if skipped:
        notes.append(_note(
            "pdf_rotated_text",
            f"{skipped:,} character{'s' if skipped != 1 else ''} of rotated or vertical text in {label}"
            f" {'were' if skipped != 1 else 'was'} left out",
            name=name, count=skipped,
        ))
    try:
        title = " ".join(str((reader.metadata or {}).get("/Title") or "").split())
    except Exception:
        title = ""
    return Extracted(result.text, "pdf", title, result.pages, (), tuple(notes))
