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


# `build.py test` runs pytest on two processes (pytest-xdist, ``--dist loadgroup``). The
# browser tests share one Chromium and one booted core (tests/e2e/conftest.py), and the
# engine tests one Ray and one Spark (tests/engines/conftest.py): each folder is one group,
# run in order by one worker, so each of those starts once; the other worker takes the unit
# tests and doctests one by one meanwhile. Without xdist the marker does nothing.
GROUPS = {("tests", "e2e"): "browser", ("tests", "engines"): "engines"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        group = GROUPS.get(item.path.relative_to(config.rootpath).parts[:2])
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
