"""Property tests explore new random examples on a developer's machine and replay the same
ones in CI (``.ci/run`` sets ``RAGCHUNK_HYPOTHESIS_PROFILE=ci``): a counterexample is found
where someone can read it, and a landing is never decided by which examples a run drew.
``RAGCHUNK_HYPOTHESIS_SCALE`` (see ``strategies.examples``) makes a long exploring run.

This file is not on the tests' import path, where ``conftest`` is the browser tests' module.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("RAGCHUNK_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["RAGCHUNK_HYPOTHESIS_PROFILE"])


# `build.py test` runs pytest on two processes (pytest-xdist, ``--dist loadgroup``). Each
# browser test file is one group, run in order by one worker, so that its module fixtures are
# made once; each worker has its own Chromium, server and shared core (tests/e2e/conftest.py),
# booted once per worker. The engine tests are one group: one Ray and one Spark
# (tests/engines/conftest.py). The unit tests and doctests go one by one to whichever worker
# is free. Without xdist the marker does nothing.
def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.relative_to(config.rootpath).parts
        if parts[:2] == ("tests", "e2e"):
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))
        elif parts[:2] == ("tests", "engines"):
            item.add_marker(pytest.mark.xdist_group("engines"))
