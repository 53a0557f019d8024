"""The wheel of the core: the whole one (dist/python/) and the page's smaller one."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from .common import PYCORE, ROOT, run

# Fixed zip timestamps make the wheel byte-for-byte reproducible.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def build_wheel(out_dir: Path, version: str) -> Path:
    """The wheel of pycore/ragchunk (its ``version``) with its tables, built by the pinned setuptools (pyproject.toml).

    SOURCE_DATE_EPOCH fixes the zip timestamps, so the same sources give the same bytes.
    """
    # setuptools copies sources into build/lib and never removes a file deleted since.
    for stale in (ROOT / "build" / "lib", *ROOT.glob("build/bdist.*"), PYCORE / "ragchunk.egg-info"):
        shutil.rmtree(stale, ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": "315532800", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out_dir), str(ROOT)], env=env)
    shutil.rmtree(PYCORE / "ragchunk.egg-info", ignore_errors=True)
    wheels = sorted(out_dir.glob(f"ragchunk-{version}-py3-none-any.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"build.py: expected one ragchunk wheel in {out_dir}, found {len(wheels)}")
    return wheels[0]


def site_wheel(wheel: Path, out_dir: Path) -> Path:
    """``wheel`` without the tables the page fetches itself (tables/data/*), its modules
    compiled to Pyodide's bytecode (:func:`precompiled`), RECORD rewritten.

    The page loads this small wheel at start; tiktoken's rank files reach the WASM encoder
    directly, and a model family's tables are fetched when one of its models is chosen.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel.name
    kept: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(wheel) as source:
        for info in source.infolist():
            if info.filename.startswith("ragchunk/tables/data/") or info.filename.endswith(".dist-info/RECORD"):
                continue
            kept.append((info, source.read(info)))
        record_name = next(n for n in source.namelist() if n.endswith(".dist-info/RECORD"))
    kept = precompiled(kept)
    lines = []
    for info, data in kept:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{info.filename},sha256={digest},{len(data)}")
    lines.append(f"{record_name},,")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in kept:
            archive.writestr(info, data)
        record = zipfile.ZipInfo(record_name, ZIP_EPOCH)
        record.compress_type = zipfile.ZIP_DEFLATED
        record.external_attr = 0o644 << 16
        archive.writestr(record, "\n".join(lines) + "\n")
    return target


def precompiled(entries: list[tuple[zipfile.ZipInfo, bytes]]) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """``entries`` with each ``.py`` replaced by a sourceless ``.pyc`` of Pyodide's own Python.

    Importing the core in the worker compiled every module at each cold start (about a
    third of the worker's own start-up: 1.3 s of imports, 0.9 s from bytecode, under
    Node); Pyodide ships its own packages this way. The bytecode comes from the pinned
    Pyodide itself (``bytecode.mjs``), so its magic number is the page's by construction.
    """
    sources = {info.filename: data.decode("utf-8") for info, data in entries if info.filename.endswith(".py")}
    with tempfile.TemporaryDirectory() as work:
        given, made = Path(work) / "sources.json", Path(work) / "bytecode.json"
        given.write_text(json.dumps(sources), encoding="utf-8")
        run(["node", str(ROOT / "buildsteps" / "bytecode.mjs"), str(given), str(made)])
        compiled = json.loads(made.read_text(encoding="utf-8"))["pyc"]
    if set(compiled) != set(sources):
        raise SystemExit("build.py: Pyodide did not compile every module of the core")
    out = []
    for info, data in entries:
        if info.filename in compiled:
            pyc = zipfile.ZipInfo(info.filename + "c", info.date_time)
            pyc.compress_type, pyc.external_attr = info.compress_type, info.external_attr
            info, data = pyc, base64.b64decode(compiled[info.filename])
        out.append((info, data))
    return out
