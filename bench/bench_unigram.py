#!/usr/bin/env python3
"""Speed of ragchunk's pure-Python XLM-R tokenizer (``tokenizers.unigram``), with references
measured in the same run.

Figures are the best of ``--runs`` runs, each run timing the reference and ragchunk in turn;
they are CPU time (HF runs one thread; under Node, the CPU time of the process). Under Node
the median of each run's own ratio (ragchunk against the mean of the reference timed just
before and just after it) is printed too: V8 compiles WASM in background threads whose CPU
time lands on whatever runs then, and on this shared machine even a plain Python loop
varies by a half between repeats, so the best-of figures of the two sides can come from
different states of the machine.

- CPython: counting MB/s of ragchunk vs HF ``tokenizers`` (its Rust tokenizer, one
  thread, the reference tokenizer.json of tests/tables/xlmr_reference.py), cold (a new
  tokenizer, empty word cache) and warm (the same text again);
- Pyodide under Node: ragchunk in Pyodide vs the npm tiktoken WASM encoder (cl100k_base)
  in the same Node process, cold and warm;
- building the tokenizer from its tables on both, and the sizes, raw and gzipped, of the
  tables it reads (what a browser downloads when such a model is chosen).

Two texts of about 1 MB each: the repository's Markdown plus the shared chunking corpora
(English), and words glued from XLM-R's own pieces (its ~100 languages), half of them NFD.

    python3 bench/bench_unigram.py [--runs 3] [--no-pyodide]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from operator import truediv
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "pycore"), str(ROOT / "tests" / "tables")]

from ragchunk.tables import CATALOG, loaded, read  # noqa: E402
from ragchunk.tables.xlmr import parse_pieces  # noqa: E402
from ragchunk.tokenizers.unigram import load  # noqa: E402

TARGET_BYTES = 1_000_000
CORPORA = ROOT / "tests" / "data" / "chunking-evaluation" / "corpora"


def english() -> str:
    files = sorted((ROOT / "tests" / "data" / "md").glob("*.md")) + sorted(CORPORA.glob("*.md"))
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in files)
    return text.encode("utf-8")[:TARGET_BYTES].decode("utf-8", "ignore")


def multilingual() -> str:
    pieces = parse_pieces(read("xlmr-pieces"))[4:-1]
    rng = random.Random(7)
    starts = [p[1:] for p in pieces if p.startswith("\u2581") and len(p) > 1]
    inner = [p for p in pieces if not p.startswith("\u2581")]
    words, size = [], 0
    while size < TARGET_BYTES:
        word = "".join([rng.choice(starts), *rng.choices(inner, k=rng.randrange(3))])
        word = unicodedata.normalize("NFD", word) if rng.random() < 0.5 else word
        words.append(word)
        size += len(word.encode("utf-8")) + 1
    return " ".join(words)


def timed(function, *args) -> float:
    """CPU seconds of one call: on a shared machine wall time says more about the neighbours."""
    started = time.process_time()
    function(*args)
    return time.process_time() - started


def cpython(text: str, runs: int, reference) -> dict:
    """HF, then building a tokenizer, counting cold and warm, run by run in turn (so that all
    see the machine in the same state); best of the runs."""
    megabytes = len(text.encode("utf-8")) / 1e6
    hf, build, cold, warm = [], [], [], []
    for _ in range(runs):
        hf.append(timed(lambda: reference.encode(text, add_special_tokens=False)))
        started = time.process_time()
        tokenizer = load()
        build.append(time.process_time() - started)
        cold.append(timed(tokenizer.count, text))
        warm.append(timed(tokenizer.count, text))
    assert tokenizer.count(text) == len(reference.encode(text, add_special_tokens=False).ids)
    return {"hf": megabytes / min(hf), "cold": megabytes / min(cold), "warm": megabytes / min(warm),
            "build": min(build)}


def pyodide(text: str, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "text.txt"
        path.write_text(text, encoding="utf-8")
        out = subprocess.run(["node", str(ROOT / "bench" / "bench_unigram_node.mjs"), str(ROOT / "pycore"),
                              str(path), str(runs)], capture_output=True, text=True, check=True, cwd=ROOT)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["count"] == load().count(text), "Pyodide counted differently from CPython"
    megabytes = len(text.encode("utf-8")) / 1e6
    reference, cold, warm = result["runs"]
    return {"wasm": megabytes / result["reference"], "cold": megabytes / result["cold"],
            "warm": megabytes / result["warm"], "first_load": result["first_load"], "build": result["build"],
            "boot": result["boot"], "paired_cold": statistics.median(map(truediv, reference, cold)),
            "paired_warm": statistics.median(map(truediv, reference, warm))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pyodide", action="store_true")
    args = parser.parse_args()

    started = time.process_time()
    load()
    first = time.process_time() - started
    needed = [name for name in CATALOG if name.startswith("xlmr-") and loaded(name)]

    from xlmr_reference import reference_tokenizer

    with tempfile.TemporaryDirectory() as folder:
        reference = reference_tokenizer(Path(folder))
    reference.encode_special_tokens = True
    texts = {"english": english(), "multilingual": multilingual()}
    results = {name: cpython(text, args.runs, reference) for name, text in texts.items()}
    print(f"CPython {sys.version.split()[0]}: tables read + tokenizer built in {first:.2f} s the first time,"
          f" built again from the read tables in {min(r['build'] for r in results.values()):.2f} s")
    for name, text in texts.items():
        r = results[name]
        print(f"  {name:12} {len(text.encode()) / 1e6:.2f} MB  HF tokenizers {r['hf']:.2f} MB/s | ragchunk cold"
              f" {r['cold']:.2f} MB/s ({r['cold'] / r['hf']:.2f}x), warm {r['warm']:.2f} MB/s ({r['warm'] / r['hf']:.2f}x)")
    if not args.no_pyodide:
        for name, text in texts.items():
            r = pyodide(text, args.runs)
            if name == "english":
                print(f"Pyodide (Node): boot {r['boot']:.2f} s; import + tables read + tokenizer built"
                      f" {r['first_load']:.2f} s the first time, built again {r['build']:.2f} s")
            print(f"  {name:12} tiktoken WASM {r['wasm']:.2f} MB/s | ragchunk cold {r['cold']:.2f} MB/s"
                  f" ({r['cold'] / r['wasm']:.2f}x), warm {r['warm']:.2f} MB/s ({r['warm'] / r['wasm']:.2f}x);"
                  f" median of the runs' own ratios: cold {r['paired_cold']:.2f}x, warm {r['paired_warm']:.2f}x")
    print("tables (raw / gzip -9):")
    total = [0, 0]
    for name in needed:
        data = read(name)
        packed = len(gzip.compress(data, 9))
        total[0] += len(data)
        total[1] += packed
        print(f"  {CATALOG[name].file:22} {len(data) / 1e6:6.2f} MB / {packed / 1e6:5.2f} MB")
    print(f"  {'total':22} {total[0] / 1e6:6.2f} MB / {total[1] / 1e6:5.2f} MB"
          " (the tables load() reads; the others serve the tests)")


if __name__ == "__main__":
    main()
