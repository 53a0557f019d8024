"""Ray Data and Spark against the local ``split_corpus(jobs=N)`` path, on the same documents.

Each path reads one table of documents (a folder of Parquet files with ``source`` and
``text``, written once before timing) and writes a Parquet of chunks:

- local: pyarrow reads the table, :func:`ragchunk.corpus.split_corpus` splits it in ``N``
  worker processes (``local-1``: in the calling process),
  :class:`ragchunk.integrations.arrow.ParquetWriter` writes the rows;
- Ray: the table's files as blocks (``ray.data.from_arrow``) →
  :func:`ragchunk.integrations.ray.split_dataset` → ``write_parquet`` (``ray.init(num_cpus=N)``);
- Spark: ``spark.read.parquet`` → ``repartition`` → :func:`ragchunk.integrations.spark.split_dataframe`
  → ``write.parquet`` (``local[N]``).

Every path runs on two corpus sizes (whole Markdown documents of at most 256 KB that
installed packages ship, as ``bench/corpus.py`` finds them, cycled when there are too
few), ``--repeat`` times each, best time kept. The
per-MB cost is the slope between the two sizes and the fixed cost of a job the intercept;
the engine's own start (``ray.init``, the SparkSession and its JVM) and the first, cold
job are shown apart. Ratios are against the local path measured in the same run; every
path's rows are checked to be the same chunks.

    python3 bench/bench_engines.py [--sizes 4 20] [--jobs 2] [--repeat 3] [--only ray ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pycore"))
sys.path.insert(0, str(ROOT / "bench"))

import corpus
import pyarrow as pa
import pyarrow.parquet as pq
from ragchunk.corpus import split_corpus
from ragchunk.integrations.arrow import ParquetWriter
from ragchunk.options import SplitOptions

MB = 1_000_000
SETTINGS = {"size": 512, "overlap": 64}
FILES = 8
MAX_DOCUMENT = 256_000


def gather(size: int) -> list[tuple[str, str]]:
    """Documents of at most ``MAX_DOCUMENT`` bytes, in :func:`corpus.documents` order, until
    ``size`` UTF-8 bytes; cycled (sources ``path#2``, ``path#3`` ...) when the machine has fewer.

    The few very large files (Node.js API docs, changelogs) would otherwise be most of the
    bytes, and one document is split by one worker: what is measured is many documents.
    """
    pool = [(str(path), text) for path, text in corpus.documents() if len(text.encode("utf-8")) <= MAX_DOCUMENT]
    found, total, round_ = [], 0, 1
    while total < size:
        for source, text in pool:
            found.append((source if round_ == 1 else f"{source}#{round_}", text))
            total += len(text.encode("utf-8"))
            if total >= size:
                break
        round_ += 1
    return found


def write_table(docs: list[tuple[str, str]], folder: Path) -> None:
    folder.mkdir(parents=True)
    step = -(-len(docs) // FILES)
    for i in range(0, len(docs), step):
        part = docs[i:i + step]
        pq.write_table(pa.table({"source": [s for s, _ in part], "text": [t for _, t in part]}),
                       folder / f"part-{i // step:03d}.parquet")


def run_local(table: Path, out: Path, jobs: int) -> None:
    docs = pq.read_table(table)
    pairs = zip(docs.column("source").to_pylist(), docs.column("text").to_pylist(), strict=True)
    out.mkdir()
    writer = ParquetWriter(out / "chunks.parquet")
    for result in split_corpus(pairs, SplitOptions(**SETTINGS), jobs=jobs):
        writer.write(result.records())
    writer.close()


def run_ray(table: Path, out: Path, jobs: int) -> None:
    import ray.data
    from ragchunk.integrations.ray import split_dataset

    # One block per file: Ray runs one task per block, and read_parquet would make these few
    # small files one block (and its file listing step stalls ~16 s on this offline machine).
    docs = ray.data.from_arrow([pq.read_table(path) for path in sorted(table.glob("*.parquet"))])
    split_dataset(docs, **SETTINGS).write_parquet(str(out))


def run_spark(spark, table: Path, out: Path, jobs: int) -> None:
    from ragchunk.integrations.spark import split_dataframe

    docs = spark.read.parquet(str(table)).repartition(4 * jobs)
    split_dataframe(docs, **SETTINGS).write.mode("overwrite").parquet(str(out))


def chunks_of(out: Path) -> list[tuple[str, int, str]]:
    rows = pq.read_table(str(out), columns=["source", "id", "text"]).to_pylist()
    return sorted((row["source"], row["id"], row["text"]) for row in rows)


def timed(work, *args) -> float:
    started = time.perf_counter()
    work(*args)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs=2, default=[4.0, 20.0], metavar="MB")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes / engine CPUs (default 2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["ray", "spark"], action="append",
                        help="run only this engine (repeatable); the local paths always run, as the reference")
    args = parser.parse_args()
    paths = args.only or ["ray", "spark"]
    work = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    try:
        tables, sizes = {}, {}
        for mb in args.sizes:
            docs = gather(int(mb * MB))
            tables[mb] = work / f"docs-{mb:g}mb"
            sizes[mb] = sum(len(t.encode("utf-8")) for _, t in docs) / MB
            write_table(docs, tables[mb])
            print(f"corpus {mb:g} MB: {len(docs):,} documents, {sizes[mb]:.2f} MB", flush=True)

        starts: dict[str, float] = {}
        runners = {"local": lambda table, out: run_local(table, out, args.jobs),
                   "local-1": lambda table, out: run_local(table, out, 1)}
        if "ray" in paths:
            import ray

            os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # no reports over the network
            started = time.perf_counter()
            ray.init(num_cpus=args.jobs, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": str(ROOT / "pycore")}})
            import ray.data

            ray.data.DataContext.get_current().enable_progress_bars = False
            starts["ray"] = time.perf_counter() - started
            runners["ray"] = lambda table, out: run_ray(table, out, args.jobs)
        if "spark" in paths:
            os.environ["PYSPARK_PYTHON"] = sys.executable
            from pyspark.sql import SparkSession

            started = time.perf_counter()
            spark = (SparkSession.builder.master(f"local[{args.jobs}]").appName("bench-engines")
                     .config("spark.executorEnv.PYTHONPATH", str(ROOT / "pycore"))
                     .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                     .config("spark.sql.shuffle.partitions", str(4 * args.jobs)).getOrCreate())
            spark.sparkContext.setLogLevel("ERROR")
            starts["spark"] = time.perf_counter() - started
            runners["spark"] = lambda table, out: run_spark(spark, table, out, args.jobs)

        results: dict[str, dict] = {}
        reference: dict[float, list] = {}
        for name in [p for p in ["local", "local-1", "ray", "spark"] if p in runners]:
            best: dict[float, float] = {}
            first = None
            for round_ in range(args.repeat):
                for mb in args.sizes:
                    out = work / f"out-{name}-{mb:g}-{round_}"
                    took = timed(runners[name], tables[mb], out)
                    first = took if first is None else first
                    best[mb] = min(best.get(mb, took), took)
                    found = chunks_of(out)
                    if mb not in reference:
                        reference[mb] = found
                    assert found == reference[mb], f"{name} gave other chunks than the first path at {mb:g} MB"
                    shutil.rmtree(out)
            small, large = args.sizes
            per_mb = (best[large] - best[small]) / (sizes[large] - sizes[small])
            results[name] = {"start": starts.get(name, 0.0), "first": first, "best": best, "per_mb": per_mb,
                             "fixed": best[small] - per_mb * sizes[small]}
            print(f"{name:6} done: " + ", ".join(f"{mb:g} MB {best[mb]:.2f} s" for mb in args.sizes), flush=True)

        print()
        print(f"{len(reference[args.sizes[1]]):,} chunks at {args.sizes[1]:g} MB, the same in every path;"
              f" {args.jobs} CPUs, size {SETTINGS['size']}, overlap {SETTINGS['overlap']}, cl100k_base")
        print(f"{'path':8}{'start s':>9}{'1st job s':>11}{'fixed s':>9}{'s per MB':>10}{'MB/s':>7}"
              + "".join(f"{f'{mb:g} MB s':>10}" for mb in args.sizes) + f"{'x local/MB':>12}")
        base = results.get("local")
        for name, r in results.items():
            ratio = f"{r['per_mb'] / base['per_mb']:.2f}" if base else "-"
            print(f"{name:8}{r['start']:>9.2f}{r['first']:>11.2f}{r['fixed']:>9.2f}{r['per_mb']:>10.3f}"
                  f"{1 / r['per_mb']:>7.2f}" + "".join(f"{r['best'][mb]:>10.2f}" for mb in args.sizes)
                  + f"{ratio:>12}")
        if base:
            for name, r in results.items():
                if name in ("ray", "spark"):
                    gap = r["start"] + r["fixed"] - base["fixed"]
                    slower = r["per_mb"] - base["per_mb"]
                    note = (f"never catches up on this machine (slower per MB by {slower:.3f} s)" if slower >= 0
                            else f"pays off past {gap / -slower:,.0f} MB")
                    print(f"{name}: start + fixed {gap:.1f} s more than local; {note}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
