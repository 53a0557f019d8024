"""``build.py test``: set up what a fresh machine lacks, build, and run pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .common import ROOT, log, run
from .npm import ensure_npm
from .site import build
from .tables import prepare_tables

VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "tests" / "requirements.txt"
CHROMIUM = Path("/usr/bin/chromium")


def ensure_python_deps() -> Path:
    """The project's virtualenv with the test requirements; returns its python."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".requirements"
    wanted = REQUIREMENTS.read_text(encoding="utf-8")
    if not python.exists():
        run([sys.executable, "-m", "venv", str(VENV)])
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", str(REQUIREMENTS)])
        stamp.write_text(wanted, encoding="utf-8")
    return python


def apt_install(package: str, missing: str) -> None:
    """Install Debian's ``package`` with apt-get; ``missing`` says what is missing and why."""
    if shutil.which("apt-get") is None:
        raise SystemExit(f"build.py: {missing} and apt-get is not available")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-qq"], env=env)
    run(["apt-get", "install", "-y", "-qq", package], env=env)


def ensure_chromium() -> None:
    if not CHROMIUM.exists():
        apt_install("chromium", "Chromium is missing at /usr/bin/chromium")


def ensure_java() -> None:
    """Java for the Spark tests (PySpark starts a JVM): Debian's default-jre-headless."""
    if shutil.which("java") is None:
        apt_install("default-jre-headless", "java is missing (the Spark tests need it)")


# The development lane: the unit tests and the doctests of the core, no browser, no engines.
FAST_PATHS = ["tests/unit", "pycore"]
# Two processes (pytest-xdist): each browser test file is one group and the engine tests
# another, each group run in order by one worker (tests/conftest.py); the unit tests and
# doctests fill the gaps one by one. A run given its own -n, --dist or -p no:xdist keeps it.
WORKERS = ["-n", "2", "--dist", "loadgroup"]


def workers(pytest_args: list[str]) -> list[str]:
    """:data:`WORKERS` unless ``pytest_args`` choose how to run (``-n 0`` runs in this process)."""
    own = any(arg == "no:xdist" or arg.startswith(("-n", "--numprocesses", "--dist")) for arg in pytest_args)
    return [] if own else WORKERS


def test(pytest_args: list[str], fast: bool = False) -> int:
    """Set up what is missing, build, and run pytest on two workers; ``fast`` runs only
    :data:`FAST_PATHS` (no Chromium, no Java, no dist/). Either run prints its ten slowest
    tests at the end."""
    ensure_npm()
    python = ensure_python_deps()
    if fast:
        prepare_tables()
    else:
        ensure_chromium()
        ensure_java()
        build()
    command = [str(python), "-m", "pytest", *workers(pytest_args), *(pytest_args or ["-q"]), "--durations=10"]
    if fast and not any((ROOT / arg.split("::")[0]).exists() for arg in pytest_args if not arg.startswith("-")):
        command += FAST_PATHS
    log("$ " + " ".join(command))
    # dist/ was just built: the browser tests use it as it is.
    return subprocess.run(command, cwd=ROOT, env={**os.environ, "RAGCHUNK_SKIP_BUILD": "1"}).returncode
