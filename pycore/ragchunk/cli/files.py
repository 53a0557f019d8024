"""Which files the CLI reads: paths, folders walked in sorted order, globs. The only file I/O.

A folder argument is walked recursively; each file's ``source`` is its path relative to
that folder with ``/`` separators; a file argument keeps the path as given, and ``-``
is standard input. Hidden files and folders (a name starting with ".") are left out
unless asked for; folder symlinks are not followed (no loops), file symlinks are.
``include`` and ``exclude`` globs match a file's source (``*`` also matches ``/``, so
``*.md`` matches at any depth). A name that is not valid UTF-8 keeps its bytes as
``\xff`` escapes in its source, so records stay UTF-8. Two files with one source (the same
file named twice, or ``a.md`` of two folders) are refused after the first, so records never
share a source.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..settings import MAX_DOCUMENT_BYTES

__all__ = ["Found", "cannot_read", "find_files", "printable", "read_file", "same_file", "shown_name"]

STDIN = "-"


@dataclass(frozen=True, slots=True)
class Found:
    """A file to read: its ``source`` (what records call it), where it is, and its size."""

    source: str
    path: Path | None  # None: standard input
    size: int


def _matches(source: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    if include and not any(fnmatch.fnmatchcase(source, glob) for glob in include):
        return False
    return not any(fnmatch.fnmatchcase(source, glob) for glob in exclude)


def find_files(paths: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = (),
               hidden: bool = False, left_out: Counter | None = None, follow_links: bool = False,
               notes: list[str] | None = None) -> tuple[list[Found], list[tuple[str, str]]]:
    """The files ``paths`` name, in order (each folder's files sorted by source), and the
    ``(path, reason)`` of each argument that names nothing readable (the reason the
    sentence of :func:`cannot_read`, or a clause that follows the path: "named twice ...").

    ``left_out``, when given, counts what folders held and was not taken, by why: ``"hidden"``
    (hidden files and folders, a folder counted once), ``"glob"`` (files that ``include`` /
    ``exclude`` leave out), ``"link"`` (links that lead outside the folder given) or
    ``"special"`` (FIFOs, devices, sockets), so a caller that found nothing can say why.

    A link in a folder that leads outside it (``docs/passwd.md -> /etc/passwd``) is not
    followed unless ``follow_links``: a folder given is a promise about what is read. Each
    one skipped is said in ``notes`` (when given), with where it leads. With
    ``follow_links`` links to folders are walked too, each folder once (a loop ends).
    FIFOs and devices in a folder are never opened (reading one could wait forever)."""
    found: list[Found] = []
    problems: list[tuple[str, str]] = []
    for argument in paths:
        if argument == STDIN:
            found.append(Found(STDIN, None, 0))
            continue
        path = Path(argument)
        shown = shown_name(argument)
        try:
            if path.is_dir():
                found.extend(_walk(path, include, exclude, hidden, problems, left_out, follow_links, notes))
            elif path.exists():
                found.append(Found(shown, path, path.stat().st_size))
            else:
                problems.append((shown, cannot_read(shown, FileNotFoundError())))
        except OSError as err:
            problems.append((shown, cannot_read(shown, err)))
    return _unique(found, problems), problems


def cannot_read(name: str, err: OSError) -> str:
    """The sentence for a file that cannot be opened or read, the same in every command.

    >>> cannot_read("notes.md", FileNotFoundError(2, "No such file or directory"))
    'notes.md cannot be read: no such file or folder; check the path'
    >>> cannot_read("secret.md", PermissionError(13, "Permission denied"))
    'secret.md cannot be read: permission denied; check the path'
    """
    if isinstance(err, FileNotFoundError):
        reason = "no such file or folder"
    elif isinstance(err, IsADirectoryError):
        reason = "it is a folder"
    else:
        reason = str(err.strerror or err)
        reason = reason[:1].lower() + reason[1:]
    return f"{name} cannot be read: {reason}; check the path"


def shown_name(name: str) -> str:
    """A file name as records and messages write it: bytes that are not UTF-8 (which Python
    holds as lone surrogates) as ``\\x..`` escapes.

    >>> shown_name("caf\\udce9.md"), shown_name("notes.md")
    ('caf\\\\xe9.md', 'notes.md')
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


# Characters that would move the terminal or forge a line when a name is printed: C0 and C1
# controls (line breaks, ESC), DEL, line and paragraph separators, and the bidirectional
# overrides and isolates that reorder what follows them.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe for one line of a terminal: every control character as its escape.

    A file may be called ``"a\\n\\x1b[2Kragchunk: note: everything is fine"``; printed as it
    is, that name forges a line of its own. Escaped, it stays part of its line.

    >>> printable("a\\nb\\x1b[31m.md"), printable("café.md")
    ('a\\\\nb\\\\x1b[31m.md', 'café.md')
    """
    return _UNSAFE.sub(lambda match: repr(match.group())[1:-1], text)


def _unique(found: list[Found], problems: list[tuple[str, str]]) -> list[Found]:
    """``found`` without a second file of the same source (a problem each)."""
    first: dict[str, Found] = {}
    kept = []
    for item in found:
        if item.source in first and item.path is not None:
            other = first[item.source]
            same = other.path is not None and same_file(other.path, item.path)
            problems.append((shown_name(str(item.path)), "named twice: its records are already written" if same else
                             f"its records would share the source {item.source!r} with {other.path}: pass the folder"
                             " that holds both, so each keeps its own path"))
            continue
        first[item.source] = item
        kept.append(item)
    return kept


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (False when either cannot be looked at)."""
    try:
        return a.samefile(b)
    except OSError:
        return False


def _walk(root: Path, include: Sequence[str], exclude: Sequence[str], hidden: bool,
          problems: list[tuple[str, str]], left_out: Counter | None = None, follow_links: bool = False,
          notes: list[str] | None = None) -> Iterator[Found]:
    files: list[Found] = []
    counts = left_out if left_out is not None else Counter()
    inside = root.resolve()
    seen: set[tuple[int, int]] = set()

    def refused(err: OSError) -> None:
        name = shown_name(str(err.filename or root))
        problems.append((name, cannot_read(name, err)))

    def skip(source: str, why: str, kind: str) -> None:
        counts[kind] += 1
        if notes is not None:
            notes.append(f"{source}: {why}")

    for folder, folders, names in os.walk(root, onerror=refused, followlinks=follow_links):
        if follow_links:
            # Followed links can lead back up: each folder is walked once.
            try:
                info = os.stat(folder)
            except OSError:
                folders[:] = []
                continue
            if (info.st_dev, info.st_ino) in seen:
                folders[:] = []
                continue
            seen.add((info.st_dev, info.st_ino))
        if not hidden:
            # A hidden folder counts as one, unwalked: .git alone can hold thousands of files.
            counts["hidden"] += sum(n.startswith(".") for n in (*names, *folders))
            folders[:] = [f for f in folders if not f.startswith(".")]
            names = [n for n in names if not n.startswith(".")]
        if not follow_links:
            for name in folders:
                if os.path.islink(os.path.join(folder, name)):
                    source = shown_name(Path(folder, name).relative_to(root).as_posix())
                    skip(source, "a link to a folder, not followed (--follow-links follows it)", "link")
        for name in names:
            path = Path(folder, name)
            source = shown_name(path.relative_to(root).as_posix())
            if not _matches(source, include, exclude):
                counts["glob"] += 1
                continue
            try:
                size = path.stat().st_size
            except OSError as err:
                shown = shown_name(str(path))
                problems.append((shown, cannot_read(shown, err)))
                continue
            if not follow_links and path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(inside):
                    skip(source, f"a link to {printable(shown_name(str(target)))}, outside {shown_name(str(root))},"
                                 " not followed (--follow-links follows it)", "link")
                    continue
            if path.is_file():
                files.append(Found(source, path, size))
            else:
                skip(source, "not a regular file (a FIFO, device or socket), not read", "special")
    files.sort(key=lambda f: f.source)
    return iter(files)


# A .zip of documents, read as the page reads one (web/ui/files.js): at most this many
# entries and inflated bytes in all; an entry past ZIP_RATIO_FLOOR bytes that inflates more
# than ZIP_MAX_RATIO times its packed size is a bomb; an entry stops at its declared size.
ZIP_MAX_ENTRIES = 10_000
ZIP_MAX_BYTES = 200_000_000
ZIP_MAX_RATIO = 200
ZIP_RATIO_FLOOR = 32_000_000


def is_archive(source: str, data: bytes) -> bool:
    """Whether a file is a .zip of documents to open (a .docx or .epub is a document, not this).

    >>> is_archive("docs.zip", b"PK\\x03\\x04"), is_archive("a.docx", b"PK\\x03\\x04")
    (True, False)
    """
    return source.lower().endswith(".zip") and data.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def zip_documents(source: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """The ``(source/entry, bytes)`` of the files in a .zip, in the order of its directory,
    inflated one at a time within the page's bounds (hidden entries and folders left out).

    Raises:
        ValueError: the archive is damaged, encrypted, uses another method than stored or
            deflate, holds too many entries, or inflates past the bounds (the sentence says which).
    """
    import io
    import zipfile
    import zlib

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, KeyError, IndexError):
        raise ValueError("is not a readable ZIP archive: unpack it with the program that made it") from None
    if len(infos) > ZIP_MAX_ENTRIES:
        raise ValueError(f"holds {len(infos):,} files, more than the {ZIP_MAX_ENTRIES:,} read from one archive:"
                         " unpack it and give the folder")
    declared = 0
    bomb = (f"inflates far beyond its size (more than {ZIP_MAX_RATIO} times, or past {ZIP_MAX_BYTES:,} bytes):"
            " it is not a normal archive; check where it came from")
    for info in infos:
        path = info.filename
        if path.endswith("/") or any(part.startswith(".") or part == "__MACOSX" for part in path.split("/")):
            continue
        if info.flag_bits & 1:
            raise ValueError(f"holds an encrypted file ({path}): unpack it with its password and give the folder")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(f"compresses {path} with a method ({info.compress_type}) that cannot be read (only"
                             " stored and deflate): unpack it and give the folder")
        declared += info.file_size
        if declared > ZIP_MAX_BYTES or (info.file_size > ZIP_RATIO_FLOOR
                                        and info.file_size > ZIP_MAX_RATIO * max(info.compress_size, 1)):
            raise ValueError(bomb)
        pieces, total = [], 0
        try:
            with archive.open(info) as stream:
                while piece := stream.read(1 << 20):
                    total += len(piece)
                    if total > info.file_size or total > ZIP_MAX_BYTES:
                        raise ValueError(bomb)
                    pieces.append(piece)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError):
            raise ValueError(f"has a damaged entry ({path}): unpack what can be read and give the folder") from None
        yield f"{source}/{shown_name(path)}", b"".join(pieces)


def read_file(found: Found, stdin: object, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of a found file, at most ``limit + 1`` of them (one more than any document
    may have, so that ``/dev/zero`` or an endless pipe is refused as too large instead of
    filling the memory). Raises ``OSError`` when it cannot be read."""
    if found.path is None:
        buffer = getattr(stdin, "buffer", None)
        return buffer.read(limit + 1) if buffer is not None else stdin.read(limit + 1).encode("utf-8")
    with found.path.open("rb") as handle:
        return handle.read(limit + 1)
