"""What the steps share: the checkout's folders, dist/, and how a step logs and runs a command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
PYCORE = ROOT / "pycore"
# RAGCHUNK_DIST lets several builds (parallel work, benchmarks) use their own folder.
DIST = Path(os.environ.get("RAGCHUNK_DIST") or ROOT / "dist")
NODE_MODULES = ROOT / "node_modules"


def log(message: str) -> None:
    print(f"build.py: {message}", flush=True)


def run(command: list[str], **kwargs) -> None:
    log("$ " + " ".join(command))
    subprocess.run(command, check=True, **kwargs)


def core_on_path() -> None:
    """Let the steps that read the core (its version, form spec, tables) import pycore/ragchunk."""
    if str(PYCORE) not in sys.path:
        sys.path.insert(0, str(PYCORE))
