#!/usr/bin/env python3
"""Build, serve and test the ragchunk site.

    python3 build.py build            assemble the static site in dist/, with dist/ragchunk-offline.html
    python3 build.py serve [--port N] build, then serve dist/ on http://127.0.0.1:N/
    python3 build.py test [PYTEST ARGS] set up what a fresh machine lacks, build, run every test

The site is plain files: the page from web/, Pyodide's core from the pinned npm package,
tiktoken's WASM build and its encoders/*.json from the pinned npm package, and a wheel of
pycore/ragchunk made here by the pinned setuptools (pyproject.toml). The steps are the
package buildsteps/, one module each.
Nothing is fetched at run time from anywhere but the page's own origin.
"""

from __future__ import annotations

import argparse
import sys

from buildsteps.serve import serve
from buildsteps.site import build
from buildsteps.test import test


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="assemble dist/")
    serve_parser = commands.add_parser("serve", help="build and serve dist/")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000, help="port (0: any free port; default 8000)")
    test_parser = commands.add_parser("test", help="set up, build and run every test")
    test_parser.add_argument("--fast", action="store_true",
                             help="only the unit tests and doctests (a few minutes; no browser, no engines)")
    test_parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="arguments passed to pytest")
    args, extra = parser.parse_known_args()
    if extra and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "build":
        build()
        return 0
    if args.command == "serve":
        serve(args.host, args.port)
        return 0
    return test([*extra, *args.pytest_args], fast=args.fast)


if __name__ == "__main__":
    sys.exit(main())
