"""Property tests explore new random examples on a developer's machine and replay the same
ones in CI (``.ci/run`` sets ``RAGCHUNK_HYPOTHESIS_PROFILE=ci``): a counterexample is found
where someone can read it, and a landing is never decided by which examples a run drew.
``RAGCHUNK_HYPOTHESIS_SCALE`` (see ``strategies.examples``) makes a long exploring run.

This file is not on the tests' import path, where ``conftest`` is the browser tests' module.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("RAGCHUNK_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["RAGCHUNK_HYPOTHESIS_PROFILE"])
