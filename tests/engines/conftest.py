"""Local engines shared by the tests of this folder: Ray with 2 CPUs and Spark ``local[2]``.

Each starts once per test session (Ray in ~5 s, Spark in ~20 s here) and stops at its end.
Their workers import ragchunk from this checkout (``pycore`` on their ``PYTHONPATH``) with
this interpreter, as an installed ``ragchunk[ray]`` / ``ragchunk[spark]`` would be found.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from engine_corpus import OPTIONS, PYCORE, documents


@pytest.fixture(scope="session")
def ray_session():
    import ray
    import ray.data

    with pytest.MonkeyPatch.context() as patch:
        # Ray reports usage statistics over the network by default; these tests stay on this machine.
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=400 * 1024 * 1024,
                 runtime_env={"env_vars": {"PYTHONPATH": str(PYCORE)}})
        ray.data.DataContext.get_current().enable_progress_bars = False
        yield ray
        ray.shutdown()


@pytest.fixture(scope="session")
def ray_parquet_folder(ray_session, tmp_path_factory) -> Path:
    """A Parquet folder written by the Ray path: one block per document, the first one without any heading."""
    from ragchunk.integrations.ray import split_dataset

    docs = sorted(documents(), key=lambda pair: pair[0] != "plain.txt")
    folder = tmp_path_factory.mktemp("ray") / "chunks"
    items = [{"source": source, "text": data} for source, data in docs]
    dataset = ray_session.data.from_items(items, override_num_blocks=len(items))
    split_dataset(dataset, batch_size=1, on_error="record", **OPTIONS).write_parquet(str(folder))
    return folder


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    with pytest.MonkeyPatch.context() as patch:
        # Spark starts Python workers with PYSPARK_PYTHON (default: python3 on the PATH).
        patch.setenv("PYSPARK_PYTHON", sys.executable)
        session = (SparkSession.builder.master("local[2]").appName("ragchunk-tests")
                   .config("spark.executorEnv.PYTHONPATH", str(PYCORE))
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "2")
                   .getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        yield session
        session.stop()
