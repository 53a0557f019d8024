"""Which files the CLI reads: paths, folders walked in sorted order, globs. The only file I/O.

A folder argument is walked recursively; each file's ``source`` is its path relative to
that folder with ``/`` separators; a file argument keeps the path as given, and ``-``
is standard input. Hidden files and folders (a name starting with ".") are left out
unless asked for; folder symlinks are not followed (no loops), file symlinks are.
``include`` and ``exclude`` globs match a file's source (``*`` also matches ``/``, so
``*.md`` matches at any depth).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Found", "find_files", "read_file"]

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
               hidden: bool = False) -> tuple[list[Found], list[tuple[str, str]]]:
    """The files ``paths`` name, in order (each folder's files sorted by source), and the
    ``(path, reason)`` of each argument that names nothing readable."""
    found: list[Found] = []
    problems: list[tuple[str, str]] = []
    for argument in paths:
        if argument == STDIN:
            found.append(Found(STDIN, None, 0))
            continue
        path = Path(argument)
        try:
            if path.is_dir():
                found.extend(_walk(path, include, exclude, hidden, problems))
            elif path.exists():
                found.append(Found(argument, path, path.stat().st_size))
            else:
                problems.append((argument, "no such file or folder"))
        except OSError as err:
            problems.append((argument, err.strerror or str(err)))
    return found, problems


def _walk(root: Path, include: Sequence[str], exclude: Sequence[str], hidden: bool,
          problems: list[tuple[str, str]]) -> Iterator[Found]:
    files: list[Found] = []

    def refused(err: OSError) -> None:
        problems.append((err.filename or str(root), err.strerror or str(err)))

    for folder, folders, names in os.walk(root, onerror=refused):
        if not hidden:
            folders[:] = [f for f in folders if not f.startswith(".")]
            names = [n for n in names if not n.startswith(".")]
        for name in names:
            path = Path(folder, name)
            source = path.relative_to(root).as_posix()
            if not _matches(source, include, exclude):
                continue
            try:
                size = path.stat().st_size
            except OSError as err:
                problems.append((str(path), err.strerror or str(err)))
                continue
            if path.is_file():
                files.append(Found(source, path, size))
    files.sort(key=lambda f: f.source)
    return iter(files)


def read_file(found: Found, stdin: object) -> bytes:
    """The bytes of a found file (raises ``OSError`` when it cannot be read)."""
    if found.path is None:
        buffer = getattr(stdin, "buffer", None)
        return buffer.read() if buffer is not None else stdin.read().encode("utf-8")
    return found.path.read_bytes()
